-- stats_spec.lua: core.stats (lua/mi_stats.c), the running statistics summary.lua keeps in C,
-- against a model: summary.lua's former inner loop in Lua, value by value, on random sequences
-- of counters, levels and MI_Time items with restarts (stretches of the clock), births since
-- the sample before, entities giving up their stat, and values not measured.
local core = require("mi.core")

-- The model: one stat as summary.lua kept it in Lua before #31.4 moved it to C.
local function model_new(level, time)
  return { level = level, time = time, n = 0, total = 0, dt = 0, sumv = 0, sumvdt = 0, nv = 0 }
end
local function model_add(s, v, t, seg, born_at, tps)
  if math.type(v) == nil then return end   -- not measured: left out
  s.n = s.n + 1
  if s.level then
    local lv = s.time and v / tps or v
    s.sumv, s.nv = s.sumv + lv, s.nv + 1
    if s.seg == seg and s.pt and t >= s.pt then s.sumvdt = s.sumvdt + (s.pl or lv) * (t - s.pt); s.dt = s.dt + t - s.pt end
    if not s.minv or lv < s.minv then s.minv, s.mint = lv, t end
    if not s.maxv or lv > s.maxv then s.maxv, s.maxt = lv, t end
    s.pl = lv
  else
    local dv, dt
    if s.seg == seg and s.pv and t > s.pt then dv, dt = v - s.pv, (t - s.pt) / tps
    elseif s.seg ~= seg and born_at then dv, dt = v, (t - born_at) / tps end
    if dv then
      if s.time then dv = dv / tps end
      local rate = dv / dt
      s.total, s.dt = s.total + dv, s.dt + dt
      if not s.minr or rate < s.minr then s.minr, s.mint = rate, t end
      if not s.maxr or rate > s.maxr then s.maxr, s.maxt = rate, t end
    end
  end
  s.pv, s.pt, s.seg = v, t, seg
end

local FIELDS = { "n", "total", "dt", "sumv", "sumvdt", "nv", "minv", "maxv", "minr", "maxr", "mint", "maxt" }

-- Equal as Lua would print them: same type (integer or float) and value (floats within 1e-9 relative).
local function same(a, b)
  if a == nil or b == nil then return a == b end
  if math.type(a) ~= math.type(b) then return false end
  if math.type(a) == "integer" then return a == b end
  return math.abs(a - b) <= 1e-9 * math.max(1, math.abs(a), math.abs(b))
end

describe("core.stats (#31.4: summary.lua's inner loop in C)", function()
  it("keeps every figure as the Lua loop did, on random sequences (integers stay integers)", function()
    local tps = 8000000
    local compared = 0
    for round = 1, 60 do
      math.randomseed(round)
      local acc = core.stats(tps)
      local nst = math.random(1, 12)
      local ids, models, at = {}, {}, {}
      for j = 1, nst do
        local level, time = math.random() < 0.4, math.random() < 0.3
        ids[j] = acc:new(level, time)
        models[j] = model_new(level, time)
        at[j] = nst + 1 - j   -- values in reverse order in the row: at is honoured
      end
      local t, seg, vals = 1000, 1, {}
      for j = 1, nst do vals[j] = math.random(0, 1000) end
      for sample = 1, math.random(1, 80) do
        local r = math.random()
        if r < 0.05 then seg = seg + 1                               -- a restart: a new stretch of the clock
        elseif r < 0.08 then t = t - math.random(0, 500) end         -- a clock that stepped back
        t = t + math.random(0, 3) * 250000
        local born = (math.random() < 0.1) and (t - math.random(1, 250000)) or nil   -- born before t (summary.lua: e.start < t)
        if math.random() < 0.05 then                                 -- another entity takes the stats
          for j = 1, nst do acc:release(ids[j]); models[j].seg = nil end
        end
        local row = {}
        for j = 1, nst do
          local step = math.random() < 0.3 and 0 or math.random(-5, 5000)
          vals[j] = vals[j] + step
          local v = vals[j]
          if math.random() < 0.05 then v = nil end                    -- not measured
          row[at[j]] = v
          model_add(models[j], v, t, seg, born, tps)
        end
        acc:row(ids, row, at, t, seg, born)
      end
      for j = 1, nst do
        local got, want = acc:get(ids[j]), models[j]
        for _, f in ipairs(FIELDS) do
          assert.is_true(same(got[f], want[f]), string.format("round %d stat %d (%s%s) field %s: C %s, Lua %s", round, j,
            want.level and "level" or "counter", want.time and ", MI_Time" or "", f, tostring(got[f]), tostring(want[f])))
          compared = compared + 1
        end
      end
    end
    assert.is_true(compared > 1000, "compared " .. compared .. " figures")
  end)

  it("rejects bad arguments with a clear error", function()
    assert.has_error(function() core.stats(0) end)
    local acc = core.stats(1000)
    local id = acc:new(false, false)
    assert.has_error(function() acc:get(id + 1) end, nil)
    assert.has_error(function() acc:row({ 99 }, { 1 }, { 1 }, 1, 1) end)
    assert.has_error(function() acc:row("x", {}, {}, 1, 1) end)
    assert.has_error(function() acc:release(0) end)
    assert.same(1, acc:get(id).n + 1)   -- nothing was added by the failed calls
  end)
end)
