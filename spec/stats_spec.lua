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

-- Whether summary.lua leaves the stat out without --all, as it decided from the stat's figures
-- before stats:zero: no total over an interval (or 0) and both extremes absent or 0.
local function model_zero(s)
  if s.level then return (s.maxv or 0) == 0 and (s.minv or 0) == 0 end
  return (not (s.dt > 0) or s.total == 0) and (s.maxr or 0) == 0 and (s.minr or 0) == 0
end

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
        assert.equal(model_zero(want), acc:zero(ids[j]), string.format("round %d stat %d: zero", round, j))
        for _, f in ipairs(FIELDS) do
          assert.is_true(same(got[f], want[f]), string.format("round %d stat %d (%s%s) field %s: C %s, Lua %s", round, j,
            want.level and "level" or "counter", want.time and ", MI_Time" or "", f, tostring(got[f]), tostring(want[f])))
          compared = compared + 1
        end
      end
    end
    assert.is_true(compared > 1000, "compared " .. compared .. " figures")
  end)

  it("says which stats show nothing (stats:zero, summary.lua's rows left out)", function()
    local acc = core.stats(1000)
    local c_still, c_one, c_moves = acc:new(false, false), acc:new(false, false), acc:new(false, false)
    local l_zero, l_up, l_neg = acc:new(true, false), acc:new(true, false), acc:new(true, false)
    local c_back = acc:new(false, false)
    local ids, at = { c_still, c_moves, l_zero, l_up, l_neg, c_back }, { 1, 2, 3, 4, 5, 6 }
    acc:row({ c_one }, { 7 }, { 1 }, 1000, 1)   -- one sample: no interval, nothing counted
    for k, t in ipairs({ 1000, 2000, 3000 }) do
      acc:row(ids, { 5, 5 + k, 0, k == 3 and 4 or 0, k == 2 and -1 or 0, k == 2 and 3 or 5 }, at, t, 1)
    end
    assert.is_true(acc:zero(c_still))   -- a counter that never moved
    assert.is_true(acc:zero(c_one))
    assert.is_false(acc:zero(c_moves))
    assert.is_true(acc:zero(l_zero))    -- a level at 0 throughout
    assert.is_false(acc:zero(l_up))     -- a level that rose once
    assert.is_false(acc:zero(l_neg))    -- a level below 0 once
    assert.is_false(acc:zero(c_back))   -- a counter whose total is 0 but that went down and up: its rates are not
    assert.has_error(function() acc:zero(c_back + 1) end)
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

-- #31: stats:sample feeds the stats straight from the reader's cells. The model is summary.lua's
-- loop before it: a Lua row table per entity (recording:rows), entities kept by identity in Lua
-- (a process: its slot's pid, birth and program), one stats:row call per row.
describe("core.stats sample (#31: summary.lua's walk without row tables)", function()
  local mi = require("mi")
  local rec = require("mi.recording")

  -- Records two segments of a batch workload whose jobs end and log on again (births between
  -- samples, slots taken by other processes) into a fresh file; returns its path.
  local function recording()
    local file = H.tmp_path("feed.mir")
    for seg = 1, 2 do   -- the second recorder appends a segment: a restart, rates never span it
      local sys = mi.system({ workload = "batch", seed = 7 + seg, job_ms = 300, jobs = 12, cpus = 2 })
      local rc = mi.record({ system = sys, path = file, fsync = "none", items = { "gmt_idle", "gmt_cm_time",
        "gmc_cur_free_main_mem_pg", "process:pmt_process_time", "process:pmc_disc_read", "process:pmc_cur_main_mem_pg_objcl_",
        "io:imc_completed_read", "io:imc_q_current" } })
      for _ = 2, 20 do sys:advance(700) assert(rc:sample()) end
      rc:close()
      sys:close()
    end
    return file
  end

  -- Walks the file twice, once through each path; returns the two accumulators, their stats in
  -- order of first sight (domain|entity|item -> id) and what the walk met (births, slot reuses).
  local function both(file, break_born)
    local r = mi.core.rec_open(file)
    local info = r:info()
    local tps = info.tpm * 1000
    local model, fed = mi.core.stats(tps), mi.core.stats(tps)
    local keys, mids, fids = {}, {}, {}   -- stat key -> its id in each accumulator
    local sel, gen, seen = {}, 0, { births = 0, reuse = 0, rows = 0 }
    local function id_of(acc, ids, d, text, it, owner, owners)
      local k = d .. "|" .. text .. "|" .. it.name
      if not ids[k] then
        ids[k] = acc:new(it.level, it.time)
        if acc == model then keys[#keys + 1] = k end
      end
      if owners[k] ~= owner then owners[k] = owner; acc:release(ids[k]) end
      return ids[k]
    end
    local E, mown, fown, resolve = {}, {}, {}, {}
    local FE = {}
    for _, d in ipairs(rec.DOMAINS) do
      E[d], FE[d] = {}, {}
      resolve[d] = function(eid, key, pid, program)
        local text = pid and string.format("%d %s", pid, program) or tostring(key)
        local ids = {}
        for j, it in ipairs(sel[d]) do ids[j] = id_of(fed, fids, d, text, it, eid, fown) end
        return ids
      end
    end
    local prev_t, prev_run
    rec.walk(r, info.first_time, info.last_time, function(ev, _, run)
      local t = ev.time
      local before = prev_run == run and prev_t or nil
      prev_t, prev_run = t, run
      for _, d in ipairs(rec.DOMAINS) do
        local its, at = sel[d], {}
        for j, it in ipairs(its) do at[j] = it.at end
        if #its > 0 then
          for _, row in ipairs(r:rows(d)) do   -- the model
            seen.rows = seen.rows + 1
            local e = E[d][row.key]
            if d == "process" and e and (e.pid ~= row.pid or e.start ~= row.start or e.program ~= row.program) then
              e = nil
              seen.reuse = seen.reuse + 1
            end
            if not e then
              e = { text = d == "process" and string.format("%d %s", row.pid, row.program) or tostring(row.key),
                    pid = row.pid, start = row.start, program = row.program }
              E[d][row.key] = e
            end
            if e.gen ~= gen then
              e.ids = {}
              for j, it in ipairs(its) do e.ids[j] = id_of(model, mids, d, e.text, it, e, mown) end
              e.gen = gen
            end
            local born = before and e.start and e.start >= before and e.start < t
            if born then seen.births = seen.births + 1 end
            model:row(e.ids, row, at, t, run, born and e.start or nil)
          end
          fed:sample(r, d, at, t, run, not break_born and before or nil, gen, FE[d], resolve[d])
        end
      end
    end, function()
      gen = gen + 1
      for _, d in ipairs(rec.DOMAINS) do
        local its = {}   -- the layout's items in reverse order: at is honoured, not the position
        for i, it in ipairs(r:layout(d)) do
          table.insert(its, 1, { at = i, name = it.name or tostring(it.item), level = it.reading ~= nil and it.reading ~= "total",
            time = it.unit == "mi_time" })
        end
        sel[d] = its
      end
    end)
    r:close()
    return model, fed, keys, mids, fids, seen
  end

  -- Compares every stat's figures; returns the first difference, or nil.
  local function differ(model, fed, keys, mids, fids)
    for _, k in ipairs(keys) do
      if not fids[k] then return k .. ": not fed" end
      local a, b = model:get(mids[k]), fed:get(fids[k])
      for _, f in ipairs(FIELDS) do
        if not same(a[f], b[f]) then return string.format("%s %s: rows %s, sample %s", k, f, tostring(a[f]), tostring(b[f])) end
      end
    end
  end

  it("gives every stat the figures the row-table loop gave (births, slots reused, two segments)", function()
    local model, fed, keys, mids, fids, seen = both(recording())
    assert.is_true(seen.births >= 5, "births counted from their birth: " .. seen.births)
    assert.is_true(seen.reuse >= 5, "slots another process took: " .. seen.reuse)
    assert.is_true(#keys >= 100, "stats compared: " .. #keys)
    local n = 0
    for _ in pairs(fids) do n = n + 1 end
    assert.equal(#keys, n, "the same stats, no more")
    assert.is_nil(differ(model, fed, keys, mids, fids))
  end)

  it("a process born since the sample before counts from its birth: without it the figures differ", function()
    local model, fed, keys, mids, fids = both(recording(), true)
    assert.truthy(differ(model, fed, keys, mids, fids), "births ignored, yet every figure agreed: the check sees nothing")
  end)

  it("rejects bad arguments with a clear error", function()
    local r = mi.core.rec_open(recording())
    local acc = mi.core.stats(1000)
    local ev repeat ev = r:next() until ev.type == "sample"
    local function ok_ids() return { acc:new(false, false) } end
    assert.has_error(function() acc:sample(r, "process", { 99 }, 1, 1, nil, 1, {}, ok_ids) end,
      "stats:sample: at[1] is not an item of the layout")
    assert.has_error(function() acc:sample(r, "process", { 1 }, 1, 1, nil, 1, {}, function() return {} end) end,
      "stats:sample: resolve must return 1 stat ids")
    assert.has_error(function() acc:sample(r, "process", { 1 }, 1, 1, nil, 1, {}, function() return { 999 } end) end,
      "stats:sample: resolve's ids[1] is no stat")
    assert.has_error(function() acc:sample(r, "nowhere", { 1 }, 1, 1, nil, 1, {}, ok_ids) end)
    acc:sample(r, "process", { 1 }, 1, 1, nil, 1, {}, ok_ids)   -- well formed: no error
    r:close()
    assert.has_error(function() acc:sample(r, "process", { 1 }, 1, 1, nil, 1, {}, ok_ids) end)
  end)
end)
