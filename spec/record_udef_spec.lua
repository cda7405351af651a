-- record_udef_spec.lua: #14.2 — user-defined counters are recorded and replayed: the recording
-- carries the system's counter table (those installed while it records too) and their raw
-- cells; the replay installs them, so GETs, mi.find, help, scripts and the exporter see them
-- with the values the live system showed at each sample.
local mi = require("mi")
local core = mi.core
local tmp_path, run = H.tmp_path, H.run   -- spec/helpers.lua
local MISH = "./lua/mish"

local COUNTERS = {
  { name = "orders_placed", kind = "accum", unit = "orders", help = "orders the shop took" },
  { name = "p_orders", kind = "accum", per_process = true, help = "orders a process took" },
  { name = "bytes_out", kind = "faccum" },
  { name = "worker_busy", kind = "busy", help = "time a worker was busy" },
  { name = "work_list", kind = "queue", help = "items waiting, time-weighted" },
}
local GLOBAL = { "orders_placed", "bytes_out", "worker_busy", "work_list" }

-- Records n seconds of an idle simulated system whose counters move every second; "late_orders"
-- is installed before sample `late` (with `alone`, nobody but the recorder enables it: its
-- live value is then the sum of its adds). Returns the live readings: [i] = {g = global record values,
-- p = {pid -> p_orders}, late = late_orders or nil}.
local function record(path, n, late, alone)
  local sys = mi.system { workload = "idle", realtime = false, seed = 5 }
  local u = mi.userdef { system = sys, counters = COUNTERS }
  local s = mi.open { system = sys }
  assert.is_true(s:on("global", GLOBAL).ok)
  assert.is_true(s:on("process", { "p_orders" }).ok)
  local pid = s:get("process")[1].pid
  local rec = mi.record { system = sys, path = path, fsync = "none", key_every = 5 }
  local live, s2, ul = {}, nil, nil
  for i = 1, n do
    if i == late then
      ul = mi.userdef { system = sys, counters = { { name = "late_orders", help = "installed while recording" } } }
      if not alone then
        s2 = mi.open { system = sys }
        assert.is_true(s2:on("global", { "late_orders" }).ok)
      end
    end
    u.orders_placed:add(i)
    u.p_orders:add(2 * i, pid)
    u.bytes_out:add((1 << 33) + i)
    u.worker_busy:set(i % 3 == 0 and 0 or 1)
    u.work_list:set(i % 5)
    if ul then ul.late_orders:add(10 * i) end
    sys:advance(1000)
    assert.is_true(rec:sample())
    local g = s:get("global")
    local r = { g = {}, p = {} }
    for _, k in ipairs(GLOBAL) do r.g[k] = g[k] end
    for _, p in ipairs(s:get("process")) do r.p[p.pid] = p.p_orders end
    if s2 then r.late = s2:get("global").late_orders
    elseif ul then r.late = (live[i - 1] and live[i - 1].late or 0) + 10 * i end
    live[i] = r
  end
  rec:close()
  s:close()
  if s2 then s2:close() end
  sys:close()
  return live
end

