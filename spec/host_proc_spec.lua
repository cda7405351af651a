-- host_proc_spec.lua: the host source's process side (#32, #30.10) on fixture /proc trees
-- written here into a temporary directory: a process's own I/O (not its reaped children's),
-- reads that return one domain read only that domain's files, nothing is read at start-up,
-- and what measuring costs is readable.
local mi = require("mi")

local put = H.put_file   -- writes a fixture file (spec/helpers.lua)

-- A process's stat line: pid, comm, ppid, utime (jiffies).
local function stat(pid, comm, ppid, utime)
  return string.format("%d (%s) S %d %d %d 0 -1 0 100 0 0 0 %d 0 0 0 20 0 1 0 500 1000 10 0\n",
    pid, comm, ppid, pid, pid, utime)
end

-- A process's io: read calls, write calls, bytes read, bytes written.
local function io_text(t)
  return string.format("rchar: 1\nwchar: 1\nsyscr: %d\nsyscw: %d\nread_bytes: %d\nwrite_bytes: %d\n", t[1], t[2], t[3], t[4])
end

-- Puts process pid (comm, ppid, utime, io figures) into the tree.
local function proc(root, pid, comm, ppid, utime, io4)
  put(root, pid .. "/stat", stat(pid, comm, ppid, utime))
  put(root, pid .. "/status", "Name:\t" .. comm .. "\nUid:\t0\t0\t0\t0\n")
  if io4 then put(root, pid .. "/io", io_text(io4)) end
end

-- A /proc with two CPUs, one disk and the processes of procs ({pid, comm, ppid, utime, io}...);
-- returns its path (a fresh temporary directory).
local function fixture(procs)
  local root = os.tmpname()
  os.remove(root)
  assert(os.execute("mkdir -p '" .. root .. "'"))
  put(root, "stat", "cpu  300 10 80 1500 60 15 15 20 0 0\ncpu0 100 10 50 800 20 5 5 10 0 0\n" ..
    "cpu1 200 0 30 700 40 10 10 10 0 0\nbtime 1700000000\nprocs_running 3\nprocs_blocked 1\n")
  put(root, "meminfo", "MemTotal:        8000000 kB\nMemFree:         2000000 kB\n")
  put(root, "vmstat", "pgfault 123\npgmajfault 40\n")
  put(root, "diskstats", "   8       0 sda 1000 10 64000 500 300 5 24000 900 2 1000 2000\n")
  put(root, "interrupts", "           CPU0       CPU1\n  0:         10          20   IO-APIC   2-edge      timer\n")
  for _, p in ipairs(procs) do proc(root, table.unpack(p)) end
  return root
end

-- A session on the host source reading the fixture at root (age 0: every call re-reads).
local function host(root, opts)
  local o = { host = true, proc = root, age_ms = 0 }
  for k, v in pairs(opts or {}) do o[k] = v end
  local sys = mi.system(o)
  return mi.open({ system = sys }), sys
end

-- The record of pid in a process GET.
local function rec_of(recs, pid)
  for _, r in ipairs(recs) do if r.pid == pid then return r end end
end

local IO_ITEMS = { "pmc_disc_read", "pmc_disc_write", "pmc_disc_read_size", "pmc_disc_write_size" }

-- The four I/O figures of a record, in IO_ITEMS' order.
local function io_of(r)
  return { r.pmc_disc_read, r.pmc_disc_write, r.pmc_disc_read_size, r.pmc_disc_write_size }
end

