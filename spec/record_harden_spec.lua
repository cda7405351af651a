-- record_harden_spec.lua: recordings as untrusted input and the recorder's lifetime (#27.3, 4,
-- 12): sample times that go back, a recorder whose system is closed or collected, windows that
-- are no times, an empty file, a symbolic link.
local mi = require("mi")
local MISH = "./lua/mish"

local run = H.run_split   -- spec/helpers.lua: stdout, stderr, exit status

-- Records n samples a second apart of a fresh simulated system into path (appending), the
-- system's clock first moved on by skip seconds.
local function record(path, n, skip)
  local sys = mi.system({ workload = "oltp", cpus = 2, seed = 42 })
  if skip and skip > 0 then sys:advance(skip * 1000) end
  local r = mi.record({ system = sys, path = path, fsync = "none", items = { "gmt_idle", "gmt_paused", "process:pmt_process_time" } })
  for _ = 2, n do sys:advance(1000) assert(r:sample()) end
  r:close()
  sys:close()
end

describe("#27.12 recordings: times and files", function()
  local file
  before_each(function() file = H.tmp_path("rec27.mir") end)
  after_each(function() os.remove(file) os.remove(file .. ".lnk") end)

  it("#27.12 --from/--to and mi.replay windows refuse what is not a decimal number with a unit, or out of range", function()
    record(file, 3)
    local bad = { "-nan", "+nan", "+inf", "+1e9d", "+0x10s", "+1e3", "+99999999999d", "@0x10", "2026-11-22T06:00:1e1Z" }
    for _, t in ipairs(bad) do
      local _, e, c = run(MISH .. " --replay " .. file .. " --from '" .. t .. "' -e 'print(1)'")
      assert.equal(2, c, t)
      assert.matches("bad time '" .. t:gsub("%p", "%%%0") .. "'", e)
      assert.matches("decimal number and s, m, h or d", e)
      _, e, c = run(MISH .. " --replay " .. file .. " --to '" .. t .. "' -e 'print(1)'")
      assert.equal(2, c, t)
      local ok, err = pcall(mi.replay, file, { from = t })
      assert.is_false(ok, t)
      assert.matches("bad time", err)
      ok, err = pcall(mi.replay, file, { to = t })
      assert.is_false(ok, t)
      for _, script in ipairs({ "summary", "export" }) do
        _, e, c = run(MISH .. " scripts/" .. script .. ".lua " .. file .. " --from '" .. t .. "'")
        assert.equal(2, c, script .. " " .. t)
        assert.matches("bad time", e)
      end
    end
    -- the forms that are times still are
    local o, e, c = run(MISH .. " --replay " .. file .. " --from +1s --to +0.5m -e 'print(2)'")
    assert.equal(0, c, e)
    assert.equal("2\n", o)
    assert.is_userdata(mi.replay(file, { from = "+1.5s", to = "+10" }))
  end)

  it("#27.12 an empty file is a torn header (the recorder stopped before writing it), not 'not a recording'", function()
    io.open(file, "w"):close()
    local _, e, c = run(MISH .. " scripts/verify.lua " .. file)
    assert.equal(3, c)
    assert.matches("header record is torn", e)
    assert.matches("stopped before writing it", e)
    assert.not_matches("not a mish recording", e)
    _, e, c = run(MISH .. " --replay " .. file .. " -e 'print(1)'")
    assert.equal(2, c)
    assert.matches("stopped before writing it", e)
  end)

  it("#27.12 a recorder never writes through a symbolic link, nor onto a file that is not a recording", function()
    local f = io.open(file, "w") f:write("precious text\n") f:close()
    local ok, err = pcall(mi.record, { system = mi.system({ workload = "oltp" }), path = file, fsync = "none" })
    assert.is_false(ok)
    assert.matches("not a mish recording", err)
    f = io.open(file) assert.equal("precious text\n", f:read("a")) f:close()
    assert.is_true(os.execute("ln -s " .. file .. " " .. file .. ".lnk"))
    local _, e, c = run(MISH .. " scripts/record.lua -o " .. file .. ".lnk --count 1")
    assert.equal(1, c)
    assert.matches("symbolic link", e)
    f = io.open(file) assert.equal("precious text\n", f:read("a")) f:close()
  end)
end)

-- Runs Lua code in a child lua5.4 (a crash must not take busted with it); returns its output
-- (stderr too) and exit status.
local function child(code)
  local f = os.tmpname()
  local h = io.open(f, "w")
  h:write('package.path = "lua/?.lua;lua/?/init.lua;" .. package.path\n',
          'package.cpath = "lua/?.so;" .. package.cpath\n', 'local mi = require("mi")\nlocal core = mi.core\n', code)
  h:close()
  local o, e, c = run("lua5.4 " .. f)
  os.remove(f)
  return o .. e, c
