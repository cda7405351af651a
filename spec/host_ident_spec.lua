-- host_ident_spec.lua: the MPE identity the host source gives Linux processes (#14.4; rules in
-- core/SOURCES.md, "The host source"): selections by program, user, job/session and type on a
-- fixture tree (base/proc beside base/etc), and on this machine.
local mi = require("mi")

-- Writes text to base/rel (creating its directory).
local function put(base, rel, text)
  local dir = (base .. "/" .. rel):match("^(.*)/[^/]+$")
  os.execute("mkdir -p '" .. dir .. "'")
  local f = assert(io.open(base .. "/" .. rel, "w"))
  f:write(text)
  f:close()
end

-- The fixture's processes: pid = {comm, ppid, sid, tty, uid, gid, exe}.
local PROCS = {
  [1] = { "init", 0, 1, 0, 0, 0, "/sbin/init" },
  [10] = { "sshd", 1, 10, 0, 0, 0, "/usr/sbin/sshd" },
  [20] = { "bash", 10, 20, 34816, 1000, 100, "/usr/bin/bash" },
  [21] = { "bash", 20, 20, 34816, 1000, 100, "/usr/bin/bash" },
  [22] = { "vi", 21, 20, 34816, 1000, 100, "/usr/bin/vi" },
  [23] = { "sh", 22, 20, 34816, 1000, 100, "/usr/bin/sh" },
  [24] = { "cat", 23, 20, 34816, 1000, 100, "/usr/bin/cat" },
  [30] = { "batch", 1, 30, 0, 1001, 100, "/opt/app/bin/batch" },
}

-- A proc tree and its etc (passwd, group, shells); returns the proc root and the base.
local function fixture()
  local base = os.tmpname()
  os.remove(base)
  local root = base .. "/proc"
  put(root, "stat", "cpu  1 1 1 1 1 1 1 1 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\nbtime 1700000000\nprocs_running 1\nprocs_blocked 0\n")
  put(root, "meminfo", "MemTotal: 8000 kB\nMemFree: 2000 kB\n")
  put(root, "vmstat", "pgmajfault 1\n")
  put(root, "diskstats", "   8       0 sda 1 0 1 1 1 0 1 1 0 1 1\n")
  put(root, "interrupts", "           CPU0\n  0:         10   IO-APIC   2-edge      timer\n")
  put(base, "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1000:100::/home/alice:/bin/bash\nbatchuser:x:1001:100::/:/bin/sh\n")
  put(base, "etc/group", "root:x:0:\nstaff:x:100:\n")
  put(base, "etc/shells", "/bin/sh\n/usr/bin/sh\n/usr/bin/bash\n")
  for pid, p in pairs(PROCS) do
    put(root, pid .. "/stat", string.format("%d (%s) S %d %d %d %d -1 4194560 1 0 0 0 1 1 0 0 20 0 1 0 50 1000 10 0\n",
      pid, p[1], p[2], p[3], p[3], p[4]))
    put(root, pid .. "/status", string.format("Name:\t%s\nUid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\n", p[1], p[5], p[5], p[5], p[5],
      p[6], p[6], p[6], p[6]))
    os.execute(string.format("ln -s '%s' '%s/%d/exe'", p[7], root, pid))
  end
  return root, base
end

-- pid -> record of the live processes among recs.
local function by_pid(recs)
  local t = {}
  for _, r in ipairs(recs) do if r.state == "alive" then t[r.pid] = r end end
  return t
end