describe("#14.2 user-defined counters recorded and replayed", function()
  it("#14.2: accum (global and per process), faccum, busy and queue replay with the live values at every sample; a counter installed while recording appears from its sample on", function()
    local path = tmp_path("ud.mir")
    local N, LATE = 12, 7
    local live = record(path, N, LATE)
    local rsys = mi.replay(path)
    local s = mi.open { system = rsys }
    assert.is_true(s:on("global", GLOBAL).ok)
    assert.is_true(s:on("process", { "p_orders" }).ok)
    local s2
    for i = 1, N do
      assert.equal(1, core.replay_step(rsys, 1000))
      if i < LATE then assert.is_nil(rsys:udef_items(0)[6]) end
      local g = s:get("global")
      for _, k in ipairs(GLOBAL) do assert.equal(live[i].g[k], g[k], k .. " at sample " .. i) end
      assert.is_true(live[i].g.worker_busy > 0 and live[i].g.work_list > 0)
      local seen = 0
      for _, p in ipairs(s:get("process")) do
        if live[i].p[p.pid] ~= nil then assert.equal(live[i].p[p.pid], p.p_orders, "p_orders of " .. p.pid .. " at sample " .. i) seen = seen + 1 end
      end
      assert.is_true(seen > 0)
      if i >= LATE then
        if not s2 then s2 = mi.open { system = rsys } assert.is_true(s2:on("global", { "late_orders" }).ok) end
        assert.equal(live[i].late, s2:get("global").late_orders, "late_orders at sample " .. i)
      end
    end
    -- the catalog of the replay: numbers, kinds, help as installed live
    assert.equal(29000, mi.item("orders_placed").item)
    assert.equal(29005, mi.item("late_orders").item)
    assert.truthy(mi.describe("work_list"):find("user%-defined global queue counter: items waiting, time%-weighted"))
    assert.truthy(mi.describe("p_orders"):find("user%-defined process accum"))
    -- the exporter of the replay shows them
    local text = mi.openmetrics(rsys)
    assert.truthy(text:find("orders_placed", 1, true))
    assert.truthy(text:find("orders the shop took", 1, true))
    s:close()
    if s2 then s2:close() end
    rsys:close()
    os.remove(path)
  end)

  it("#14: a counter installed while recording that nobody else enables counts from its install: the adds before the recorder's next sample replay", function()
    local path = tmp_path("udalone.mir")
    local N, LATE = 6, 3
    local live = record(path, N, LATE, true)
    local rsys = mi.replay(path)
    local s2
    for i = 1, N do
      assert.equal(1, core.replay_step(rsys, 1000))
      if i >= LATE then
        if not s2 then s2 = mi.open { system = rsys } assert.is_true(s2:on("global", { "late_orders" }).ok) end
        assert.equal(live[i].late, s2:get("global").late_orders, "late_orders at sample " .. i)
      end
    end
    assert.equal(10 * (3 + 4 + 5 + 6), live[N].late)
    s2:close()
    rsys:close()
    -- verify: one segment, grown once (not two segments)
    local out = run(MISH .. " scripts/verify.lua " .. path .. " --json")
    assert.matches('"segments":1[,}]', out)
    assert.matches('"continued":1[,}]', out)
    out = run(MISH .. " scripts/verify.lua " .. path)
    assert.matches("1 segment%(s%)", out)
    assert.matches("the layout grew 1 time%(s%)", out)
    os.remove(path)
  end)

  it("#14.2: a script reads a user-defined counter by name under mish --replay as it read it live", function()
    local path = tmp_path("ud2.mir")
    local live = record(path, 4, 99)
    local script = tmp_path("ud.lua")
    local f = io.open(script, "w")
    f:write([[
local mi = require("mi")
local s = mi.open{}
assert(s:on("global", {"orders_placed", "work_list"}).ok)
for i = 1, 3 do mi.sleep(1) local g = s:get("global") print(g.orders_placed, g.work_list) end
]])
    f:close()
    local out, ok = run(MISH .. " --replay " .. path .. " " .. script)
    assert.is_true(ok, out)
    local want = {}
    for i = 1, 3 do want[#want + 1] = live[i].g.orders_placed .. "\t" .. live[i].g.work_list end
    assert.equal(table.concat(want, "\n") .. "\n", out)
    os.remove(script)
    os.remove(path)
  end)

  it("#14.2: the recorder's item lists take user-defined names, numbers and userdef:*; a number the system lacks is refused", function()
    local path = tmp_path("ud3.mir")
    local sys = mi.system { workload = "idle", realtime = false, seed = 5 }
    mi.userdef { system = sys, counters = COUNTERS }
    assert.same({ 21177, 29000, 29003 }, mi.record_items({ 21177, "orders_placed", 29003 }, sys))
    assert.same({ -1 }, mi.record_items({ "userdef:*" }, sys))
    local ok, err = pcall(mi.record, { system = sys, path = path, items = { 21177, 29042 } })
    assert.is_false(ok)
    assert.matches("29042 is not a user%-defined counter of this system", err)
    -- a named counter alone: its values recorded, the table whole
    local rec = mi.record { system = sys, path = path, items = { "work_list" }, fsync = "none" }
    sys:advance(1000)
    rec:sample()
    rec:close()
    local r = core.rec_open(path)
    assert.equal("segment", r:next().type)
    assert.equal(5, r:info().udef_count)
    local names = {}
    for _, it in ipairs(r:layout("global")) do names[#names + 1] = it.name end
    r:close()
    assert.same({ "work_list" }, names)
    local rsys = mi.replay(path)
    assert.equal(5, #rsys:udef_items(0))
    rsys:close()
    sys:close()
    os.remove(path)
  end)

  it("#14.2: verify and summary read a version-2 recording with user-defined counters; the version-1 fixture still verifies", function()
    local path = tmp_path("ud4.mir")
    record(path, 4, 3)
    local out, ok = run(MISH .. " scripts/verify.lua " .. path)
    assert.is_true(ok, out)
    assert.matches("format version 2", out)
    out, ok = run(MISH .. " scripts/verify.lua spec/record_v1.mir")
    assert.is_true(ok, out)
    assert.matches("format version 1", out)
    out, ok = run(MISH .. " scripts/summary.lua " .. path .. " --items 'orders_*'")
    assert.is_true(ok, out)
    assert.matches("orders_placed", out)
    os.remove(path)
  end)
end)
