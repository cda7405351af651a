#!/usr/bin/python3
"""limits.py MISH POINT — #27.9-11: `mish --serve` under hostile and odd clients, over real sockets.
  9   slowloris: 200 connections dripping a header byte a second never hold up a scrape, and each is
      closed at the header deadline although its bytes keep coming
  10  pipelining non-readers: 64 connections that pipeline 8 KB of GET /metrics and never read, beside
      200 slowloris ones: a scrape still answers and the server's RSS grows by under 64 MB
  11  HTTP/1.0 keep-alive is answered (keep-alive said, or a close); a start under `ulimit -n 40` and
      66 serves, and a flood of connections at the limit neither spins nor stops a scrape; an
      absolute-form target and blank lines before the request line are accepted
Bounds are functional and generous (a scrape within 10 s, CPU under half the wall time), not timings.
Prints "ok - ..." / "not ok - ..." lines and a summary."""
import os, resource, select, socket, subprocess, sys, threading, time

MISH = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "./lua/mish")
POINT = sys.argv[2] if len(sys.argv) > 2 else "9"
results = []

def check(name, cond, detail=""):
    """Records one check and prints its ok / not ok line."""
    results.append(bool(cond))
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else ": " + str(detail)[:400]), flush=True)

def start(nofile=None):
    """Starts mish --serve on the simulated system (under an open-file limit if given): (process, addr)."""
    def limit():
        if nofile: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    p = subprocess.Popen([MISH, "--system", "sim", "--serve", "127.0.0.1:0", "--min-interval", "0.1"],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, preexec_fn=limit)
    line = p.stderr.readline()
    if "http://" not in line:
        return p, None, line + p.stderr.read() if p.poll() is not None else line
    h, port = line.split("http://")[1].split("/")[0].rsplit(":", 1)
    return p, (h, int(port)), line

def stop(p):
    """Stops a server; its exit status (None if it had to be killed)."""
    if p.poll() is not None: return p.returncode
    p.terminate()
    try: return p.wait(10)
    except subprocess.TimeoutExpired: p.kill(); p.wait(); return None

def read_response(s, head_only=False):
    """Reads one response from s: (status, headers, body), or ("", {}, b"") on EOF/timeout first."""
    data = b""
    while b"\r\n\r\n" not in data:
        k = s.recv(65536)
        if not k: return "", {}, b""
        data += k
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    hd = {k.decode().lower(): v.decode() for k, v in (l.split(b": ", 1) for l in lines[1:] if b": " in l)}
    n = 0 if head_only else int(hd.get("content-length", "0"))
    while len(body) < n:
        k = s.recv(65536)
        if not k: break
        body += k
    return lines[0].split(b" ")[1].decode(), hd, body

