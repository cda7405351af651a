"""promlib.py — what the end-to-end Prometheus checks (e2e.py, e2e_udef.py) share: the check
printer, a free port, HTTP GET, a Prometheus query and starting a real Prometheus that scrapes one
target. Not a test by itself."""
import json, os, shutil, signal, socket, subprocess, sys, time, urllib.parse, urllib.request

PROM = "/usr/bin/prometheus"
results = []

def skip_without_prometheus():
    """Prints the skip line and exits 0 when Debian's prometheus is not installed."""
    if not os.access(PROM, os.X_OK):
        print("skip - prometheus is not installed (Debian package prometheus)")
        sys.exit(0)

def check(name, cond, detail=""):
    """Records one check and prints its ok / not ok line."""
    results.append(bool(cond))
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else ": " + str(detail)[:400]), flush=True)

def finish(tag):
    """Prints the summary line and exits 1 if a check failed."""
    print("%s: %d passed, %d failed" % (tag, sum(results), len(results) - sum(results)))
    sys.exit(0 if all(results) else 1)

def free_port():
    """A TCP port on 127.0.0.1 nobody listens on now."""
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def get(url, timeout=5):
    """GETs url: (status, body)."""
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()

def query(base, q, t=None):
    """Runs a PromQL instant query (at time t, default now) through Prometheus's HTTP API."""
    args = {"query": q}
    if t is not None: args["time"] = "%.3f" % t
    _, body = get(base + "/api/v1/query?" + urllib.parse.urlencode(args))
    return json.loads(body)["data"]["result"]

def start_prometheus(tmp, addr, procs, deadline):
    """Starts Prometheus scraping addr every second (config and data under tmp, the process added to
    procs); returns its base URL once ready, or exits after a failed check by deadline."""
    pport = free_port()
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n"
                "  - job_name: mish\n    static_configs:\n      - targets: ['%s']\n" % addr)
    prom = subprocess.Popen([PROM, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                             "--web.listen-address=127.0.0.1:%d" % pport, "--log.level=warn"],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "prom.log"), "w"))
    procs.append(prom)
    base = "http://127.0.0.1:%d" % pport
    up = False
    while time.time() < deadline and not up:
        try: up = get(base + "/-/ready", 1)[0] == 200
        except Exception: time.sleep(0.2)
    check("Prometheus starts", up, open(os.path.join(tmp, "prom.log")).read()[-500:])
    if not up: sys.exit(1)
    return base

def stop(procs, tmp):
    """Ends the processes started (last first: SIGTERM, then a kill after 10 s) and removes tmp."""
    for p in reversed(procs):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try: p.wait(10)
        except subprocess.TimeoutExpired: p.kill()
    shutil.rmtree(tmp, ignore_errors=True)
