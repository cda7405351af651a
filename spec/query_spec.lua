-- query_spec.lua: issue #12 door 2 — one prepared query behind every read. s:get and
-- core.query's q:get give exactly what the literal core.*get calls give (mixed valid, invalid,
-- other-domain and pseudo items; across OFF/ON, a mapping change, process births and deaths),
-- and a query refuses clearly to run once its session or system is closed.
local mi = require("mi")
local core = mi.core

local BY_NUM = {}
for _, it in ipairs(mi.items) do BY_NUM[it.item] = it end
local DOMAINS = { "global", "process", "io", "processor" }

-- The literal record keyed as s:get keys it: by number, and by name for the first item of
-- the domain with that name; process records get state, I/O records the device type's name.
local function keyed(nums, rec, domain, devices)
  local t = {}
  for i, n in ipairs(nums) do
    local it = BY_NUM[n]
    if it and it.domain == domain and t[it.name] == nil then t[it.name] = rec[i] end
    t[n] = rec[i]
  end
  if domain == "process" then t.state = t.pid_state == 1 and "dead" or "alive" end
  if domain == "io" and t.ldev then t.type = devices[t.ldev] end
  return t
end

-- The literal GET of a domain for raw session s, its data keyed as above.
local function literal(s, sys, domain, nums, map, sel)
  local rc, st, data
  if domain == "global" then
    rc, st, data = core.globget(s, nums, map, 0)
    return rc, st, data and keyed(nums, data, domain)
  end
  local f = domain == "process" and core.procget or domain == "io" and core.ioget or core.prcsrget
  rc, st, data = f(s, nums, map, sel, 0)
  if domain == "processor" and sel == -1 and data then   -- Lua's GET gives the configured processors only
    while #data > sys:info().cpus do data[#data] = nil end
  end
  if domain == "process" and sel == -1 and rc == -20015 then
    -- all processes outgrew the buffer: keep the dead-process reports delivered with the
    -- records that fitted and repeat with more room (what s:get promises)
    local kept, room = {}, #data
    while rc == -20015 and room < 2700 do
      for _, r in ipairs(data) do if r[2] == 1 then kept[#kept + 1] = r end end
      room = math.min(2700, room * 2 + 64)
      rc, st, data = f(s, nums, map, sel, 0, room)
    end
    for _, r in ipairs(data) do kept[#kept + 1] = r end
    data = kept
  end
  local devices = sys:info().devices
  local out = {}
  for i, r in ipairs(data) do out[i] = keyed(nums, r, domain, devices) end
  return rc, st, out
end

-- Item lists whose order s:get keeps (its leading items first): valid, unknown (99999),
-- another domain's (21176 / 25047), a pseudo-item of another domain and a repeat.
local LISTS = {
  global = { 21176, 21177, 99999, 25047, 20001, 21184, 21001, 21176 },
  process = { 20001, 20002, 20003, 20004, 20005, 20011, 20012, 25047, 99999, 21176, 20020, 25048, 20007, 20009, 25047 },
  io = { 20020, 23000, 25047, 99999, 23001, 20001, 23000 },
  processor = { 20040, 27006, 23000, 99999, 27022, 20001 },
}
local ON = {
  global = { 21176, 21177, 21184, 21164, 21254 },
  process = { 20001, 25047, 25048 },
  io = { 23000, 23001 },
}

-- Two sessions on one simulated system with the same things on: a reads through s:get, b
-- through the literal calls (each is told of a death once, so they cannot share a session).
local function pair(map)
  -- short jobs: processes are born and die all the time
  local sys = mi.system({ workload = "batch", cpus = 2, seed = 7, job_ms = 300, job_cpu_ms = 50 })
  local a, b = mi.open({ system = sys }), mi.open({ system = sys })
  for _, s in ipairs({ a, b }) do
    for d, items in pairs(ON) do assert.is_true(s:on(d, items, { mapping = map }).ok) end
  end
  return sys, a, b
end

-- Asserts s:get of every domain equals the literal GET, at mapping map.
local function same_everywhere(sys, a, b, map, what)
  for _, d in ipairs(DOMAINS) do
    local nums = LISTS[d]
    local data, st = a:get(d, nums, { mapping = map })
    local rc, ist, want = literal(b.s, sys, d, nums, map, -1)
    if rc < 0 then want = nil end   -- a failed GET is nil, Status in every domain (#16.5)
    assert.same(rc, st.code, what .. ": " .. d .. " overall status")
    assert.same(ist, st.items, what .. ": " .. d .. " item statuses")
    assert.same(want, data, what .. ": " .. d .. " data")
  end
end

describe("#12 door 2: prepared queries", function()
  it("s:get equals the literal GETs in all four domains, mixed items, across OFF/ON, mapping, births and deaths", function()
    local sys, a, b = pair("small")
    sys:advance(3000)
    same_everywhere(sys, a, b, 1, "start")
    same_everywhere(sys, a, b, 2, "a coarser mapping")
    same_everywhere(sys, a, b, 0, "a finer mapping (-20014 items)")
    for _, s in ipairs({ a, b }) do
      assert.is_true(s:off("global").ok)
      assert.is_true(s:on("global", { 21177, 21184, 21164 }).ok)
    end
    sys:advance(1000)
    same_everywhere(sys, a, b, 1, "after global OFF/ON")
    for _, s in ipairs({ a, b }) do
      s:off("io")
      s:off("process")
    end
    same_everywhere(sys, a, b, 1, "after process and I/O OFF")
    for _, s in ipairs({ a, b }) do
      assert.is_true(s:on("process", ON.process).ok)
      assert.is_true(s:on("io", ON.io, { ldev = "disk" }).ok)
    end
    -- processes are born and die as the model runs: dead reports come to each session once
    local deaths = 0
    for _ = 1, 6 do
      sys:advance(5000)
      local data = a:get("process", LISTS.process)
      local _, _, want = literal(b.s, sys, "process", LISTS.process, 1, -1)
      assert.same(want, data, "records across births and deaths")
      for _, r in ipairs(data) do if r.state == "dead" then deaths = deaths + 1 end end
    end
    assert.is_true(deaths > 0, "the model ended some processes")
    a:close(); b:close()
  end)

  it("core.procget with pid -1 reads all processes, as MIPROCGET does (#12)", function()
    local sys, a, b = pair("small")
    sys:advance(3000)
    local rc, _, recs = core.procget(a.s, { 20001 }, 1, -1, 0)
    assert.equal(0, rc)
    assert.equal(#b:get("process"), #recs)
    assert.is_true(#recs > 1)
    a:close(); b:close()
  end)

  it("one record by pid, ldev or processor id equals the literal GET", function()
    local sys, a, b = pair("small")
    sys:advance(2000)
    local pid = a:get("process")[3].pid
    local data, st = a:get("process", LISTS.process, { pid = pid })
    local rc, ist, want = literal(b.s, sys, "process", LISTS.process, 1, pid)
    assert.same({ rc, ist, want }, { st.code, st.items, data })
    assert.equal(1, #data)
    for _, sel in ipairs({ 1, -2, 5000, 0 }) do
      data, st = a:get("io", LISTS.io, { ldev = sel })
      rc, ist, want = literal(b.s, sys, "io", LISTS.io, 1, sel)
      if rc < 0 then want = nil end   -- (#16.5)
      assert.same({ rc, ist, want }, { st.code, st.items, data }, "ldev " .. sel)
    end
    for _, sel in ipairs({ 0, 1, 9, -3 }) do
      data, st = a:get("processor", LISTS.processor, { cpu = sel })
      rc, ist, want = literal(b.s, sys, "processor", LISTS.processor, 1, sel)
      if rc < 0 then want = nil end   -- (#16.5)
      assert.same({ rc, ist, want }, { st.code, st.items, data }, "cpu " .. sel)
    end
    a:close(); b:close()
  end)

  it("a GET of a domain with nothing on gives the literal status and no stale statuses", function()
    local sys = mi.system({ workload = "idle", seed = 1 })
    local a = mi.open({ system = sys })
    for _, d in ipairs(DOMAINS) do
      local data, st = a:get(d, LISTS[d])
      local rc, ist = literal(a.s, sys, d, LISTS[d], 1, -1)
      assert.equal(-20013, st.code, d)
      assert.same({ rc, ist }, { st.code, st.items }, d)
      assert.equal(#LISTS[d], #st.items, d)
      for _, v in ipairs(st.items) do assert.equal(0, v, d .. ": no status for an item never planned") end
      assert.is_nil(data, d)   -- one shape for a failed GET in every domain (#16.5)
    end
    a:close()
  end)

  it("core.query's keys: names once per domain item, numbers for every item", function()
    local s = H.session()
    s:on("global", { 21176, 21184 })
    local q = core.query(s.s, "global", { 21184, 25047, 99999, 21184 }, 1)
    local rc, st, v = q:get()
    assert.equal(3, rc)           -- the last failing item's index
    assert.same({ 0, -20006, -20006, 0 }, st)
    assert.equal(v[21184], v.gmt_cs_process)
    assert.equal(0, v[25047]); assert.equal(0, v[99999])
    local names = {}
    for k in pairs(v) do if type(k) == "string" then names[#names + 1] = k end end
    assert.same({ "gmt_cs_process" }, names, "another domain's item has no name key")
    q:close()
    s:close()
  end)

  it("a query errors clearly once its session or its system is closed, or itself", function()
    local sys = mi.system({ workload = "idle", seed = 1 })
    local s = mi.open({ system = sys })
    s:on("global", { 21176 })
    local q = core.query(s.s, "global", { 21176 }, 1)
    assert.equal(0, (q:get()))
    s:close()
    assert.error_matches(function() q:get() end, "session is closed")
    local s2 = mi.open({ system = sys })
    s2:on("global", { 21176 })
    local q2 = core.query(s2.s, "global", { 21176 }, 1)
    sys:close()
    assert.error_matches(function() q2:get() end, "system is closed")
    q2:close()
    assert.error_matches(function() q2:get() end, "query is closed")
    q2:close()   -- idempotent
    assert.has_error(function() core.query(s2.s, "global", { 21176 }) end)
    assert.has_error(function() core.query({}, "global", { 21176 }) end)
    local s3 = H.session()
    assert.has_error(function() core.query(s3.s, "disks", { 21176 }) end)
    s3:close()
  end)

  it("a record holds each value once, under its name; its item numbers read the same value (#12)", function()
    local s = H.session()
    s:on("global", { "gmt_idle", 21176 })
    s:on("process", { "pmt_process_time" })
    s:advance(2000)
    local g = s:get("global")
    local keys = {}
    for k in pairs(g) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    assert.same({ "gmt_idle", "gmt_paused" }, keys)
    assert.equal(g.gmt_idle, g[21177])
    assert.equal(g.gmt_paused, g[21176])
    assert.is_nil(g[21000])
    local old = g
    s:advance(1000)
    local d = mi.delta(s:get("global"), old)
    assert.equal(d.gmt_idle, d[21177])
    assert.is_true(d[21177] > 0)
    local p = s:get("process")[1]
    assert.equal(p.pmt_process_time, p[25047])
    assert.equal(p.pid, p[20001])
    s:close()
  end)
end)
