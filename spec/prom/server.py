#!/usr/bin/python3
"""server.py MISH [SYSTEM] — #15 checks of `mish --serve` over real sockets: promtool accepts the text
exposition with no warning, prometheus_client's OpenMetrics parser reads the OpenMetrics form strictly,
content negotiation (never 406), HEAD/404/405, garbage and oversized requests, a stalled client while
others scrape concurrently, pipelining, and a clean stop on SIGINT and SIGTERM.
Prints "ok - ..." / "not ok - ..." / "skip - ..." lines."""
import os, shutil, signal, socket, subprocess, sys, threading, time

MISH = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "./lua/mish")
SYSTEM = sys.argv[2] if len(sys.argv) > 2 else "sim"
results = []
def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else ": " + str(detail)[:400]), flush=True)

def start(*extra):
    p = subprocess.Popen([MISH, "--system", SYSTEM, "--serve", "127.0.0.1:0", "--min-interval", "0.1", *extra],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    line = p.stderr.readline()
    if "http://" not in line:
        return p, None
    h, port = line.split("http://")[1].split("/")[0].rsplit(":", 1)
    return p, (h, int(port))

def request(addr, raw, timeout=10):
    """Sends raw bytes, returns (status, headers dict, body) of the first response (b'' status if none)."""
    s = socket.create_connection(addr, timeout=timeout)
    s.sendall(raw)
    data = b""
    try:
        while True:
            k = s.recv(65536)
            if not k: break
            data += k
            head, sep, rest = data.partition(b"\r\n\r\n")
            if sep:
                hd = dict(l.split(b": ", 1) for l in head.split(b"\r\n")[1:] if b": " in l)
                n = int(hd.get(b"Content-Length", b"0"))
                if len(rest) >= n or raw.startswith(b"HEAD"): break
    except socket.timeout:
        pass
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = lines[0].split(b" ")[1].decode() if lines and lines[0].startswith(b"HTTP/1.1 ") else ""
    hd = {k.decode().lower(): v.decode() for k, v in (l.split(b": ", 1) for l in lines[1:] if b": " in l)}
    return status, hd, body

def get(addr, path="/metrics", accept=None, method="GET"):
    raw = "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n%s\r\n" % (method, path, "Accept: %s\r\n" % accept if accept else "")
    return request(addr, raw.encode())

p, addr = start("--pids", "20")
check("mish --serve listens on loopback and says where", addr and addr[0] == "127.0.0.1", addr)
if not addr:
    sys.exit(1)
try:
    st, hd, text = get(addr)
    check("GET /metrics without Accept: 200, text 0.0.4", st == "200" and hd.get("content-type", "").startswith("text/plain; version=0.0.4"), (st, hd))
    if shutil.which("promtool"):
        r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True)
        check("promtool check metrics accepts the text exposition with no warning",
              r.returncode == 0 and not r.stdout.strip() and not r.stderr.strip(), (r.returncode, r.stdout[:300], r.stderr[:300]))
    else:
        print("skip - promtool is not installed (Debian package prometheus)")
    st, hd, om = get(addr, accept="application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
    check("Prometheus's Accept gets OpenMetrics 1.0.0", st == "200" and hd.get("content-type", "").startswith("application/openmetrics-text; version=1.0.0"), hd)
    check("the OpenMetrics exposition ends with # EOF", om.endswith(b"# EOF\n"), om[-40:])
    try:
        from prometheus_client.openmetrics.parser import text_string_to_metric_families
        fams = list(text_string_to_metric_families(om.decode()))
        names = {f.name: f for f in fams}
        idle = names.get("mish_gmt_idle_seconds")
        check("prometheus_client's OpenMetrics parser reads it strictly (%d families)" % len(fams),
              idle is not None and idle.type == "counter" and idle.unit == "seconds", idle)
        check("per-PID series come only on request, with pid labels",
              any(s.labels.get("pid") for f in fams if f.name.startswith("mish_pid_") for s in f.samples), "no pid series")
    except ImportError:
        print("skip - prometheus_client is not installed (Debian package python3-prometheus-client)")
    for acc in ["application/json", "*/*", "text/html;q=0.9, application/openmetrics-text;q=0", "garbage;;;q=x,,"]:
        st, hd, _ = get(addr, accept=acc)
        check("Accept %r: 200 text 0.0.4, never 406" % acc, st == "200" and hd.get("content-type", "").startswith("text/plain"), (st, hd))
    st, hd, body = get(addr, method="HEAD")
    check("HEAD /metrics: headers only", st == "200" and body == b"" and int(hd.get("content-length", "0")) > 0, (st, hd))
    check("GET /nope: 404", get(addr, "/nope")[0] == "404")
    st, hd, _ = get(addr, method="POST")
    check("POST: 405 with Allow", st == "405" and "GET" in hd.get("allow", ""), (st, hd))
    for name, raw in [("binary garbage", bytes(range(256)) * 4 + b"\r\n\r\n"),
                      ("a request line without version", b"GET /metrics\r\n\r\n"),
                      ("HTTP/9.9", b"GET /metrics HTTP/9.9\r\n\r\n"),
                      ("a header without colon", b"GET /metrics HTTP/1.1\r\nHost x\r\n\r\n"),
                      ("a body", b"GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"),
                      ("a head over 8 KB", b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n")]:
        st = request(addr, raw)[0]
        check("%s: a 4xx answer, the server lives on" % name, st in ("400", "431"), st)
    # a stalled client (half a request, then silence) and 16 concurrent scrapes
    stall = socket.create_connection(addr)
    stall.sendall(b"GET /metrics HTTP/1.1\r\nHost")
    res = []
    def scrape():
        res.append(get(addr)[0])
    ts = [threading.Thread(target=scrape) for _ in range(16)]
    for t in ts: t.start()
    for t in ts: t.join(30)
    check("16 concurrent scrapes beside a stalled client all get 200", res.count("200") == 16, res)
    stall.close()
    # keep-alive and pipelining: two requests in one write, two answers
    s = socket.create_connection(addr, timeout=10)
    s.sendall(b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\nHEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        k = s.recv(65536)
        if not k: break
        data += k
    s.close()
    check("two pipelined requests on one connection get two answers", data.count(b"HTTP/1.1 200 OK") == 2, data[:200])
    # --min-interval: two scrapes at once read the system once (the scrape counter moves by at most 1)
    def scrapes():
        _, _, b = get(addr)
        for l in b.decode().splitlines():
            if l.startswith("mish_exporter_scrapes_total "): return float(l.split()[1])
    p2, addr2 = start("--min-interval", "30")
    a = get(addr2)[2]; time.sleep(0.2); b = get(addr2)[2]
    check("within --min-interval a scrape reuses the last read", a == b)
    p2.send_signal(signal.SIGINT)
    check("SIGINT stops the server cleanly (exit 0)", p2.wait(10) == 0)
finally:
    p.send_signal(signal.SIGTERM)
    try: rc = p.wait(10)
    except subprocess.TimeoutExpired: p.kill(); rc = None
check("SIGTERM stops the server cleanly (exit 0)", rc == 0, rc)
try:
    socket.create_connection(addr, timeout=2).close(); closed = False
except OSError:
    closed = True
check("the port is closed after the stop", closed)
print("server: %d passed, %d failed" % (sum(results), len(results) - sum(results)))
sys.exit(0 if all(results) else 1)