end

describe("#27.4 a recorder keeps its system alive", function()
  local file
  before_each(function() file = H.tmp_path("rec27-4.mir") end)
  after_each(function() for _, sfx in ipairs({ "", "1", "2", "3" }) do os.remove(file .. sfx) end end)

  it("#27.4 after sys:close() r:sample() returns nil and 'system is closed', r:close() works, __gc is safe, the file ends whole", function()
    local out, c = child(string.format([[
      local sys = mi.system({ workload = "oltp" })
      local r = mi.record({ system = sys, path = %q, fsync = "none" })
      sys:advance(1000) assert(r:sample())
      sys:close()
      print(r:sample())
      print(r:mark("x"))
      print(r:close(), r:close())
      print(pcall(r.stats, r))
      r = nil collectgarbage() collectgarbage()
      print("done")
    ]], file))
    assert.equal(0, c, out)
    assert.matches("^nil\tsystem is closed\nnil\tsystem is closed\ntrue\ttrue\nfalse\t[^\n]*system is closed[^\n]*\ndone\n$", out)
    local o, _, v = run(MISH .. " scripts/verify.lua " .. file .. " --json")
    assert.equal(0, v, o)   -- closing the system closed the recording: its end mark and index
    assert.matches('"samples":2', o)
  end)

  it("#27.4 a recorder whose system is only referenced by it survives garbage collection", function()
    local out, c = child(string.format([[
      local r = mi.record({ system = mi.system({ workload = "oltp" }), path = %q, fsync = "none" })
      collectgarbage() collectgarbage()
      print(r:sample(), r:sample())
      print(r:close())
    ]], file))
    assert.equal(0, c, out)
    assert.equal("true\ttrue\ntrue\n", out)
    local o, _, v = run(MISH .. " scripts/verify.lua " .. file .. " --json")
    assert.equal(0, v, o)
    assert.matches('"samples":3', o)
  end)

  it("#27.4 a recorder and its closed system collected together, in either order of creation, never crash", function()
    local out, c = child(string.format([[
      for i = 1, 3 do
        local sys = mi.system({ workload = "oltp" })
        local r = mi.record({ system = sys, path = %q .. i, fsync = "none" })
        if i == 1 then sys:close() elseif i == 2 then r:close() end
        r, sys = nil, nil
        collectgarbage() collectgarbage()
        os.remove(%q .. i)
      end
      print("done")
    ]], file, file))
    assert.equal(0, c, out)
    assert.equal("done\n", out)
  end)

  it("#27.4 every Lua object holding a system or session: a clear error once it is closed, and nothing freed under it", function()
    local out, c = child([[
      local function try(name, f, ...) local ok, e = pcall(f, ...) print(name, ok, (tostring(e):match("system is closed"))) end
      local sys = mi.system({ workload = "oltp" })
      local s = core.session(sys)
      local q = core.query(s, "global", { 21176 }, 1)
      local u = sys:udef_install({ name = "jobs", kind = "accum" })
      local e = core.exporter(core.session(sys))
      local m = mi.open({ system = sys })
      sys:close()
      try("query", q.get, q)
      try("udef", u.add, u, 1)
      try("exporter", e.format, e)
      try("readactive", core.readactive, s, "process", { 25047 }, 1, "list")
      try("session", function() return m:get("global", { "gmt_idle" }) end)
      q, u, e, s, m, sys = nil collectgarbage() collectgarbage()
      -- the system collected while its objects live: they keep it
      local u2 = mi.system({ workload = "oltp" }):udef_install({ name = "jobs", kind = "accum" })
      local q2 = core.query(core.session(mi.system({ workload = "oltp" })), "global", { 21176 }, 1)
      collectgarbage() collectgarbage()
      u2:add(1)
      print("alive", math.type(q2:get()) == "integer", u2:value() >= 0)
    ]])
    assert.equal(0, c, out)
    for _, name in ipairs({ "query", "udef", "exporter", "readactive", "session" }) do
      assert.matches(name .. "\tfalse\tsystem is closed\n", out)
    end
    assert.matches("alive\ttrue\ttrue\n", out)
  end)
end)

