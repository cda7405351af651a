-- delta_property_spec.lua: properties of mi.delta over random runs of the simulator (#30), where
-- processes are born and die between any two reads. Over every interval:
--   1. no process's time total that accrues as it is spent (CPU and queue times) grows by more
--      than the interval (nor goes down): a delta that paired two processes, or subtracted across
--      a birth, would break it;
--   2. the CPU time the processes' deltas add up to (those alive at both reads, those born inside
--      with their values since birth, those whose death report closes the interval) equals the
--      CPUs' process time over the interval (21182-21186, all five queues), within rounding.
-- The runs are drawn from fixed seeds, so a failure names a run that can be played again.
local mi = require("mi")

local RUNS, INTERVALS = 12, 6

-- The process items whose unit is MI time, that are totals and accrue as the time is spent (what
-- property 1 bounds). Not the stop, wait, think and response times: the manual defines each as
-- the length of a stop until the process was awakened, or of a transaction until it ended, so it
-- is charged whole when that ends and an interval's delta may exceed the interval (a 16 s child
-- wait that ended inside a 9 s interval).
local function time_totals()
  local out = {}
  for _, it in ipairs(mi.items) do
    local charged_at_end = it.name:find("stop_", 1, true) or it.name:find("wait", 1, true) or
      it.name:find("think", 1, true) or it.name:find("response", 1, true)
    if it.domain == "process" and it.unit == "mi_time" and it.reading == "total" and it.kind == "simple" and
       it.instrumented == "yes" and not charged_at_end then
      out[#out + 1] = it.name
    end
  end
  return out
end

-- The CPUs' process time now: the sum of the five queues' global items.
local function cpus_process_time(g)
  local n = 0
  for num = 21182, 21186 do n = n + g[mi.item(num).name] end
  return n
end

-- One run: workload w on ncpu CPUs with seed; jobs, their length and the intervals drawn from rng. Returns the
-- failures (strings) and the number of checks made.
local function run(w, ncpu, seed, rng, times)
  -- jobs that last job_ms each and start again: processes are born and die in every interval
  local sys = mi.system({ workload = w, cpus = ncpu, seed = seed, jobs = rng(2, 10), job_ms = rng(150, 3000) })
  local s = mi.open({ system = sys })
  local bad, checks, events = {}, 0, { born = 0, died = 0 }
  local ok, err = pcall(function()
    local round = s:config(3042)[3042]
    s:advance(rng(200, 3000))
    assert(s:on("global", { 21182, 21183, 21184, 21185, 21186 }))
    assert(s:on("process", times))
    local old, g0, t0 = s:get("process"), s:get("global"), sys:info().ticks
    for k = 1, INTERVALS do
      s:advance(rng(1, 2500))
      local new, g1, t1 = s:get("process"), s:get("global"), sys:info().ticks
      local elapsed = (t1 - t0) // round + 1
      local d = mi.delta(new, old)
      local sum, n = 0, 0
      for _, r in ipairs(d) do
        if r.born then events.born = events.born + 1 end
        if r.died then events.died = events.died + 1 end
        for _, name in ipairs(times) do
          local v = r[name]
          if v ~= nil then
            checks = checks + 1
            if v < 0 or v > elapsed then
              bad[#bad + 1] = ("%s/%d/%d interval %d: pid %s %s grew %d in %d"):format(w, ncpu, seed, k, r.pid, name, v, elapsed)
            end
          end
        end
        if r.pmt_process_time ~= nil then sum = sum + r.pmt_process_time; n = n + 1 end
      end
      local cpu = cpus_process_time(g1) - cpus_process_time(g0)
      checks = checks + 1
      if math.abs(sum - cpu) > 2 * n + 2 then
        bad[#bad + 1] = ("%s/%d/%d interval %d: processes' CPU time %d, the CPUs' process time %d (%d processes)")
          :format(w, ncpu, seed, k, sum, cpu, n)
      end
      old, g0, t0 = new, g1, t1
    end
  end)
  s:close()
  if not ok then bad[#bad + 1] = ("%s/%d/%d: %s"):format(w, ncpu, seed, tostring(err)) end
  return bad, checks, events
end

describe("mi.delta over random births and deaths on the simulator (#30)", function()
  it("never lets a process's time grow past the interval, and sums to the CPUs' process time", function()
    local times = time_totals()
    assert.is_true(#times >= 3, "time totals of the process domain: " .. table.concat(times, " "))
      local workloads = mi.workloads()
    assert.is_true(#workloads >= 9)
    local bad, checks, born, died = {}, 0, 0, 0
    for run_no = 1, RUNS do
      local state = run_no * 7919
      local function rng(a, b)   -- a small LCG: the same runs on every machine and Lua build
        state = (state * 1103515245 + 12345) % 2147483648
        return a + state % (b - a + 1)
      end
      local w = workloads[rng(1, #workloads)]
      local b, c, e = run(type(w) == "table" and w.name or w, rng(1, 4), rng(1, 99), rng, times)
      for _, m in ipairs(b) do bad[#bad + 1] = m end
      checks = checks + c
      born, died = born + e.born, died + e.died
    end
    assert.is_true(born >= 20 and died >= 20, ("births %d, deaths %d: the runs must have both"):format(born, died))
    assert.is_true(checks > RUNS * INTERVALS * 10, "checks made: " .. checks)
    assert.same({}, bad)
  end)
end)
