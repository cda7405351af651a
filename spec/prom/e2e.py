#!/usr/bin/python3
"""e2e.py MISH — #15 end to end: a real Prometheus (scrape interval 1 s) scrapes `mish --serve` on the
simulated system; through Prometheus's HTTP API, rate(mish_gmt_idle_seconds_total[10s]) must match what
mish itself reads of gmt_idle (a second mish attached to the same store) over the same interval.
Prints "ok - ..." / "not ok - ..." lines, "skip - ..." when Prometheus is not installed."""
import json, os, subprocess, sys, tempfile, threading, time

MISH = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "./lua/mish")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from promlib import check, finish, get, query, skip_without_prometheus, start_prometheus, stop  # noqa: E402
skip_without_prometheus()

tmp = tempfile.mkdtemp(prefix="mish-prom-")
share = os.path.join(tmp, "store")
procs = []
try:
    # the exporter: the idle workload keeps gmt_idle's rate steady (2 CPUs, nearly all idle)
    srv = subprocess.Popen([MISH, "--workload", "idle", "--cpus", "2", "--share", share, "--serve", "127.0.0.1:0",
                            "--min-interval", "0"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    procs.append(srv)
    line = srv.stderr.readline()
    addr = line.split("http://")[1].split("/")[0] if "http://" in line else None
    check("mish --serve reports where it listens", addr, line)
    if not addr: sys.exit(1)
    # mish itself: an attached reader logs gmt_idle every 200 ms, timestamped here on arrival
    reader = subprocess.Popen([MISH, "--attach", share, "-e",
        "io.stdout:setvbuf('line') s:on('global', {'gmt_idle'}) "
        "for i = 1, 200 do print(s:get('global').gmt_idle) mi.core.sleep(0.2) end"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(reader)
    log = []
    def read_log():
        for l in reader.stdout:
            try: log.append((time.time(), int(l) / 8000.0))   # MI_Time: 125 us at 3042 = 1000, 3043 = 8000
            except ValueError: pass
    threading.Thread(target=read_log, daemon=True).start()
    deadline = time.time() + 25
    base = start_prometheus(tmp, addr, procs, deadline)
    # wait for 12 samples (about 12 s of scraping)
    n = 0
    while time.time() < deadline:
        r = query(base, "count_over_time(mish_gmt_idle_seconds_total[30s])")
        n = int(r[0]["value"][1]) if r else 0
        if n >= 12: break
        time.sleep(0.5)
    check("Prometheus scraped mish_gmt_idle_seconds_total at least 12 times", n >= 12, n)
    up = query(base, 'up{job="mish"}')
    check("the target is up", up and up[0]["value"][1] == "1", up)
    t = time.time() - 0.5
    r = query(base, "rate(mish_gmt_idle_seconds_total[10s])", t)
    prate = float(r[0]["value"][1]) if r else None
    # mish's own rate over the same interval, from its log (linear interpolation)
    def at(ts):
        for (t0, v0), (t1, v1) in zip(log, log[1:]):
            if t0 <= ts <= t1: return v0 + (v1 - v0) * (ts - t0) / (t1 - t0)
        return None
    a, b = at(t - 10), at(t)
    mrate = (b - a) / 10 if a is not None and b is not None else None
    check("mish reads gmt_idle over the same interval", mrate is not None, "log of %d lines" % len(log))
    # 2 CPUs nearly idle: both about 2 s/s; the tolerance covers the 100 ms publishing of the shared store
    # and scrape timing (each off by at most 0.2 s of idle over a 10 s window: 0.02 s/s), not the model
    check("rate(mish_gmt_idle_seconds_total[10s]) from Prometheus (%s) matches mish's own reading (%s)" %
          (prate, mrate), prate is not None and mrate is not None and abs(prate - mrate) <= 0.15 and 1.5 < prate <= 2.05,
          (prate, mrate))
    r = query(base, "rate(mish_cpu_gmt_idle_seconds_total[10s])", t)
    check("per-CPU idle series are labelled cpu", sorted(x["metric"].get("cpu") for x in r) == ["0", "1"], r)
    s, body = get(base + "/api/v1/metadata?metric=mish_gmt_idle_seconds")
    md = json.loads(body)["data"].get("mish_gmt_idle_seconds", [])
    check("Prometheus negotiated OpenMetrics (family mish_gmt_idle_seconds, counter, unit seconds)",
          any(m.get("type") == "counter" and m.get("unit") == "seconds" for m in md), body[:300])
finally:
    stop(procs, tmp)
finish("e2e")
