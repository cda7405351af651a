-- record_replay_spec.lua: issue #30 points 3-7 — replays that behave like the live system
-- (replay:FILE as a --system spec, --serve paced by the recording, windows by time of day, date
-- and offsets from either end, an empty window refused, a run cut short still summarized, a
-- sleep that lands on the sample it spans), births counted from birth by summary.lua, and one
-- reading of damaged files by verify, summary, export and replay. Each describe names its point.
local mi = require("mi")
local MISH = "./lua/mish"
local run = H.run_split   -- spec/helpers.lua: stdout, stderr, exit status

-- Records n samples of a fresh simulated system into path, each step ms of virtual time after the
-- one before (o.items: what is recorded; o.workload, o.seed).
local function record(path, n, step, o)
  o = o or {}
  local sys = mi.system({ workload = o.workload or "oltp", cpus = 2, seed = o.seed or 42 })
  local r = mi.record({ system = sys, path = path, fsync = "none", items = o.items or { "gmt_idle", "gmt_paused", "process:pmt_process_time" } })
  for _ = 2, n do sys:advance(step) assert(r:sample()) end
  r:close()
  sys:close()
end

describe("#30.3 replay:FILE as a system steps like --replay; --serve paces a replay by its own intervals", function()
  local file
  before_each(function() file = H.tmp_path("r3.mir") record(file, 6, 1000, { items = mi.RECORD_ITEMS }) end)

  it("--system replay:FILE and MISH_SYSTEM=replay:FILE: a sleep moves the recorded clock, as --replay does", function()
    local code = "-e 'local t = mi.clock() mi.sleep(2) print(mi.clock() - t)'"
    local o, e, c = run(MISH .. " --replay " .. file .. " " .. code)
    assert.equal(0, c, e)
    assert.equal("2000\n", o)
    o, e, c = run(MISH .. " --system replay:" .. file .. " " .. code)
    assert.equal(0, c, e)
    assert.equal("2000\n", o)
    o, e, c = run("MISH_SYSTEM=replay:" .. file .. " " .. MISH .. " " .. code)
    assert.equal(0, c, e)
    assert.equal("2000\n", o)
  end)

  it("a script on --system replay:FILE prints the recorded times and rates that moved, with its window", function()
    local o, e, c = run(MISH .. " --system replay:" .. file .. " --from +1s scripts/cpu.lua --count 2 --csv")
    assert.equal(0, c, e)
    local info = mi.core.rec_open(file):info()
    local first = info.first_time // info.tpm // 1000
    local times = {}
    for t in o:gmatch("\n(%d+%-%d+%-%d+T[%d:]+[^,]*),") do times[#times + 1] = t end
    assert.equal(6, #times, o)   -- 3 rows (2 CPUs and all) a sample
    assert.equal(os.date("%Y-%m-%dT%H:%M:%S", first + 2), times[1]:sub(1, 19), o)
    assert.equal(os.date("%Y-%m-%dT%H:%M:%S", first + 3), times[4]:sub(1, 19), o)
    assert.falsy(o:find("\n[^\n]*,all,0%.0,0%.0,0%.0,0%.0,0%.0,0%.0,0%.0,0%.0,0%.0,"), o)   -- not all-zero
  end)

  it("mish --replay FILE --serve: /metrics moves on with the recording without --speed", function()
    local errf, pidf = H.tmp_path("err"), H.tmp_path("pid")
    local pid
    finally(function() if pid then os.execute("kill " .. pid .. " 2>/dev/null") end end)
    os.execute(MISH .. " --replay " .. file .. " --serve 127.0.0.1:0 2>" .. errf .. " & echo $! >" .. pidf)
    pid = io.open(pidf):read("l")
    local addr
    for _ = 1, 200 do   -- up to 20 s on a loaded machine
      local f = io.open(errf)
      addr = f and f:read("a"):match("http://(%S+)/metrics")
      if f then f:close() end
      if addr then break end
      os.execute("sleep 0.1")
    end
    assert.truthy(addr, "the server said where it listens")
    local function scrape()
      local f = io.popen("curl -s http://" .. addr .. "/metrics")
      local t = f:read("a")
      f:close()
      return tonumber(t:match("\nmish_gmt_idle_seconds_total ([%d.e+-]+)"))
    end
    local a = scrape()
    assert.is_number(a)
    local b
    for _ = 1, 60 do   -- the recording's next second, on the wall clock (paced at speed 1)
      os.execute("sleep 0.25")
      b = scrape()
      if b ~= a then break end
    end
    assert.is_true(b > a, "the served values moved on: " .. a .. " then " .. tostring(b))
  end)
end)

describe("#30.7 a replay's sleep applies the recorded intervals it spans", function()
  it("mi.sleep(3) lands on the third sample though each sample was taken 4 ms late", function()
    local file = H.tmp_path("r7.mir")
    record(file, 20, 1004)
    local o, e, c = run(MISH .. " --replay " .. file .. " -e 'local t = mi.clock() for i = 1, 6 do mi.sleep(3) io.write(mi.clock() - t, \" \") t = mi.clock() end'")
    assert.equal(0, c, e)
    assert.equal("3012 3012 3012 3012 3012 3012 ", o)
    -- a sleep shorter than half an interval still moves to the next sample; 1.6 intervals make 2
    o, e, c = run(MISH .. " --replay " .. file .. " -e 'local t = mi.clock() mi.sleep(0.2) io.write(mi.clock() - t, \" \") t = mi.clock() mi.sleep(1.6) io.write(mi.clock() - t)'")
    assert.equal(0, c, e)
    assert.equal("1004 2008", o)
  end)
end)
