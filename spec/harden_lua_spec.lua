-- harden_lua_spec.lua: the seams of the Lua binding (issue 11) — closed systems and their
-- sessions, item lists that lie about their length, values of items of another domain,
-- the GET buffer's size, argument checking, and a bounded random-call driver.
local mi = require("mi")
local core = require("mi.core")

-- Returns a raw session on sys, privileged and authorized with user 666.
local function raw_session(sys)
  local s = core.session(sys)
  s:priv(true)
  core.globinstall(s, 666)
  assert.equal(0, core.accesson(s, 666))
  return s
end

-- Returns the error message of f(...), failing the test if f does not raise.
local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  assert.is_string(e)
  return e
end

describe("#11.2 sessions of a closed system", function()
  it("a raw session used after its system is closed raises 'system is closed' (#11.2)", function()
    local y = core.system({ workload = "idle", seed = 1 })
    local s = raw_session(y)
    assert.equal(0, (core.globon(s, { 21176 }, 1, 0)))
    y:close()
    assert.matches("system is closed", err_of(core.globon, s, { 21176 }, 1, 0))
    assert.matches("system is closed", err_of(core.globget, s, { 21176 }, 1, 0))
    assert.matches("system is closed", err_of(core.globoff, s, 0))
    assert.matches("system is closed", err_of(core.accesson, s, 666))
    assert.matches("system is closed", err_of(core.procget, s, { 20001 }, 1))
    assert.matches("system is closed", err_of(s.priv, s, true))
    assert.matches("system is closed", err_of(core.session, y))
    s:close()
    y:close()
  end)

  it("closing is idempotent in every order: session first, system first, both twice, then gc (#11.2)", function()
    for order = 1, 4 do
      local y = core.system({ workload = "idle", seed = 1 })
      local s1, s2 = raw_session(y), raw_session(y)
      assert.equal(0, (core.globon(s1, { 21176 }, 1, 0)))
      if order == 1 then s1:close(); y:close(); s1:close(); y:close(); s2:close()
      elseif order == 2 then y:close(); s1:close(); s2:close(); y:close(); s2:close()
      elseif order == 3 then y:close(); y:close()
      else s2:close(); s2:close() end
      if order ~= 4 then assert.matches("is closed", err_of(core.globget, s1, { 21176 }, 1, 0)) end
      local closer = getmetatable(s1).__gc
      closer(s1); closer(s2); getmetatable(y).__gc(y)
      s1, s2, y = nil, nil, nil
      collectgarbage(); collectgarbage()
    end
  end)

  it("systems and sessions dropped together are collected in any order without a crash (#11.2)", function()
    for i = 1, 30 do
      local y = core.system({ workload = "idle", seed = i })
      local ss = {}
      for k = 1, 3 do ss[k] = raw_session(y); core.globon(ss[k], { 21176, 21177 }, 1, 0) end
      if i % 3 == 0 then y:close() elseif i % 3 == 1 then ss[2]:close() end
      -- a table holding the sessions before the system, and one holding them after
      local keep = i % 2 == 0 and { ss[1], ss[2], ss[3], y } or { y, ss[3], ss[2], ss[1] }
      keep = nil
    end
    collectgarbage(); collectgarbage()
    assert.is_nil(nil)
  end)

  it("through mi.system and mi.open: the session's calls raise 'system is closed' (#11.2)", function()
    local sys = mi.system({ workload = "idle", seed = 2 })
    local s = mi.open({ system = sys })
    assert.equal(0, s:on("global", { "gmt_idle" }).code)
    sys:close()
    assert.matches("system is closed", err_of(s.get, s, "global"))
    assert.matches("system is closed", err_of(s.on, s, "process", { "pmc_launch" }))
    s:close()
    s:close()
  end)

  it("a system in a <close> variable closes its sessions with it (#11.2)", function()
    local s
    do
      local sys <close> = mi.system({ workload = "idle", seed = 3 })
      s = mi.open({ system = sys })
      assert.equal(0, s:on("global", { "gmt_idle" }).code)
    end
    assert.matches("system is closed", err_of(s.get, s, "global"))
    s:close()
    local r
    do
      local s2 <close> = mi.open({ system = mi.system({ workload = "idle", seed = 3 }) })
      r = s2
      assert.equal(0, s2:on("global", { "gmt_idle" }).code)
    end
    assert.matches("session is closed", err_of(r.get, r, "global"))
  end)
end)