describe("#30.10 a host process's I/O is its own", function()
  local root
  after_each(function() if root then os.execute("rm -rf '" .. root .. "'") end root = nil end)

  it("a child reaped between two readings is not counted again in its parent", function()
    -- the shell 100 is idle; its child dd 200 reads and writes, exits and is reaped: Linux then
    -- adds dd's whole io to the shell's /proc/100/io
    root = fixture({ { 100, "bash", 1, 10, { 50, 60, 4096, 8192 } }, { 200, "dd", 100, 5, { 1000, 1000, 1 << 20, 1 << 20 } } })
    local s = host(root)
    s:on("process", IO_ITEMS)
    s:get("process")   -- the first reading: dd's figures so far are its baseline
    put(root, "200/io", io_text({ 3000, 3000, 3 << 20, 3 << 20 }))
    local r = s:get("process")
    assert.same({ 2000, 2000, 2 << 20, 2 << 20 }, io_of(rec_of(r, 200)), "dd's own work since the first reading")
    assert.same({ 0, 0, 0, 0 }, io_of(rec_of(r, 100)), "the shell did nothing")
    -- dd exits and is reaped: its directory goes, the shell's io grows by dd's whole io
    os.execute("rm -rf '" .. root .. "/200'")
    put(root, "100/io", io_text({ 50 + 3000, 60 + 3000, 4096 + (3 << 20), 8192 + (3 << 20) }))
    r = s:get("process")
    assert.equal("dead", rec_of(r, 200).state)
    assert.same({ 0, 0, 0, 0 }, io_of(rec_of(r, 100)), "the reaped child's I/O is not the shell's")
    -- the shell's own I/O afterwards still counts
    put(root, "100/io", io_text({ 50 + 3000 + 7, 60 + 3000 + 1, 4096 + (3 << 20), 8192 + (3 << 20) + 512 }))
    r = s:get("process")
    assert.same({ 7, 1, 0, 512 }, io_of(rec_of(r, 100)))
  end)

  it("a child reaped just after its parent's file was read is paid for at the next reading", function()
    root = fixture({ { 100, "bash", 1, 10, { 50, 60, 0, 0 } }, { 200, "dd", 100, 5, { 1000, 1000, 0, 0 } } })
    local s = host(root)
    s:on("process", IO_ITEMS)
    s:get("process")
    -- this reading: the shell's file is read (its own +4 read calls), then dd is gone
    os.execute("rm -rf '" .. root .. "/200'")
    put(root, "100/io", io_text({ 54, 60, 0, 0 }))
    s:get("process")
    -- the next reading: the shell's io now holds dd's 1000 and 1000, plus 6 more of its own
    put(root, "100/io", io_text({ 54 + 1000 + 6, 60 + 1000, 0, 0 }))
    local r = rec_of(s:get("process"), 100)
    assert.same({ 10, 0, 0, 0 }, io_of(r), "over the two readings the shell counts exactly its own 10 read calls")
  end)

  it("top and glance say the host's process I/O is read/write calls, the simulator's I/O", function()
    root = fixture({ { 100, "bash", 1, 10, { 50, 60, 0, 0 } } })
    for _, script in ipairs({ "top", "glance" }) do
      for _, sys in ipairs({ "host --proc '" .. root .. "'", "sim" }) do
        local p = io.popen("./lua/mish --system " .. sys .. " scripts/" .. script .. ".lua --count 1 --interval 0.01 2>&1")
        local out = p:read("a"):upper()
        p:close()
        local want, not_want = "RW CALLS/S", "I/O/S"
        if sys == "sim" then want, not_want = not_want, want end
        assert.is_truthy(out:find(want, 1, true), script .. " on " .. sys .. ": " .. out)
        assert.is_falsy(out:find(not_want, 1, true), script .. " on " .. sys .. ": " .. out)
      end
    end
    assert.equal("RW calls/s", require("mi.cli").io_heading("attached:host"))
  end)

  it("summary's process view of a host recording says read/write calls", function()
    root = fixture({ { 100, "bash", 1, 10, { 50, 60, 0, 0 } } })
    local file = root .. "/../" .. root:match("[^/]+$") .. ".mir"
    finally(function() os.remove(file) end)
    assert.is_true(os.execute("./lua/mish --system host --proc '" .. root .. "' scripts/record.lua -o '" .. file ..
      "' --count 2 --interval 0.01 --quiet >/dev/null 2>&1"))
    local p = io.popen("./lua/mish scripts/summary.lua '" .. file .. "' --view processes 2>&1")
    local out = p:read("a")
    p:close()
    assert.is_truthy(out:find("RW calls/s", 1, true), out)
    assert.is_falsy(out:find("I/O/s", 1, true), out)
  end)
end)

