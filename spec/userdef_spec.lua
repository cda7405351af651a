-- userdef_spec.lua: #14.2 — user-defined counters (NonStop Measure's USERDEF): mi.userdef
-- installs them in a system, they join its catalog, every GET reads them, and a second mish
-- process attached to a shared store sees them.
local mi = require("mi")

local tmp_path, run = H.tmp_path, H.run   -- spec/helpers.lua

local function new_sys() return mi.system { workload = "idle", realtime = false, seed = 3 } end

describe("#14.2 user-defined counters", function()
  it("install, join the catalog (mi.item, mi.find, mi.describe) and read through s:get like built-in items", function()
    local sys = new_sys()
    local u = mi.userdef { system = sys, counters = {
      { name = "orders_placed", kind = "accum", unit = "orders", help = "orders the shop placed" },
      { name = "bytes_out", kind = "faccum" },
      { name = "worker_busy", kind = "busy" },
      { name = "work_list", kind = "queue", help = "items waiting" },
      { name = "server", kind = "qbusy" },
      { name = "sizes", kind = "accum", elements = 3 } } }
    assert.equal(29000, u.orders_placed.item)
    assert.equal("accum", u.orders_placed.kind)
    assert.equal("orders_placed", u.orders_placed.name)
    assert.equal(29003, mi.item("work_list").item)
    assert.equal("work_list", mi.item(29003).name)
    assert.equal(1, #mi.find("orders_*"))
    assert.truthy(mi.describe("orders_placed"):find("user%-defined global accum counter %(orders%): orders the shop placed"))
    local done = false
    for _, w in ipairs(require("mi.shell").complete("orders_p", {})) do done = done or w == "orders_placed" end
    assert.is_true(done, "the shell completes the counter's name")
    local s = mi.open { system = sys }
    assert.is_true(s:on("global", { "orders_placed", "bytes_out", "worker_busy", "work_list", "server", "sizes" }).ok)
    u.orders_placed:add(3)
    u.orders_placed:add()
    u.bytes_out:add(1 << 40)
    u.worker_busy:set(1)
    u.work_list:set(4)
    u.server:set(2)
    u.sizes:add_at(3, 9)
    sys:advance(1000)            -- 8000 MI_Time units
    u.worker_busy:set(0)
    sys:advance(500)
    local g = s:get("global")
    assert.equal(4, g.orders_placed)
    assert.equal(4, g[29000])
    assert.equal(1 << 40, g.bytes_out)
    assert.equal(8000, g.worker_busy)
    assert.equal(4 * 12000, g.work_list)
    assert.same({ 12000, 2 * 12000 }, g.server)
    assert.same({ 0, 0, 9 }, g.sizes)
    assert.equal(4, u.orders_placed:value())
    s:close()
    sys:close()
  end)

  it("the manual's calls (mi.literal MIGLOBON/MIGLOBGET) read them by number", function()
    local sys = new_sys()
    local u = mi.userdef { system = sys, counters = { { name = "lit_ctr" } } }
    local L = mi.literal
    local raw = L.session(sys)
    L.GETPRIVMODE(raw); L.AIFGLOBINSTALL(raw, 666); L.AIFACCESSON(raw, 666)
    local rc = L.MIGLOBON(raw, { u.lit_ctr.item, 0 }, 1, 0)
    assert.equal(0, rc)
    u.lit_ctr:add(17)
    local rc2, _, vals = L.MIGLOBGET(raw, { u.lit_ctr.item, 0 }, 1, 0)
    assert.equal(0, rc2)
    assert.equal(17, vals[1])
    raw:close()
    sys:close()
  end)

  it("a per-process counter is read by s:get('process') for the process it was bumped for", function()
    local sys = new_sys()
    local u = mi.userdef { system = sys, counters = { { name = "p_orders", per_process = true } } }
    assert.equal("process", mi.item("p_orders").domain)
    local s = mi.open { system = sys }
    assert.is_true(s:on("process", { "p_orders" }).ok)
    local pid = s:get("process")[1].pid
    u.p_orders:add(6, pid)
    local found
    for _, r in ipairs(s:get("process")) do if r.pid == pid then found = r.p_orders end end
    assert.equal(6, found)
    assert.error_matches(function() u.p_orders:add(1) end, "bad argument")
    assert.error_matches(function() u.p_orders:add(1, 99999999) end, "no process with pid")
    s:close()
    sys:close()
  end)

  it("a GET of a counter's number before it was installed reads it once installed (the query re-plans)", function()
    local sys = new_sys()
    local s = mi.open { system = sys }
    local st = s:on("global", { 21177, 29000 })
    assert.equal(-20006, st.items[2])
    s:off("global")
    local u = mi.userdef { system = sys, counters = { { name = "late" } } }
    assert.is_true(s:on("global", { 21177, 29000 }).ok)
    u.late:add(2)
    assert.equal(2, s:get("global").late)
    s:close()
    sys:close()
  end)

  it("bad input gives a clear error naming the counter and field, or the status", function()
    local sys = new_sys()
    local function err(opts) local ok, e = pcall(mi.userdef, opts); assert.is_false(ok); return e end
    assert.truthy(err("x"):find("table expected"))
    assert.truthy(err { system = sys }:find("counters must be a non%-empty list"))
    assert.truthy(err { system = sys, counters = {}, colour = 1 }:find("unknown option 'colour'"))
    assert.truthy(err { system = 5, counters = { { name = "a" } } }:find("system must be a system"))
    assert.truthy(err { system = sys, counters = { { kind = "accum" } } }:find("field 'name' is required"))
    assert.truthy(err { system = sys, counters = { { name = "a", kind = "gauge" } } }:find("counter 1 %(a%): kind must be accum, faccum, busy, queue or qbusy, got 'gauge'"))
    assert.truthy(err { system = sys, counters = { { name = "a", kinds = "accum" } } }:find("unknown field 'kinds'"))
    assert.truthy(err { system = sys, counters = { { name = "a", per_process = "yes" } } }:find("field 'per_process' must be a boolean"))
    assert.truthy(err { system = sys, counters = { { name = "a", elements = 1.5 } } }:find("field 'elements' must be an integer"))
    assert.truthy(err { system = sys, counters = { { name = "9lives" } } }:find("%-32401 USERDEF_NAME"))
    assert.truthy(err { system = sys, counters = { { name = "gmt_idle" } } }:find("%-32402 USERDEF_DUPLICATE"))
    assert.truthy(err { system = sys, counters = { { name = "big", elements = 257 } } }:find("%-32405 USERDEF_ELEMENTS"))
    assert.truthy(err { system = sys, counters = { { name = "qa", kind = "queue", elements = 2 } } }:find("%-32405"))
    assert.truthy(err { system = sys, counters = { { name = "h", help = string.rep("x", 128) } } }:find("%-32407 USERDEF_TEXT"))
    assert.truthy(err { system = sys, counters = { 42 } }:find("counter 1: a table or a name expected"))
    assert.truthy(err { system = sys, counters = { "nosuch" } }:find("no user%-defined counter named 'nosuch'"))
    mi.userdef { system = sys, counters = { { name = "twice" } } }
    assert.truthy(err { system = sys, counters = { { name = "TWICE" } } }:find("counter 1 %(TWICE%): %-32402"))
    local again = mi.userdef { system = sys, counters = { "twice" } }
    assert.equal(29000, again.twice.item)
    local list = {}
    for i = 1, 90 do list[i] = { name = "c" .. i } end
    assert.truthy(err { system = sys, counters = list }:find("counter 85 %(c85%): %-32404 USERDEF_TOO_MANY"))
    assert.equal(85, sys:udef_count())
    local c = mi.userdef { system = sys, counters = { "c1" } }.c1
    sys:close()
    assert.error_matches(function() c:add(1) end, "system is closed")
  end)

  it("a second mish process attached to the store sees, describes and reads the counters (mish --attach)", function()
    local path = tmp_path("udef")
    local sys = mi.system { workload = "idle", realtime = false, share = path }
    local u = mi.userdef { system = sys, counters = {
      { name = "orders_placed", help = "orders the shop placed" }, { name = "work_list", kind = "queue" } } }
    local owner = mi.open { system = sys }
    assert.is_true(owner:on("global", { "orders_placed", "work_list" }).ok)
    u.orders_placed:add(41)
    u.work_list:set(3)
    sys:advance(1000)
    local out, ok = run("lua/mish --attach-rw " .. path .. " -e " ..
      "'print(mi.describe(\"orders_placed\")); print(#mi.find(\"work_*\")); s:on(\"global\", {\"orders_placed\", \"work_list\"}); " ..
      "local g = s:get(\"global\"); print(\"orders=\" .. g.orders_placed, \"queue=\" .. g.work_list); " ..
      "local mine = mi.userdef{counters = {{name = \"from_reader\", kind = \"faccum\"}}}; print(\"installed=\" .. mine.from_reader.item)'")
    assert.is_true(ok, out)
    assert.truthy(out:find("29000 orders_placed: user%-defined global accum counter: orders the shop placed"), out)
    assert.truthy(out:find("\n1\n", 1, true), out)
    assert.truthy(out:find("orders=41\tqueue=24000", 1, true), out)
    assert.truthy(out:find("installed=29002", 1, true), out)
    assert.equal("from_reader", mi.item(29002).name)   -- the owner sees what the attached process installed
    owner:close()
    sys:close()
    os.remove(path)
  end)
end)