describe("#11.11 wrappers of the default system", function()
  it("closing a wrapper of the default system still frees its sessions' MI-user slots (#11.11)", function()
    collectgarbage(); collectgarbage()
    for i = 1, 20 do
      local y = core.system("default")
      local s = raw_session(y)
      assert.equal(0, (core.globon(s, { 21176 }, 1, 0)), "ON number " .. i)
      y:close()
      s:close()
    end
    for i = 1, 20 do   -- the other order: the session closed first, then its wrapper
      local y = core.system("default")
      local s = raw_session(y)
      assert.equal(0, (core.globon(s, { 21176 }, 1, 0)), "ON number " .. i)
      s:close()
      y:close()
    end
    -- the default system itself lives on
    local s = raw_session(core.system("default"))
    assert.equal(0, (core.globon(s, { 21176 }, 1, 0)))
    s:close()
    assert.is_number(core.system("default"):info().processes)
  end)

  it("a session of a closed wrapper raises 'system is closed'; other wrappers' sessions go on (#11.11)", function()
    local y1, y2 = core.system("default"), core.system("default")
    local s1, s2 = raw_session(y1), raw_session(y2)
    assert.equal(0, (core.globon(s2, { 21176 }, 1, 0)))
    y1:close()
    assert.matches("system is closed", err_of(core.globon, s1, { 21176 }, 1, 0))
    local rc = core.globget(s2, { 21176 }, 1, 0)
    assert.equal(0, rc)
    s2:close()
  end)
end)