def scrape(addr, raw=None, timeout=10):
    """One request on a new connection (a plain GET /metrics by default): its status, "" if none came."""
    try:
        s = socket.create_connection(addr, timeout=timeout)
        s.sendall(raw or b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        st, hd, body = read_response(s)
        s.close()
        return st, hd, body
    except OSError as e:
        return "", {}, repr(e).encode()

def rss_kb(pid):
    """The VmRSS of a process in kB."""
    with open("/proc/%d/status" % pid) as f:
        for l in f:
            if l.startswith("VmRSS:"): return int(l.split()[1])
    return 0

def cpu_s(pid):
    """The CPU time (user + system) a process has used, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

class Slowloris:
    """n connections that send half a request head, then drip one byte of it every second."""
    def __init__(self, addr, n):
        self.socks, self.closed, self.refused, self.run = [], 0, 0, True
        for _ in range(n):
            try:
                s = socket.create_connection(addr, timeout=5)
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            except OSError:   # a server that stopped accepting: the checks say what that cost
                self.refused += 1
                continue
            self.socks.append(s)
        self.t = threading.Thread(target=self.drip, daemon=True)
        self.t.start()
    def drip(self):
        """Sends a byte on each open connection every second; counts those the server closed."""
        while self.run:
            for s in list(self.socks):
                try:
                    r, _, _ = select.select([s], [], [], 0)
                    if r and not s.recv(100): raise OSError("closed")
                    s.send(b"X")
                except OSError:
                    self.socks.remove(s); s.close(); self.closed += 1
            time.sleep(1)
    def close(self):
        self.run = False
        self.t.join(5)
        for s in self.socks: s.close()

def pipeliners(addr, n):
    """n connections that each send 8 KB of pipelined GET /metrics and never read."""
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
    socks = []
    for _ in range(n):
        try: s = socket.create_connection(addr, timeout=5)
        except OSError: continue
        s.setblocking(False)
        try: s.send(req * (8192 // len(req)))
        except OSError: pass
        socks.append(s)
    return socks

def point9():
    p, addr, msg = start()
    check("the server starts", addr, msg)
    if not addr: return
    try:
        sl = Slowloris(addr, 200)
        time.sleep(1.5)
        st = scrape(addr)[0]
        check("#27.9 slowloris: a scrape beside 200 dripping connections gets 200", st == "200", st)
        t0 = time.monotonic()
        while sl.closed + sl.refused < 200 and time.monotonic() - t0 < 40: time.sleep(0.5)
        check("#27.9 slowloris: each dripping connection is closed at the header deadline though its bytes keep coming",
              sl.closed == 200 and not sl.refused, "%d of 200 closed after %.0f s, %d not connected" % (sl.closed, time.monotonic() - t0, sl.refused))
        sl.close()
        check("#27.9 the server lives on", scrape(addr)[0] == "200")
    finally:
        check("#27.9 the server stops cleanly", stop(p) == 0)

def point10():
    p, addr, msg = start()
    check("the server starts", addr, msg)
    if not addr: return
    try:
        # the system itself (its store) is most of the RSS: the bound is on what the attack adds
        scrape(addr)
        base = rss_kb(p.pid)
        pl = pipeliners(addr, 64)
        peak = 0
        for _ in range(15):   # 3 s, stopping early once the bound is broken
            peak = max(peak, rss_kb(p.pid))
            if peak - base > 64 * 1024: break
            time.sleep(0.2)
        sl = Slowloris(addr, 200) if peak - base <= 64 * 1024 else None
        st = scrape(addr)[0] if sl else "not tried"
        peak = max(peak, rss_kb(p.pid))
        check("#27.10 pipelining non-readers: a scrape beside 64 of them and 200 slowloris connections gets 200", st == "200", st)
        check("#27.10 pipelining non-readers: the server's RSS grows by under 64 MB (%d kB before, %d kB at the peak)" % (base, peak),
              peak - base <= 64 * 1024, peak - base)
        for s in pl: s.close()
        if sl: sl.close()
        # the connections beyond the limit are refused or evicted, never all kept
        many = []
        try:
            for _ in range(700):
                many.append(socket.create_connection(addr, timeout=10))
        except OSError:
            pass
        time.sleep(1)
        nfd = len(os.listdir("/proc/%d/fd" % p.pid))
        check("#27.10 at most 512 connections at a time (%d fds with %d connections offered)" % (nfd, len(many)), nfd <= 512 + 16, nfd)
        st = scrape(addr)[0]
        check("#27.10 a scrape beside 700 idle connections gets 200", st == "200", st)
        for s in many: s.close()
    finally:
        check("#27.10 the server stops cleanly", stop(p) == 0)

def point11():
    p, addr, msg = start()
    check("the server starts", addr, msg)
    if not addr: return
    try:
        s = socket.create_connection(addr, timeout=5)
        s.sendall(b"GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        st, hd, _ = read_response(s)
        conn = hd.get("connection", "").lower()
        if conn == "keep-alive":
            s.sendall(b"GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            ok = read_response(s)[0] == "200"
        else:
            try: ok = s.recv(100) == b""   # a close, at once
            except socket.timeout: ok = False
        check("#27.11 HTTP/1.0 with Connection: keep-alive gets keep-alive said and kept, or a close (%r)" % conn, st == "200" and ok, (st, hd))
        s.close()
        s = socket.create_connection(addr, timeout=5)
        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        st, hd, _ = read_response(s)
        try: eof = s.recv(100) == b""
        except socket.timeout: eof = False
        check("#27.11 plain HTTP/1.0 gets its answer and a close", st == "200" and eof, (st, hd))
        s.close()
        port = addr[1]
        for name, raw in [("an absolute-form target", b"GET http://127.0.0.1:%d/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % port),
                          ("an absolute-form target with a query", b"GET HTTP://localhost/metrics?x=1 HTTP/1.1\r\nConnection: close\r\n\r\n"),
                          ("an empty line before the request line", b"\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n"),
                          ("two empty lines before the request line", b"\r\n\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n"),
                          ("a bare LF before the request line", b"\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n")]:
            st, hd, body = scrape(addr, raw, timeout=5)
            check("#27.11 %s is accepted" % name, st == "200" and b"mish_" in body, (st, body[:100]))
        st, _, _ = scrape(addr, b"GET http://host HTTP/1.1\r\nConnection: close\r\n\r\n", timeout=5)
        check("#27.11 an absolute-form target without a path is /", st == "200", st)
    finally:
        check("#27.11 the server stops cleanly", stop(p) == 0)
    for nofile in (40, 66):
        p, addr, msg = start(nofile)
        check("#27.11 mish --serve starts under ulimit -n %d" % nofile, addr, msg.strip())
        if not addr:
            stop(p); continue
        try:
            check("#27.11 a scrape under ulimit -n %d gets 200" % nofile, scrape(addr)[0] == "200")
            flood = []
            try:
                for _ in range(nofile + 30): flood.append(socket.create_connection(addr, timeout=5))
            except OSError:
                pass
            time.sleep(0.5)
            c0, t0 = cpu_s(p.pid), time.monotonic()
            time.sleep(3)
            used = cpu_s(p.pid) - c0
            check("#27.11 %d connections held at ulimit -n %d: the server does not spin (%.2f s of CPU in %.1f s)"
                  % (len(flood), nofile, used, time.monotonic() - t0), used < 1.0, used)
            st = scrape(addr)[0]
            check("#27.11 a scrape beside the flood at ulimit -n %d gets 200" % nofile, st == "200", st)
            for s in flood: s.close()
            check("#27.11 the server is still running", p.poll() is None)
        finally:
            check("#27.11 the server under ulimit -n %d stops cleanly" % nofile, stop(p) == 0)

{"9": point9, "10": point10, "11": point11}[POINT]()
print("limits %s: %d passed, %d failed" % (POINT, sum(results), len(results) - sum(results)))
sys.exit(0 if all(results) else 1)