describe("#32 jobs, sessions and accounts from cgroup v2", function()
  local root
  after_each(function() if root then os.execute("rm -rf '" .. root .. "'") end root = nil end)

  it("a service is a job, a session scope a session, a container its own account; selections use them", function()
    root = fixture({ { 100, "nginx", 1, 1 }, { 101, "nginx", 100, 1 }, { 102, "cron", 1, 1 }, { 103, "logrotate", 1, 1 },
      { 200, "bash", 1, 1 }, { 300, "app", 1, 1 }, { 301, "app", 1, 1 }, { 302, "py", 1, 1 }, { 400, "plain", 1, 1 },
      { 401, "dbus", 1, 1 } })
    local cg = {
      [100] = "/system.slice/nginx.service", [101] = "/system.slice/nginx.service", [102] = "/system.slice/cron.service",
      [103] = "/system.slice/logrotate.service",   -- started by logrotate.timer: the service runs it
      [200] = "/user.slice/user-1000.slice/session-3.scope",
      [300] = "/system.slice/docker-0123456789abcdef0123.scope", [301] = "/machine.slice/machine-web.scope",
      [302] = "/kubepods.slice/kubepods-pod1.slice/cri-containerd-fedcba9876543210.scope",
      [401] = "/user.slice/user-1000.slice/user@1000.service/app.slice/dbus.service",
    }
    for pid, path in pairs(cg) do put(root, pid .. "/cgroup", "12:memory:/x\n0::" .. path .. "\n") end
    put(root, "400/cgroup", "0::/\n")
    local s = host(root)
    s:on("process", { "pmt_process_time" })
    local by = {}
    for _, r in ipairs(s:get("process")) do by[r.pid] = r end
    local function js(pid) return by[pid].js_number end
    local function acct(pid) return by[pid].user_name:match("([^.]*)%s*$") end
    assert.is_truthy(js(100):match("^#J%d+$"), js(100))
    assert.equal(js(100), js(101), "one service, one job")
    assert.is_truthy(js(102):match("^#J") and js(102) ~= js(100), "another service, another job")
    assert.is_truthy(js(103):match("^#J") and js(103) ~= js(102))
    assert.is_truthy(js(401):match("^#J") and js(401) ~= js(100), "a user's service is a job too")
    assert.equal("#S3", js(200), "the session scope's number")
    assert.equal("01234567", acct(300))
    assert.equal("WEB", acct(301))
    assert.equal("FEDCBA98", acct(302))
    assert.equal("#J400", js(400), "the root cgroup says nothing: the Linux session rule")
    assert.is_falsy(acct(400) == "WEB")
    s:close()
    -- selection by the account
    s = host(root)
    assert(s:on("process", { "pmt_process_time" }, { include = { { user = "*.WEB" } } }))
    local pids = {}
    for _, r in ipairs(s:get("process")) do pids[#pids + 1] = r.pid end
    assert.same({ 301 }, pids)
    s:close()
  end)
end)

describe("#32 the host reads what a GET returns", function()
  local root
  after_each(function() if root then os.execute("rm -rf '" .. root .. "'") end root = nil end)

  it("start-up reads no process file until a counter is on", function()
    root = fixture({ { 100, "bash", 1, 10, { 1, 1, 0, 0 } } })
    os.execute("rm -f '" .. root .. "/100/stat' && mkdir '" .. root .. "/100/stat'")   -- a read of it is malformed
    local s, sys = host(root)
    local h = sys:info().host
    assert.equal(0, h.malformed, "no process file was read at start-up")
    assert.is_true(h.files_read >= 1, "the system-wide files are")
    s:on("process", { "pmt_process_time" })
    assert.is_true(sys:info().host.malformed >= 1, "an ON of processes reads them")
    s:close()
  end)

  it("a global GET with process counters on reads no process file; the process figures catch up", function()
    root = fixture({ { 100, "bash", 1, 10, { 1, 1, 0, 0 } }, { 101, "make", 1, 20, { 1, 1, 0, 0 } } })
    local s, sys = host(root)
    s:on("global", { "gmt_idle", "gmc_cur_ready_queue" })
    s:on("process", { "pmt_process_time", "pmc_disc_read" })
    s:get("process")
    s:get("global")
    local none = sys:info().host.last_files
    -- work meanwhile: 100 uses 30 jiffies and 9 read calls, 101 dies, 102 is born
    put(root, "100/stat", stat(100, "bash", 1, 40))
    put(root, "100/io", io_text({ 10, 1, 0, 0 }))
    os.execute("rm -rf '" .. root .. "/101'")
    proc(root, 102, "cc", 1, 7, { 3, 0, 0, 0 })
    -- each GET reads the system-wide files, and once a second the housekeeping ones too (meminfo,
    -- diskstats, mish's cgroup: 3 here); a loaded machine can take a second over the edits above,
    -- so a GET reads the fewest files or those 3 more, never a process file
    local counts = { none }
    for _ = 1, 3 do s:get("global"); counts[#counts + 1] = sys:info().host.last_files end
    local least = math.min(table.unpack(counts))
    for i, n in ipairs(counts) do
      assert.is_true(n == least or n == least + 3, "GET " .. i .. " read " .. n .. " files, the fewest " .. least)
    end
    local r = s:get("process")
    assert.equal(30 * 80, rec_of(r, 100).pmt_process_time, "the CPU used meanwhile is all there")
    assert.equal(9, rec_of(r, 100).pmc_disc_read)
    assert.equal("dead", rec_of(r, 101).state, "the death is found at the process read")
    assert.equal(7 * 80, rec_of(r, 102).pmt_process_time, "a process born meanwhile counts its whole life")
    s:close()
  end)

  it("the process table is read at most every process_age_ms", function()
    root = fixture({ { 100, "bash", 1, 10, { 1, 1, 0, 0 } } })
    local s, sys = host(root, { process_age_ms = 3600 * 1000 })
    s:on("process", { "pmt_process_time" })
    s:get("process")
    put(root, "100/stat", stat(100, "bash", 1, 15))
    local r = rec_of(s:get("process"), 100)
    assert.equal(0, r.pmt_process_time, "younger than the process age: not read again")
    assert.equal(1, sys:refresh(), "a forced refresh reads it")
    assert.equal(5 * 80, rec_of(s:get("process"), 100).pmt_process_time)
    s:close()
  end)

  it("schedstat drives time on the run queue (25048) and launches (25049), read only when they are on", function()
    root = fixture({ { 100, "bash", 1, 10, { 1, 1, 0, 0 } } })
    put(root, "100/schedstat", "5000000 2000000 40\n")
    local s, sys = host(root)
    s:on("process", { "pmt_process_time" })
    s:get("process")
    assert.equal(1 + 1, sys:info().host.last_files, "stat of the root and the process's stat: no schedstat")
    s:off("process")
    s:on("process", { "pmt_ready_queue", "pmc_launch" })
    s:get("process")
    assert.equal(1 + 2, sys:info().host.last_files, "now its schedstat too")
    -- 3.5 ms more on the run queue (ns), 7 more launches
    put(root, "100/schedstat", "9000000 5500000 47\n")
    local r = rec_of(s:get("process"), 100)
    assert.equal(7, r.pmc_launch)
    assert.is_true(math.abs(s:ms(r.pmt_ready_queue) - 3.5) < 0.01, "3.5 ms on the run queue: " .. s:ms(r.pmt_ready_queue))
    -- a kernel without schedstats: no file, nothing added, nothing failed
    os.remove(root .. "/100/schedstat")
    r = rec_of(s:get("process"), 100)
    assert.equal(7, r.pmc_launch)
    assert.is_true(sys:info().host.complete)
    s:close()
  end)

  it("where processes wait: wchan of sleeping processes into the blocked-by-reason levels, on global reads only", function()
    root = fixture({})
    local n = 0
    -- Puts a process in state st, flags fl, waiting in wchan w.
    local function waiter(st, w, fl)
      n = n + 1
      local pid = 300 + n
      put(root, pid .. "/stat", string.format("%d (w%d) %s 1 %d %d 0 -1 %d 100 0 0 0 1 0 0 0 20 0 1 0 500 1000 10 0\n",
        pid, n, st, pid, pid, fl or 0))
      put(root, pid .. "/status", "Name:\tw\nUid:\t0\t0\t0\t0\n")
      put(root, pid .. "/wchan", w)
    end
    waiter("S", "do_wait"); waiter("S", "do_wait")
    waiter("S", "n_tty_read")
    waiter("S", "hrtimer_nanosleep")
    waiter("S", "futex_wait_queue"); waiter("S", "futex_do_wait"); waiter("S", "futex_wait_queue_me")
    waiter("S", "anon_pipe_read"); waiter("S", "unix_stream_read_generic"); waiter("S", "inet_csk_accept")
    waiter("S", "do_msgrcv")
    waiter("S", "do_select"); waiter("S", "ep_poll"); waiter("S", "0")   -- several descriptors, or no name: none
    waiter("R", "do_wait")                                              -- running: not waiting
    waiter("S", "futex_wait_queue", 0x00200000)                          -- a kernel thread
    local s, sys = host(root)
    local items = { "gmc_cur_blk_child_wait", "gmc_cur_blk_trm_read", "gmc_cur_blk_timer_wait", "gmc_cur_blk_cntl_block_wait",
      "gmc_cur_blk_port_wait", "gmc_cur_blk_message_wait" }
    s:on("global", items)
    local g = s:get("global")
    assert.same({ 2, 1, 1, 3, 3, 1 }, { g.gmc_cur_blk_child_wait, g.gmc_cur_blk_trm_read, g.gmc_cur_blk_timer_wait,
      g.gmc_cur_blk_cntl_block_wait, g.gmc_cur_blk_port_wait, g.gmc_cur_blk_message_wait })
    -- a level follows the processes: the sleeper wakes up, a reader joins
    put(root, "304/wchan", "0")
    put(root, "304/stat", (io.open(root .. "/304/stat"):read("a"):gsub(" S ", " R ", 1)))
    waiter("S", "pipe_read")
    g = s:get("global")
    assert.equal(0, g.gmc_cur_blk_timer_wait)
    assert.equal(4, g.gmc_cur_blk_port_wait)
    -- a process read does not read wchan
    s:on("process", { "pmt_process_time" })
    s:get("process")
    local h = sys:info().host
    assert.is_true(h.last_files < 2 * n, "a process GET reads the stats, not the wchans: " .. h.last_files)
    s:close()
  end)

  it("the blocked-by-reason levels come from process files: read at most every process_age_ms too (--proc-interval)", function()
    root = fixture({})
    put(root, "301/stat", "301 (w1) S 1 301 301 0 -1 0 100 0 0 0 1 0 0 0 20 0 1 0 500 1000 10 0\n")
    put(root, "301/status", "Name:\tw\nUid:\t0\t0\t0\t0\n")
    put(root, "301/wchan", "do_wait")
    local s, sys = host(root, { process_age_ms = 3600 * 1000 })
    s:on("global", { "gmc_cur_blk_child_wait", "gmc_cur_blk_timer_wait" })
    local g = s:get("global")
    assert.same({ 1, 0 }, { g.gmc_cur_blk_child_wait, g.gmc_cur_blk_timer_wait }, "read when turned on")
    put(root, "301/wchan", "hrtimer_nanosleep")
    g = s:get("global")
    assert.same({ 1, 0 }, { g.gmc_cur_blk_child_wait, g.gmc_cur_blk_timer_wait },
      "younger than the process age: the levels of the last reading, no process file read")
    assert.equal(1, sys:refresh(), "a forced refresh reads them")
    g = s:get("global")
    assert.same({ 0, 1 }, { g.gmc_cur_blk_child_wait, g.gmc_cur_blk_timer_wait })
    s:close()
    -- without a process age every global read reads them
    local s2 = host(root)
    s2:on("global", { "gmc_cur_blk_timer_wait" })
    assert.equal(1, s2:get("global").gmc_cur_blk_timer_wait)
    put(root, "301/wchan", "do_wait")
    assert.equal(0, s2:get("global").gmc_cur_blk_timer_wait)
    s2:close()
  end)

  it("a refresh that reads the table and the levels reads each process's stat once: the levels come from its listing", function()
    root = fixture({})
    -- 5 running processes (no wchan to read) and 2 asleep in wait4, all at nice 0
    for pid = 301, 307 do
      local st = pid <= 305 and "R" or "S"
      put(root, pid .. "/stat", string.format("%d (w%d) %s %d %d %d 0 -1 0 100 0 0 0 1 0 0 0 20 0 1 0 500 1000 10 0%s\n",
        pid, pid, st, 1, pid, pid, string.rep(" 0", 16)))   -- to policy (41): SCHED_OTHER
      put(root, pid .. "/status", "Name:\tw\nUid:\t0\t0\t0\t0\n")
      put(root, pid .. "/wchan", "do_wait")
    end
    -- an age of an hour: a GET returns what the forced refresh read
    local s, sys = host(root, { age_ms = 3600 * 1000 })
    s:on("process", { "pmt_process_time" })
    local s2, sys2 = host(root, { age_ms = 3600 * 1000 })   -- the same, with the levels on too
    s2:on("process", { "pmt_process_time" })
    s2:on("global", { "gmc_cur_blk_child_wait", "gmc_cur_blk_timer_wait", "gmc_cur_cs_process" })
    assert.equal(7, sys:refresh())
    assert.equal(7, sys2:refresh())
    local without, with = sys:info().host.last_files, sys2:info().host.last_files
    assert.equal(without + 2, with, "the levels add the two sleepers' wchan and no second stat of anyone")
    local g = s2:get("global")
    assert.same({ 2, 0, 7 }, { g.gmc_cur_blk_child_wait, g.gmc_cur_blk_timer_wait, g.gmc_cur_cs_process })
    -- the same figures after the table changed: one sleeper wakes, one process goes
    put(root, "306/stat", (io.open(root .. "/306/stat"):read("a"):gsub(" S ", " R ", 1)))
    os.execute("rm -rf '" .. root .. "/301'")
    assert.equal(6, sys2:refresh())
    g = s2:get("global")
    assert.same({ 1, 0, 6 }, { g.gmc_cur_blk_child_wait, g.gmc_cur_blk_timer_wait, g.gmc_cur_cs_process })
    assert.is_true(sys2:info().host.complete)
    s:close(); s2:close()
  end)

  it("an exporter's scrape is one reading of the host: one refresh, each process's stat once, the levels from its listing", function()
    root = fixture({})
    -- 5 running processes and 2 asleep in wait4, as above
    for pid = 301, 307 do
      local st = pid <= 305 and "R" or "S"
      put(root, pid .. "/stat", string.format("%d (w%d) %s %d %d %d 0 -1 0 100 0 0 0 1 0 0 0 20 0 1 0 500 1000 10 0%s\n",
        pid, pid, st, 1, pid, pid, string.rep(" 0", 16)))
      put(root, pid .. "/status", "Name:\tw\nUid:\t0\t0\t0\t0\n")
      put(root, pid .. "/wchan", "do_wait")
    end
    local s, sys = host(root)   -- age 0: each read alone would refresh
    mi.openmetrics(s)           -- the exporter's counters go on, the processes are born
    local before = sys:info().host
    local om = mi.openmetrics(s)
    local after = sys:info().host
    assert.equal(1, after.refreshes - before.refreshes, "one refresh for the global, processor, I/O and process reads")
    local scrape = after.files_read - before.files_read
    assert.equal(7, sys:refresh())
    local full = sys:info().host.last_files   -- a full refresh: every file once, one listing
    -- (mish's cgroup is read at most once a second: one file more or less)
    assert.is_true(math.abs(scrape - full) <= 1, "the scrape read " .. scrape .. " files, a full refresh " .. full)
    assert.equal("2", om:match("\nmish_gmc_cur_blk_child_wait (%d+)\n"), "the levels of the same listing")
    assert.equal("7", om:match("\nmish_gmc_cur_cs_process (%d+)\n"))
    s:close()
  end)

  it("resident pages (25201 class 0) are a level: rss x page size in 2 KB pages, now", function()
    root = fixture({ { 100, "bash", 1, 10, { 1, 1, 0, 0 } } })   -- rss 10 pages
    local page_kb = tonumber(io.popen("getconf PAGESIZE"):read("l")) // 1024
    local s = host(root)
    s:on("process", { "pmc_cur_main_mem_pg_objcl_" })
    assert.equal(10 * page_kb // 2, rec_of(s:get("process"), 100).pmc_cur_main_mem_pg_objcl_[1])
    put(root, "100/stat", (stat(100, "bash", 1, 10):gsub(" 1000 10 0\n$", " 1000 3 0\n")))
    assert.equal(3 * page_kb // 2, rec_of(s:get("process"), 100).pmc_cur_main_mem_pg_objcl_[1], "it went down")
    -- off and on again: the level is whole again, not the difference
    s:off("process")
    s:on("process", { "pmc_cur_main_mem_pg_objcl_" })
    assert.equal(3 * page_kb // 2, rec_of(s:get("process"), 100).pmc_cur_main_mem_pg_objcl_[1])
    s:close()
  end)

  it("queue populations: kernel threads and real-time AS, nice < 0 BS, nice 0 CS, nice > 0 or batch DS, idle ES", function()
    root = fixture({})
    -- Puts process pid with flags, nice and policy in the tree (a whole stat line, 52 fields).
    local function p(pid, flags, nice, policy)
      local f = { pid, "(p" .. pid .. ")", "S", 1, pid, pid, 0, -1, flags, 0, 0, 0, 0, 1, 0, 0, 0, 20 - nice, nice, 1, 0, 500, 1000, 10 }
      for k = 25, 40 do f[k] = 0 end
      f[41] = policy
      for k = 42, 52 do f[k] = 0 end
      put(root, pid .. "/stat", table.concat(f, " ") .. "\n")
      put(root, pid .. "/status", "Name:\tp\nUid:\t0\t0\t0\t0\n")
    end
    p(2, 0x00200000, -20, 0); p(3, 0x00200000, 0, 0)   -- kernel threads
    p(10, 0, 0, 1); p(11, 0, 0, 2)                     -- FIFO, RR
    p(20, 0, -5, 0)
    p(30, 0, 0, 0); p(31, 0, 0, 0); p(32, 0, 0, 0)
    p(40, 0, 10, 0); p(41, 0, 0, 3)                    -- nice 10; SCHED_BATCH
    p(50, 0, 19, 5)                                    -- SCHED_IDLE
    local s = host(root)
    s:on("global", { "gmc_cur_as_process", "gmc_cur_bs_process", "gmc_cur_cs_process", "gmc_cur_ds_process", "gmc_cur_es_process" })
    local g = s:get("global")
    assert.same({ 4, 1, 3, 2, 1 }, { g.gmc_cur_as_process, g.gmc_cur_bs_process, g.gmc_cur_cs_process, g.gmc_cur_ds_process,
      g.gmc_cur_es_process })
    os.execute("rm -rf '" .. root .. "/31'")
    assert.equal(2, s:get("global").gmc_cur_cs_process, "a level follows the processes")
    s:close()
  end)

  it("mish --proc-interval goes with --serve and is seconds", function()
    local function run(args)
      local p = io.popen("./lua/mish " .. args .. " 2>&1; echo \"rc=$?\"")
      local out = p:read("a")
      p:close()
      return out
    end
    local out = run("--proc-interval 3 -e ''")
    assert.is_truthy(out:find("--proc-interval goes with --serve", 1, true) and out:find("rc=2", 1, true), out)
    out = run("--system host --serve 127.0.0.1:9 --proc-interval soon")
    assert.is_truthy(out:find("'--proc-interval soon': the interval is seconds, 0-3600", 1, true) and out:find("rc=2", 1, true), out)
  end)

  it("the monitor's own cost is readable: files read per refresh and CPU time", function()
    root = fixture({ { 100, "bash", 1, 10, { 1, 1, 0, 0 } }, { 101, "make", 1, 20, { 1, 1, 0, 0 } } })
    local s, sys = host(root)
    s:on("process", { "pmt_process_time", "pmc_disc_read" })
    s:get("process")
    local h = sys:info().host
    -- stat of the root, then each process's stat and io
    assert.equal(1 + 2 * 2, h.last_files)
    assert.is_true(h.cpu_s >= h.last_cpu_s and h.last_cpu_s >= 0)
    assert.is_true(h.self_cpu_s > 0 and h.self_cpu_s >= h.cpu_s)
    -- and exported
    local om = mi.openmetrics(sys, { processes = false, io = false })
    local files = tonumber(om:match("\nmish_exporter_host_files_read_total (%d+)"))
    assert.is_true(files ~= nil and files >= h.files_read, om:sub(-600))
    assert.is_truthy(om:match("\nmish_exporter_host_refresh_files (%d+)\n"))
    assert.is_truthy(om:match("\nmish_exporter_host_refresh_cpu_seconds_total [%d.e-]+\n"))
    assert.is_truthy(om:match("# UNIT mish_exporter_cpu_seconds seconds\n"))
    assert.is_truthy(tonumber(om:match("\nmish_exporter_cpu_seconds_total ([%d.e-]+)\n")) > 0)
    s:close()
  end)
end)