describe("#11.3 item lists whose length lies", function()
  local sys, s
  before_each(function()
    sys = core.system({ workload = "idle", seed = 4 })
    s = raw_session(sys)
  end)
  after_each(function() sys:close() end)

  it("a list whose __len says -1 is read by its raw length (#11.3)", function()
    local list = setmetatable({ 21176, 21177 }, { __len = function() return -1 end })
    local rc, st = core.globon(s, list, 1, 0)
    assert.equal(0, rc)
    assert.same({ 0, 0 }, st)
  end)

  it("a list whose __len is huge neither allocates nor reads past the table (#11.3)", function()
    for _, len in ipairs({ 2 ^ 40, math.maxinteger, 5000, 2 ^ 31 + 1 }) do
      local list = setmetatable({ 21176 }, { __len = function() return len end })
      local rc, st = core.globon(s, list, 1, 0)
      assert.same({ 0 }, st)
      assert.is_true(rc == 0 or rc == -20001)
      local _, st2, v = core.globget(s, list, 1, 0)
      assert.same({ 0 }, st2)
      assert.equal(1, #v)
    end
  end)

  it("a list of more than 1023 items is a clear error; 1023 are accepted (#11.3)", function()
    local big = {}
    for i = 1, 1024 do big[i] = 21176 end
    assert.matches("too many items", err_of(core.globon, s, big, 1, 0))
    big[1024] = nil
    local rc, st = core.globon(s, big, 1, 0)
    assert.equal(0, rc)
    assert.equal(1023, #st)
  end)
end)

-- The values a GET of `mixed` gives, checked item by item against a GET of only the valid
-- items: an invalid item reads as 0, every other value is the one the clean list reads.
local function same_as_clean(mixed_recs, clean_recs, mixed, valid)
  assert.equal(#clean_recs, #mixed_recs)
  for r = 1, #clean_recs do
    local m, c, ci = mixed_recs[r], clean_recs[r], 0
    assert.equal(#mixed, #m)
    for i, item in ipairs(mixed) do
      if valid[item] then ci = ci + 1; assert.same(c[ci], m[i], ("record %d item %d (%d)"):format(r, i, item))
      else assert.equal(0, m[i], ("record %d item %d (%d) is invalid here"):format(r, i, item)) end
    end
  end
end

describe("#11.8 items of another domain in a GET", function()
  local sys, s
  before_each(function()
    sys = core.system({ workload = "oltp", cpus = 2, seed = 5 })
    s = raw_session(sys)
  end)
  after_each(function() sys:close() end)

  it("global: another domain's items read as 0 and leave every later value in place (#11.8)", function()
    assert.equal(0, (core.globon(s, { 21177, 21254, 21088, 21176, 21164 }, 1, 0)))
    sys:advance(2000)
    local mixed = { 20004, 21177, 27006, 21254, 20001, 21088, 99999, 25201, 21176, 20003, 23050, 21001 }
    local valid = { [21177] = true, [21254] = true, [21088] = true, [21176] = true, [21001] = true }
    local clean = { 21177, 21254, 21088, 21176, 21001 }
    local rc, st, v = core.globget(s, mixed, 1, 0)
    local _, _, cv = core.globget(s, clean, 1, 0)
    assert.equal(12, rc)   -- the last failing item
    assert.same({ -20006, 0, -20006, 0, -20006, 0, -20006, -20006, 0, -20006, -20006, -20013 }, st)
    same_as_clean({ v }, { cv }, mixed, valid)
    assert.is_true(v[2] > 0)
    assert.equal(33, #v[4])
    assert.equal(256, #v[6])
    assert.equal(0, v[12])   -- enabled by nobody: a zero slot of the item's own size
  end)

  it("global through the friendly layer: gmt_idle next to a process item keeps its value (#11.8)", function()
    local f = mi.open({ system = sys })
    assert.equal(0, f:on("global", { "gmt_idle", 21176 }).code)
    sys:advance(2000)
    local clean = f:get("global", { "gmt_idle", 21176 })
    local d = f:get("global", { 20004, "gmt_idle", 21176, 27006 })
    assert.is_true(clean.gmt_idle > 0)
    assert.equal(clean.gmt_idle, d.gmt_idle)
    assert.equal(clean[21176], d[21176])
    assert.equal(0, d[20004])
    assert.equal(0, d[27006])
    f:close()
  end)

  it("process: records stay in step with items of other domains in the list (#11.8)", function()
    assert.equal(0, (core.procon(s, { 25000, 25201, 25261, 25047 }, 1, nil, 0)))
    sys:advance(2000)
    local mixed = { 20001, 21254, 25000, 20003, 23050, 25201, 27006, 20040, 25261, 20020, 21177, 25047, 20007 }
    local valid = { [20001] = true, [25000] = true, [20003] = true, [25201] = true, [25261] = true, [25047] = true,
      [20007] = true }
    local clean = { 20001, 25000, 20003, 25201, 25261, 25047, 20007 }
    local rc, st, recs = core.procget(s, mixed, 1, nil, 0)
    local _, _, crecs = core.procget(s, clean, 1, nil, 0)
    assert.equal(11, rc)
    assert.same({ 0, -20006, 0, 0, -20006, 0, -20006, -20006, 0, -20006, -20006, 0, 0 }, st)
    assert.is_true(#recs > 5)
    same_as_clean(recs, crecs, mixed, valid)
    local pids = {}
    for _, r in ipairs(recs) do assert.is_false(pids[r[1]] ~= nil); pids[r[1]] = true; assert.is_true(r[1] > 0) end
  end)

  it("process: clock and calendar items decode (start_time 'hh:mm:ss.t', start_date 'yyyy-ddd') (#11.8)", function()
    local f = mi.open({ system = sys })
    assert.is_true(f:on("process", { "pmc_launch" }).ok)
    local recs, st = f:get("process", { "start_time", "start_date" })
    assert.is_true(st.ok, tostring(st))
    assert.is_true(#recs > 0)
    for _, r in ipairs(recs) do
      assert.matches("^%d%d:%d%d:%d%d%.%d$", r.start_time)
      assert.matches("^%d%d%d%d%-%d%d%d$", r.start_date)
    end
    f:close()
  end)

  it("process: one pid with other domains' items (#11.8)", function()
    assert.equal(0, (core.procon(s, { 25000, 25201 }, 1, nil, 0)))
    sys:advance(1000)
    local _, _, all = core.procget(s, { 20001 }, 1, nil, 0)
    local pid = all[#all][1]
    local mixed = { 21254, 20001, 21088, 25201, 23000, 20004 }
    local rc, _, recs = core.procget(s, mixed, 1, pid, 0)
    local _, _, crecs = core.procget(s, { 20001, 25201, 20004 }, 1, pid, 0)
    assert.equal(5, rc)
    same_as_clean(recs, crecs, mixed, { [20001] = true, [25201] = true, [20004] = true })
    assert.equal(pid, recs[1][2])
  end)

  it("io: records stay in step with items of other domains in the list (#11.8)", function()
    assert.equal(0, (core.ioon(s, { 23000, 23050 }, 1, -1, 0)))
    sys:advance(2000)
    local mixed = { 20020, 25201, 23000, 20001, 23050, 21088, 20003, 27006 }
    local valid = { [20020] = true, [23000] = true, [23050] = true }
    local rc, st, recs = core.ioget(s, mixed, 1, -1, 0)
    local _, _, crecs = core.ioget(s, { 20020, 23000, 23050 }, 1, -1, 0)
    assert.equal(8, rc)
    assert.same({ 0, -20006, 0, -20006, 0, -20006, -20006, -20006 }, st)
    assert.is_true(#recs > 3)
    same_as_clean(recs, crecs, mixed, valid)
    for i = 2, #recs do assert.is_true(recs[i][1] > recs[i - 1][1]) end
  end)

  it("processor: records stay in step with items of other domains in the list (#11.8)", function()
    assert.equal(0, (core.globon(s, { 21164, 21177 }, 1, 0)))
    sys:advance(2000)
    local mixed = { 20040, 20003, 27000, 25261, 27006, 21254, 20001 }
    local valid = { [20040] = true, [27000] = true, [27006] = true }
    local rc, st, recs = core.prcsrget(s, mixed, 1, -1, 0)
    local _, _, crecs = core.prcsrget(s, { 20040, 27000, 27006 }, 1, -1, 0)
    assert.equal(7, rc)
    assert.same({ 0, -20006, 0, -20006, 0, -20006, -20006 }, st)
    assert.equal(8, #recs)
    same_as_clean(recs, crecs, mixed, valid)
    for c = 1, 8 do assert.equal(c - 1, recs[c][1]) end
  end)

  it("a GET asking for a finer mapping gives a zero slot of the asked mapping's size (#11.8)", function()
    assert.equal(0, (core.procon(s, { 25201, 25000 }, 1, nil, 0)))
    sys:advance(1000)
    local rc, st, recs = core.procget(s, { 25201, 21254, 25000, 20001 }, 0, nil, 0)
    local _, _, crecs = core.procget(s, { 25000, 20001 }, 1, nil, 0)
    assert.equal(2, rc)
    assert.same({ -20014, -20006, 0, 0 }, st)
    assert.is_true(#recs > 0 and #recs == #crecs, "a record per process, as the clean read")
    for r, rec in ipairs(recs) do
      assert.equal(720, #rec[1])
      for _, x in ipairs(rec[1]) do assert.equal(0, x) end
      assert.equal(0, rec[2])
      assert.same({ crecs[r][1], crecs[r][2] }, { rec[3], rec[4] })
    end
  end)
end)

-- Returns the process's virtual memory size in kB (Linux).
local function vm_kb()
  local f = io.open("/proc/self/status")
  local t = f:read("a")
  f:close()
  return tonumber(t:match("VmSize:%s*(%d+)"))
end

describe("#11.12 the GET buffer", function()
  it("a process GET of big records takes a buffer for the processes there are, not 2,700 (#11.12)", function()
    local sys = core.system({ workload = "idle", seed = 6 })
    local s = raw_session(sys)
    -- one semaphore-class item (1 KB a record) a hundred times: 100 KB a record, 270 MB for 2,700
    local items = { 20001 }
    for i = 2, 101 do items[i] = 25261 end
    assert.equal(0, (core.procon(s, { 25261 }, 1, nil, 0)))
    sys:advance(500)
    local before = vm_kb()
    local rc, _, recs = core.procget(s, items, 1, nil, 0)
    local grew = vm_kb() - before
    assert.equal(0, rc)
    local procs = sys:info().processes
    assert.equal(procs, #recs)
    assert.equal(256, #recs[1][101])
    assert.is_true(grew < 64 * 1024, ("the GET grew the process by %d kB for %d processes"):format(grew, procs))
    sys:close()
  end)

  it("maxrecords gives the literal partial result -20015 with the records that fitted (#11.12)", function()
    local sys = core.system({ workload = "oltp", seed = 7 })
    local s = raw_session(sys)
    assert.equal(0, (core.procon(s, { 25000 }, 1, nil, 0)))
    local rc, _, recs = core.procget(s, { 20001, 25000 }, 1, nil, 0, 3)
    assert.equal(-20015, rc)
    assert.equal(3, #recs)
    local rc2, _, all = core.procget(s, { 20001, 25000 }, 1, nil, 0)
    assert.equal(0, rc2)
    assert.is_true(#all > 3)
    assert.same(recs[1], all[1])
    sys:close()
  end)

  it("Session:get loses no dead-process report when the sized buffer fills up (#11.12)", function()
    -- short jobs: most processes monitored at the second GET have died since the first
    local sys = mi.system({ workload = "batch", seed = 8, jobs = 40, job_ms = 20, job_cpu_ms = 2 })
    local a, b = mi.open({ system = sys }), mi.open({ system = sys })
    assert.is_true(a:on("process", { "pmc_launch" }).ok)
    assert.is_true(b:on("process", { "pmc_launch" }).ok)
    a:get("process")
    b:get("process")
    sys:advance(5000)
    local live = sys:info().processes
    -- b reads with room for every process there can be: the reference
    local rc, _, ref = core.procget(b.s, { 20001, 20002 }, 1, nil, 0, 2700)
    assert.equal(0, rc)
    local dead = 0
    for _, r in ipairs(ref) do if r[2] == 1 then dead = dead + 1 end end
    assert.is_true(#ref > live + 64 and dead > 64, "the scenario must overflow the sized buffer")
    -- the raw call with the binding's own room comes back partial
    local recs, st = a:get("process")
    assert.is_true(st.ok, tostring(st))
    local want, got = {}, {}
    for _, r in ipairs(ref) do want[r[1]] = r[2] == 1 and "dead" or "alive" end
    for _, r in ipairs(recs) do assert.is_nil(got[r.pid], "pid reported twice"); got[r.pid] = r.state end
    assert.same(want, got)
    a:close(); b:close()
  end)

  it("the raw process GET sized by the binding says -20015 when the processes outgrow it (#11.12)", function()
    local sys = core.system({ workload = "batch", seed = 8, jobs = 40, job_ms = 20, job_cpu_ms = 2 })
    local s = raw_session(sys)
    assert.equal(0, (core.procon(s, { 25000 }, 1, nil, 0)))
    core.procget(s, { 20001 }, 1, nil, 0)
    sys:advance(5000)
    local rc, _, part = core.procget(s, { 20001, 20002 }, 1, nil, 0)
    assert.equal(-20015, rc)
    local rc2, _, rest = core.procget(s, { 20001, 20002 }, 1, nil, 0)
    assert.equal(0, rc2)
    -- the dead processes reported in the partial answer are not reported again
    local seen = {}
    for _, r in ipairs(part) do if r[2] == 1 then seen[r[1]] = true end end
    assert.is_truthy(next(seen), "the partial answer reported dead processes")
    assert.is_true(#rest > 0)
    for _, r in ipairs(rest) do assert.is_nil(seen[r[1]]) end
    sys:close()
  end)

  it("a GET inside a finalizer run by the GET's own allocation does not disturb the outer GET (#11.12)", function()
    local sys = core.system({ workload = "oltp", seed = 9 })
    local s = raw_session(sys)
    assert.equal(0, (core.procon(s, { 25000, 25201 }, 1, nil, 0)))
    sys:advance(1000)
    local _, _, want = core.procget(s, { 20001, 25000, 25201 }, 1, nil, 0)
    local inner = 0
    local function arm()
      setmetatable({}, { __gc = function()
        inner = inner + 1
        core.procget(s, { 20001, 25201, 25201, 25201 }, 1, nil, 0)
        core.globget(s, { 21176 }, 1, 0)
      end })
    end
    local saved = collectgarbage("setpause", 10)
    for i = 1, 20 do
      arm()
      local _, _, got = core.procget(s, { 20001, 25000, 25201 }, 1, nil, 0)
      assert.same(want, got)
    end
    collectgarbage("setpause", saved)
    collectgarbage()
    assert.is_true(inner > 0)
    sys:close()
  end)
end)

describe("#11 argument checks", function()
  local sys, s
  before_each(function()
    sys = core.system({ workload = "idle", seed = 10 })
    s = raw_session(sys)
  end)
  after_each(function() sys:close() end)

  it("wrong argument types raise 'bad argument #N to f (... expected, got ...)' (#11)", function()
    assert.matches("bad argument #1 to '[^']+' %(mi.session expected, got nil%)", err_of(core.globon, nil, { 21176 }))
    assert.matches("bad argument #1 to '[^']+' %(mi.session expected, got mi.system%)", err_of(core.globon, sys, { 21176 }))
    assert.matches("bad argument #2 to '[^']+' %(table expected, got string%)", err_of(core.globon, s, "21176"))
    assert.matches("bad argument #1 to '[^']+' %(mi.system expected, got mi.session%)", err_of(core.session, s))
    assert.matches("bad argument #3 to '[^']+' %(number expected, got string%)", err_of(core.globon, s, { 21176 }, "x"))
    assert.matches("bad argument #1 to '[^']+' %(mi.system expected, got table%)", err_of(getmetatable(sys).__gc, {}))
    assert.matches("bad argument #1 to '[^']+' %(mi.session expected, got FILE%*%)", err_of(getmetatable(s).__gc, io.stdout))
    assert.matches("bad argument #2 to '[^']+' %(field 'ticks': number expected, got string%)", err_of(core.time, s, { ticks = "x" }))
    assert.matches("field 'ticks': an integer expected", err_of(core.time, s, { ticks = 1.5 }))
    assert.matches("item 1 is not a 32%-bit integer", err_of(core.globon, s, { "21176" }))
    assert.matches("item 2 is not a 32%-bit integer", err_of(core.globon, s, { 21176, 1.5 }))
    assert.matches("bad argument #1 to '[^']+' %(field 'proc': string expected, got number%)", err_of(core.system, { host = true, proc = 5 }))
    assert.matches("field 'name': string expected, got table", err_of(core.system, { name = {} }))
  end)

  it("numbers beyond 32 bits are errors or invalid items, never truncated to valid ones (#11)", function()
    local big = 2 ^ 40 + 21176   -- truncated to 32 bits this would be 21176
    assert.matches("not a 32%-bit integer", err_of(core.globon, s, { big }))
    assert.matches("not a 32%-bit integer", err_of(core.globon, s, { math.tointeger(2 ^ 32) + 21176 }))
    assert.matches("32%-bit", err_of(core.ioon, s, { 23000 }, 1, math.tointeger(2 ^ 32) + 1, 0))
    assert.matches("32%-bit", err_of(core.globon, s, { 21176 }, math.tointeger(2 ^ 32) + 1, 0))
    assert.matches("32%-bit", err_of(core.accesson, s, math.tointeger(2 ^ 32) + 666))
    assert.is_nil(core.host_figure(math.tointeger(2 ^ 32) + 21177))
    assert.is_string(core.host_figure(21177))
    assert.is_nil(core.fold(math.tointeger(2 ^ 32) + 1, 2, 0))
    assert.matches("32%-bit", err_of(core.system, { host = true, age_ms = math.tointeger(2 ^ 32) + 5 }))
  end)
end)

describe("#11 random calls", function()
  it("a few thousand random calls, closed objects among them, raise only string errors (#11)", function()
    math.randomseed(20110)
    local t0 = os.clock()
    local systems, sessions = {}, {}
    local function new_system()
      local y = math.random() < 0.2 and core.system("default") or core.system({ workload = "idle", seed = math.random(100) })
      systems[#systems + 1] = y
      return y
    end
    local function new_session()
      local y = systems[math.random(#systems)]
      local ok, s = pcall(core.session, y)
      if ok then s:priv(math.random() < 0.9); core.globinstall(s, 666); core.accesson(s, 666); sessions[#sessions + 1] = s end
    end
    for _ = 1, 3 do new_system() end
    for _ = 1, 6 do new_session() end
    local items = {}
    for _, it in ipairs(core.items()) do items[#items + 1] = it.item end
    local function item()
      local r = math.random()
      if r < 0.7 then return items[math.random(#items)] end
      if r < 0.8 then return math.random(-5, 30000) end
      if r < 0.9 then return ({ 0, -1, 2 ^ 31, -2 ^ 31 - 1, 2 ^ 40, math.mininteger, 1.5, 0 / 0 })[math.random(8)] end
      return ({ "x", true, {}, nil })[math.random(4)]
    end
    local function list()
      local t = {}
      for i = 1, math.random(0, 12) do t[i] = item() end
      if math.random() < 0.05 then setmetatable(t, { __len = function() return math.random(-3, 3000) end }) end
      return t
    end
    local scalars = { 0, -1, 1, 2, 3, 7, 666, 2 ^ 31, -2 ^ 31, 2 ^ 40, math.maxinteger, math.mininteger, 1.5, 0 / 0,
      1 / 0, "x", "", "default", true, false, function() end, io.stdout, coroutine.create(function() end) }
    local function arg()
      local r = math.random()
      if r < 0.25 then return list() end
      if r < 0.35 then return sessions[math.random(#sessions)] end
      if r < 0.4 then return systems[math.random(#systems)] end
      if r < 0.45 then return nil end
      return scalars[math.random(#scalars)]
    end
    local fns = {}
    local skip = { system = true, sleep = true }
    for k, f in pairs(core) do if type(f) == "function" and not skip[k] then fns[#fns + 1] = { k, f } end end
    table.sort(fns, function(a, b) return a[1] < b[1] end)
    local sys_methods, ses_methods = {}, {}
    for k, f in pairs(getmetatable(systems[1]).__index) do if k ~= "advance" then sys_methods[#sys_methods + 1] = { k, f } end end
    for k, f in pairs(getmetatable(sessions[1]).__index) do ses_methods[#ses_methods + 1] = { k, f } end
    table.sort(sys_methods, function(a, b) return a[1] < b[1] end)
    table.sort(ses_methods, function(a, b) return a[1] < b[1] end)
    local calls, errors = 0, 0
    for i = 1, 4000 do
      local f, args, n
      local r = math.random()
      if r < 0.8 then
        f = fns[math.random(#fns)][2]
        n = math.random(0, 6)
        args = {}
        if n > 0 and math.random() < 0.85 then args[1] = sessions[math.random(#sessions)] else args[1] = arg() end
        for k = 2, n do args[k] = math.random() < 0.5 and (k == 2 and list() or item()) or arg() end
      elseif r < 0.9 then
        f = sys_methods[math.random(#sys_methods)][2]
        n = 2; args = { math.random() < 0.8 and systems[math.random(#systems)] or arg(), arg() }
      else
        f = ses_methods[math.random(#ses_methods)][2]
        n = 2; args = { math.random() < 0.8 and sessions[math.random(#sessions)] or arg(), arg() }
      end
      local ok, e = pcall(f, table.unpack(args, 1, n))
      calls = calls + 1
      if not ok then
        errors = errors + 1
        assert.is_string(e, "an error that is not a string")
      end
      if i % 50 == 0 then
        local y = systems[math.random(#systems)]
        if math.random() < 0.5 then pcall(y.advance, y, math.random(0, 200)) end
      end
      if i % 97 == 0 then new_system() end
      if i % 31 == 0 then new_session() end
      if i % 211 == 0 then collectgarbage() end
      if #systems > 12 then table.remove(systems, 1) end
      if #sessions > 24 then table.remove(sessions, 1) end
    end
    for _, s in ipairs(sessions) do s:close() end
    for _, y in ipairs(systems) do y:close() end
    collectgarbage()
    assert.is_true(errors > 0 and errors < calls)
    assert.is_true(os.clock() - t0 < 30)
  end)
end)