-- The sorted pids of a pid -> record table.
local function pids(t)
  local l = {}
  for pid in pairs(t) do l[#l + 1] = pid end
  table.sort(l)
  return l
end

describe("#14.4 the host's MPE identity on a fixture /proc", function()
  it("names programs, users, jobs/sessions and types by the documented rules", function()
    local root, base = fixture()
    local s = mi.open({ system = mi.system({ host = true, proc = root, age_ms = 0 }) })
    assert(s:on("process", { "pmt_process_time" }))
    local t = by_pid(s:get("process", { "pid", "program_name", "user_name", "js_number", "process_type" }))
    local want = {
      [1] = { "INIT.SBIN", "ROOT.ROOT.ROOT", "", 0 },
      [10] = { "SSHD.SBIN.USR", "ROOT.ROOT.ROOT", "#J10", 1 },
      [20] = { "BASH.BIN.USR", "ALICE.STAFF.STAFF", "#S20", 1 },
      [21] = { "BASH.BIN.USR", "ALICE.STAFF.STAFF", "#S20", 2 },
      [22] = { "VI.BIN.USR", "ALICE.STAFF.STAFF", "#S20", 3 },
      [23] = { "SH.BIN.USR", "ALICE.STAFF.STAFF", "#S20", 2 },
      [24] = { "CAT.BIN.USR", "ALICE.STAFF.STAFF", "#S20", 3 },
      [30] = { "BATCH.BIN.APP", "BATCHUSE.STAFF.STAFF", "#J30", 1 },
    }
    for pid, w in pairs(want) do
      local r = t[pid]
      assert.is_truthy(r, "pid " .. pid)
      assert.same(w, { r.program_name, r.user_name, r.js_number, r.process_type }, "pid " .. pid)
    end
    s:close()
    os.execute("rm -rf '" .. base .. "'")
  end)

  it("a process that runs another executable (exec) takes its program and type; one that renames itself keeps its program", function()
    local root, base = fixture()
    local sys = mi.system({ host = true, proc = root, age_ms = 0 })
    local s = mi.open({ system = sys })
    assert(s:on("process", { "pmt_process_time" }))
    local cols = { "pid", "program_name", "process_type" }
    local t = by_pid(s:get("process", cols))
    assert.same({ "SH.BIN.USR", 2 }, { t[23].program_name, t[23].process_type })
    -- 23, the shell, execs python3 (its comm and exe change; pid, parent and session stay)
    put(root, "23/stat", "23 (python3) S 22 20 20 34816 -1 4194560 1 0 0 0 1 1 0 0 20 0 1 0 50 1000 10 0\n")
    os.execute("ln -sfn /usr/bin/python3 '" .. root .. "/23/exe'")
    -- 30 renames itself (prctl): its comm changes, its exe does not
    put(root, "30/stat", "30 (batch-worker) S 1 30 30 0 -1 4194560 1 0 0 0 1 1 0 0 20 0 1 0 50 1000 10 0\n")
    t = by_pid(s:get("process", cols))
    assert.same({ "PYTHON3.BIN.USR", 4 }, { t[23].program_name, t[23].process_type })
    assert.same({ "BATCH.BIN.APP", 1 }, { t[30].program_name, t[30].process_type })
    -- a selection by program sees the new one (the record, not a copy taken at birth)
    assert.same({ 23 }, pids(by_pid(s:get("process", nil, { include = { { program = "PYTHON3.*" } } }))))
    s:close(); sys:close()
    os.execute("rm -rf '" .. base .. "'")
  end)

  it("include and exclude select by that identity, in s:on and s:get (#14.1 on the host)", function()
    local root, base = fixture()
    local sys = mi.system({ host = true, proc = root, age_ms = 0 })
    local s, all = mi.open({ system = sys }), mi.open({ system = sys })
    assert(all:on("process", { "pmt_process_time" }))
    assert.equal(0, s:on("process", { "pmt_process_time" },
      { include = { { program = "*.BIN.USR" }, { user = "BATCHUSE.*" } }, exclude = { { type = "ci" } } }).code)
    assert.same({ 20, 22, 24, 30 }, pids(by_pid(s:get("process"))))
    assert.same({ 10, 20 }, pids(by_pid(all:get("process", nil, { include = { { type = "jsmain" } }, exclude = { { job = 30 } } }))))
    assert.same({ 10, 30 }, pids(by_pid(all:get("process", nil, { include = { { js = "job" } } }))))
    assert.same({ 20, 21, 22, 23, 24 }, pids(by_pid(all:get("process", nil, { include = { { session = 20 } } }))))
    assert.same({ 1 }, pids(by_pid(all:get("process", nil, { include = { { type = "system" } } }))))
    -- a birth after the ON: the shell's new child is selected (a user process: its parent is a CI)
    put(root, "25/stat", "25 (ls) S 21 20 20 34816 -1 4194560 1 0 0 0 1 1 0 0 20 0 1 0 50 1000 10 0\n")
    put(root, "25/status", "Name:\tls\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\n")
    os.execute("ln -s /usr/bin/ls '" .. root .. "/25/exe'")
    local mine = by_pid(s:get("process", { "pid", "process_type" }))
    assert.same({ 20, 22, 24, 25, 30 }, pids(mine))
    assert.equal(3, mine[25].process_type)
    s:close(); all:close(); sys:close()
    os.execute("rm -rf '" .. base .. "'")
  end)
end)

-- Fields 4, 6, 7 and 9 (ppid, session, tty_nr, flags) of /proc/pid/stat, nil if unreadable.
local function stat_of(pid)
  local f = io.open("/proc/" .. pid .. "/stat")
  local line = f and f:read("l")
  if f then f:close() end
  if not line then return nil end
  local rest = line:match("^.*%) (.*)$")
  local fld = {}
  for x in rest:gmatch("%S+") do fld[#fld + 1] = x end   -- fld[1] is field 3 (state)
  return { ppid = tonumber(fld[2]), sid = tonumber(fld[4]), tty = tonumber(fld[5]), flags = tonumber(fld[7]) }
end

-- 1 if pid is a kernel thread (PF_KTHREAD in its stat flags), nil if it is gone.
local function kthread(pid)
  local st = stat_of(pid)
  if not st then return nil end
  return st.flags & 0x00200000 ~= 0
end

-- The pids /proc lists now.
local function listed()
  local t = {}
  local f = io.popen("ls /proc")
  for name in f:lines() do if name:match("^[1-9]%d*$") then t[#t + 1] = tonumber(name) end end
  f:close()
  return t
end

describe("#14.4 the host's MPE identity on this machine", function()
  it("type system selects pid 1 and the kernel threads only", function()
    if not stat_of(1) then pending("/proc/1/stat is not readable here (hidepid?)") return end
    local s = mi.open({ system = mi.system({ host = true, age_ms = 0 }) })
    assert(s:on("process", { "pmt_process_time" }))
    local before = listed()
    local sys_recs = by_pid(s:get("process", nil, { include = { { type = "system" } } }))
    assert.is_truthy(sys_recs[1], "pid 1 is a system process")
    for pid in pairs(sys_recs) do
      local k = kthread(pid)
      if k ~= nil then assert.is_true(pid == 1 or k, "pid " .. pid .. " is pid 1 or a kernel thread") end
    end
    local kthreads = 0
    for _, pid in ipairs(before) do
      if kthread(pid) then   -- still there after the GET: it was there throughout
        kthreads = kthreads + 1
        assert.is_truthy(sys_recs[pid], "kernel thread " .. pid .. " is selected")
      end
    end
    print(string.format("\n  this machine: pid 1 and %d kernel threads are system processes", kthreads))
    s:close()
  end)

  it("gives this process its executable, its user and its session", function()
    local me = tonumber(io.open("/proc/self/stat"):read("l"):match("^%d+"))
    local st = stat_of(me)
    local s = mi.open({ system = mi.system({ host = true, age_ms = 0 }) })
    assert(s:on("process", { "pmt_process_time" }))
    local r = by_pid(s:get("process", { "pid", "program_name", "user_name", "js_number", "process_type" }))[me]
    assert.is_truthy(r, "this process is found")
    local function mpe(x) return (x:sub(1, 8):upper():gsub("[%. ]", "_")) end
    local exe = io.popen("readlink /proc/" .. me .. "/exe"):read("l")
    local acct, grp, file = exe:match("/([^/]*)/([^/]*)/([^/]*)$")
    if file then assert.equal(mpe(file) .. "." .. mpe(grp) .. "." .. mpe(acct), r.program_name) end
    local user, group = io.popen("id -un"):read("l"), io.popen("id -gn"):read("l")
    if user and group then assert.equal(mpe(user) .. "." .. mpe(group) .. "." .. mpe(group), r.user_name) end
    if st.sid > 0 then
      assert.equal((st.tty ~= 0 and "#S" or "#J") .. ((st.sid - 1) % 16383 + 1), r.js_number)
    end
    assert.equal(st.sid == me and 1 or nil, r.process_type == 1 and 1 or nil, "JSMAIN exactly when it leads its session")
    s:close()
  end)

  it("a shell that execs sleep is SLEEP at the next GET (same pid, counters kept)", function()
    local fifo = os.tmpname()
    os.remove(fifo)
    assert.is_true(os.execute("mkfifo '" .. fifo .. "'"))
    local h = io.popen("exec sh -c 'echo $$; read x < \"" .. fifo .. "\"; exec sleep 60'")
    local pid = tonumber(h:read("l"))
    local sys = mi.system({ host = true, age_ms = 0 })
    local s = mi.open({ system = sys })
    assert(s:on("process", { "pmt_process_time" }))
    local cols = { "pid", "program_name" }
    local before = by_pid(s:get("process", cols))[pid]
    assert.is_truthy(before, "the shell is found")
    assert.is_nil(before.program_name:match("^SLEEP%."), before.program_name)
    local w = assert(io.open(fifo, "w"))   -- lets the shell go on to its exec
    w:write("go\n")
    w:close()
    local comm
    for _ = 1, 200 do   -- until the kernel shows the exec (10 s at most)
      local f = io.open("/proc/" .. pid .. "/comm")
      comm = f and f:read("l")
      if f then f:close() end
      if comm == "sleep" then break end
      mi.sleep(0.05)
    end
    assert.equal("sleep", comm)
    local after = by_pid(s:get("process", cols))[pid]
    assert.is_truthy(after, "the same pid is still there")
    assert.matches("^SLEEP%.", after.program_name)
    os.execute("kill " .. pid)
    h:close()
    os.remove(fifo)
    s:close(); sys:close()
  end)
end)
