#!/usr/bin/python3
"""e2e_udef.py MISH — issue 14/16 leftovers end to end: a program (a mish owning a shared store of the
idle simulated system) installs an ACCUM array and a QBUSY counter and keeps them moving; `mish --attach
--serve` exports that store and a real Prometheus (scrape interval 1 s) scrapes it. Through Prometheus's
HTTP API: the info metric says source "attached" with owner_source "sim"; the array's element series
carries an `element` label and its rate is the owner's; the QBUSY pair's two families (busy and queue, in
seconds) have the rates the level gives (level 3 all the time: busy 1 s/s, queue 3 s/s).
Prints "ok - ..." / "not ok - ..." lines, "skip - ..." when Prometheus is not installed."""
import json, os, subprocess, sys, tempfile, time

MISH = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "./lua/mish")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from promlib import check, finish, get, query, skip_without_prometheus, start_prometheus, stop  # noqa: E402
skip_without_prometheus()

tmp = tempfile.mkdtemp(prefix="mish-prom-udef-")
share = os.path.join(tmp, "store")
procs = []
try:
    # the program: 5 orders of size class 1 every 0.1 s (50/s), its server at level 3 throughout
    owner = subprocess.Popen([MISH, "--workload", "idle", "--share", share, "-e",
        "io.stdout:setvbuf('line') "
        "local u = mi.userdef{counters = {{name = 'orders_by_size', kind = 'accum', elements = 3, help = 'orders by size class'}, "
        "{name = 'srv', kind = 'qbusy', help = 'the order server'}}} "
        "print('ready') "
        "for i = 1, 600 do u.orders_by_size:add_at(2, 5) u.srv:set(3) mi.sleep(0.1) end"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(owner)
    ready = owner.stdout.readline().strip()
    check("the program installed its counters in the shared store", ready == "ready", ready + owner.stderr.read(300) if ready != "ready" else "")
    if ready != "ready": sys.exit(1)
    srv = subprocess.Popen([MISH, "--attach-rw", share, "--serve", "127.0.0.1:0", "--min-interval", "0"],
                           stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    procs.append(srv)
    line = srv.stderr.readline()
    addr = line.split("http://")[1].split("/")[0] if "http://" in line else None
    check("mish --attach --serve reports where it listens", addr, line)
    if not addr: sys.exit(1)
    deadline = time.time() + 30
    base = start_prometheus(tmp, addr, procs, deadline)
    n = 0
    while time.time() < deadline:
        r = query(base, "count_over_time(mish_srv_queue_seconds_total[30s])")
        n = int(r[0]["value"][1]) if r else 0
        if n >= 12: break
        time.sleep(0.5)
    check("Prometheus scraped mish_srv_queue_seconds_total at least 12 times", n >= 12, n)
    info = query(base, "mish_exporter_info")
    check('the info metric says source="attached", owner_source="sim"',
          info and info[0]["metric"].get("source") == "attached" and info[0]["metric"].get("owner_source") == "sim", info)
    t = time.time() - 0.5
    r = query(base, "rate(mish_orders_by_size_total[10s])", t)
    check("the array's series has element=\"1\" only (the element the program counts)",
          [x["metric"].get("element") for x in r] == ["1"], r)
    orate = float(r[0]["value"][1]) if r else None
    # at most the program's 50/s (its wall-clock sleeps may run late on a busy machine, never early;
    # the slack is rate()'s extrapolation to the window's ends)
    check("rate(mish_orders_by_size_total{element=\"1\"}[10s]) (%s) is above 0 and at most the program's 50/s" % orate,
          orate is not None and 0 < orate <= 53, orate)
    b = query(base, "rate(mish_srv_busy_seconds_total[10s])", t)
    q = query(base, "rate(mish_srv_queue_seconds_total[10s])", t)
    brate = float(b[0]["value"][1]) if b else None
    qrate = float(q[0]["value"][1]) if q else None
    # the simulated clock runs in real time: busy 1 s/s; queue / busy = the level, 3
    check("QBUSY: busy %s s/s, queue %s s/s (level 3: 1 and 3)" % (brate, qrate),
          brate is not None and qrate is not None and 0.85 <= brate <= 1.1 and abs(qrate / brate - 3) < 0.05, (brate, qrate))
    s, body = get(base + "/api/v1/metadata?metric=mish_srv_busy_seconds")
    md = json.loads(body)["data"].get("mish_srv_busy_seconds", [])
    check("Prometheus has mish_srv_busy_seconds as a counter in seconds with the help text",
          any(m.get("type") == "counter" and m.get("unit") == "seconds" and m.get("help", "").startswith("the order server") for m in md), body[:300])
finally:
    stop(procs, tmp)
finish("e2e_udef")