-- What each tool counts of a recording's samples: verify's samples, summary's window, export's
-- rows of one global item, the samples a replay applied stepping to its end, and what the tools
-- said on stderr.
local function counts(file)
  local n = {}
  local o, e, c = run(MISH .. " scripts/verify.lua " .. file .. " --json")
  assert.equal(0, c, o .. e)
  n.verify = tonumber(o:match('"samples":(%d+)'))
  n.steps = tonumber(o:match('"steps_back":(%d+)'))
  o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --json --all")
  assert.equal(0, c, e)
  n.summary = tonumber(o:match('"window_samples":(%d+)'))
  n.summary_item = tonumber(o:match('"item":"gmt_idle","kind":"counter","max":[^}]*"samples":(%d+)'))
  n.said = e
  o, e, c = run(MISH .. " scripts/export.lua " .. file .. " --csv")
  assert.equal(0, c, e)
  n.export = select(2, o:gsub(",global,0,,,gmt_idle,", ""))
  local sys = mi.replay(file)
  while mi.core.replay_step(sys, 1) == 1 do end
  n.replay = mi.core.replay_samples(sys)
  sys:close()
  return n
end

describe("#27.3 samples whose times do not increase are kept, by every tool", function()
  local file
  before_each(function() file = H.tmp_path("rec27-3.mir") end)
  after_each(function() os.remove(file) end)

  it("#27.3 a segment appended with earlier times (a clock set back): verify, summary, export and replay count 40 of 40", function()
    record(file, 20, 3600)   -- an hour on
    record(file, 20)         -- then a system whose clock is an hour earlier, appended
    local n = counts(file)
    assert.same({ 40, 40, 40, 40, 40, 1 }, { n.verify, n.summary, n.summary_item, n.export, n.replay, n.steps })
    assert.matches("the recorded clock goes back 1 time%(s%) %(first at offset %d+%); every sample is kept", n.said)
    local o = run(MISH .. " scripts/verify.lua " .. file)
    assert.matches(": clean\n", o)   -- whole: the file is not damaged, its clock went back
    assert.matches("the recorded clock goes back 1 time%(s%)", o)
    -- a script replayed sees every sample, each a second after the one before: its clock goes on
    local out, e, c = run(MISH .. " --replay " .. file .. [[ -e 'local n, t = 0, mi.clock() while true do n = n + 1 mi.sleep(1) local u = mi.clock() assert(u - t == 1000, u - t) t = u io.write(n + 1, " ") end']])
    assert.equal(0, c, e)
    assert.matches(" 40 $", out)
    assert.matches("the recorded clock goes back 1 time", e)
    -- a window is refused on the replay (its clock is not the file's), taken by summary and export
    _, e, c = run(MISH .. " --replay " .. file .. " --from +10s -e 'print(1)'")
    assert.equal(2, c)
    assert.matches("clock goes back 1 time%(s%) in this file: a replay plays it whole", e)
    o = run(MISH .. " scripts/summary.lua " .. file .. " --from +0s --to +10s --json")
    assert.matches('"window_samples":11', o)   -- the first 10 s of the earliest time: the appended segment's 11 samples
  end)

  it("#27.3 a segment appended that starts inside the previous one's span: 40 of 40 everywhere", function()
    record(file, 20)
    record(file, 20)
    local n = counts(file)
    assert.same({ 40, 40, 40, 40, 40, 1 }, { n.verify, n.summary, n.summary_item, n.export, n.replay, n.steps })
    -- a window selects by time wherever the samples are: both segments' first 10 s
    local o = run(MISH .. " scripts/summary.lua " .. file .. " --from +0s --to +9.5s --json")
    assert.matches('"window_samples":20', o)
  end)

  it("#27.3 samples at one time around a continued header: none dropped by summary or export", function()
    local out, c = child(string.format([[
      local sys = mi.system({ workload = "oltp", cpus = 2, seed = 42 })
      local r = mi.record({ system = sys, path = %q, fsync = "none", key_every = 3, items = { "gmt_idle", "gmt_paused", "userdef:*" } })
      for i = 2, 5 do assert(r:sample()) end   -- five samples at one time (the clock did not move)
      sys:udef_install({ name = "late", kind = "accum" })
      assert(r:sample())                        -- a continued header and its key, at that time too
      for i = 1, 4 do sys:advance(1000) assert(r:sample()) end
      r:close()
      print("ok")
    ]], file))
    assert.equal(0, c, out)
    local n = counts(file)
    assert.same({ 10, 10, 10, 10, 10, 0 }, { n.verify, n.summary, n.summary_item, n.export, n.replay, n.steps })
    assert.equal("", n.said)   -- in time order: nothing to say
  end)
end)
