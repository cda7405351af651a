-- workload_spec.lua: workloads are data (built-ins from core/catalog/workloads.tsv, tables,
-- files), their fields are checked, and configuration PUTs steer what the model does next.
local mi = require("mi")

local function tmpfile(text)
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

describe("workloads", function()
  it("lists the built-ins with every field", function()
    assert.same({ "idle", "oltp", "batch", "memory", "disk", "image", "sql", "ipc", "memory-pressure" }, mi.workloads())
    local w = mi.workload("oltp")
    assert.equal("oltp", w.name)
    assert.equal(32, w.sessions)
    assert.equal("exponential", w.think_dist)
    assert.is_true(#mi.workload_fields() >= 10)
    for _, f in ipairs(mi.workload_fields()) do
      assert.is_not_nil(w[f.name], f.name)
      assert.is_true(f.min <= f.max)
      assert.is_string(f.about)
    end
  end)

  it("builds a system from a table that overrides a built-in", function()
    local sys = mi.system({ workload = "idle", cpus = 3, sessions = 5, seed = 9 })
    local info = sys:info()
    assert.equal(3, info.cpus)
    assert.equal("idle", info.workload.name)
    assert.equal(5, info.workload.sessions)
    assert.equal(5 * 2 + 7, info.processes)  -- CI + user per session, seven system processes
  end)

  it("loads a workload file and names it after the file", function()
    local path = tmpfile("return { base = 'oltp', sessions = 3, jobs = 0, cpus = 1, think_dist = 'constant' }")
    local w = mi.workload(path)
    assert.equal(3, w.sessions)
    assert.equal(path:match("([^/]+)%.lua$"), w.name)
    local sys = mi.system({ workload = path, seed = 1 })
    assert.equal(1, sys:info().cpus)
    assert.equal(3 * 2 + 7, sys:info().processes)
    os.remove(path)
  end)

  it("reports bad workload files and fields clearly", function()
    local bad = tmpfile("return 42")
    assert.has_error(function() mi.workload(bad) end, "workload file " .. bad .. " must return a table, got number")
    os.remove(bad)
    local syntax = tmpfile("return {")
    assert.has_error(function() mi.workload(syntax) end)
    os.remove(syntax)
    assert.has_error(function() mi.workload("no-such-workload") end,
      "unknown workload 'no-such-workload' (built-in: idle, oltp, batch, memory, disk, image, sql, ipc, memory-pressure; or a .lua file)")
    assert.has_error(function() mi.system({ cpus = 9 }) end, "workload field 'cpus' must be an integer in 1..8, got 9")
    assert.has_error(function() mi.system({ sesions = 4 }) end, "unknown workload field 'sesions' (see mi.workload_fields())")
    assert.has_error(function() mi.system({ think_dist = "normal" }) end,
      "workload field 'think_dist': unknown distribution 'normal' (exponential, constant, uniform)")
    -- campaign finding (spec/fuzz/regress/lua_workload/service-dist-given-as-a-number): 0.0 ran exponential
    assert.has_error(function() mi.system({ service_dist = 0.0 }) end,
      "workload field 'service_dist': distribution name expected (exponential, constant, uniform), got number")
    -- campaign finding 10 (regress/lua_workload/distribution-name-with-a-nul): "uniform\0..." ran uniform
    assert.has_error(function() mi.system({ think_dist = "uniform\0\0\4" }) end)
    local numbered = tmpfile("return { base = 'oltp', think_dist = 2 }")
    assert.has_error(function() mi.system({ workload = numbered }) end)
    os.remove(numbered)
    assert.has_error(function() mi.system({ disk_ms = 0 }) end)
    assert.has_error(function() mi.workload(12) end)
  end)

  it("draws constant think times exactly", function()
    local sys = mi.system({ workload = "oltp", think_ms = 2500, think_dist = "constant", seed = 3 })
    local s = mi.open({ system = sys })
    local names = {}
    for i = 0, 9 do names[#names + 1] = 21020 + i end
    s:on("global", names)
    s:advance(60000)
    local g = s:get("global", names)
    local total = 0
    for _, n in ipairs(names) do total = total + g[n] end
    assert.is_true(total > 100)
    assert.equal(total, g[21022], "every think time falls in the 2-3 s bucket")
    s:close()
  end)

  it("follows a session limit PUT: logons stop at the limit", function()
    local function count(limit)
      local s = mi.open({ system = mi.system({ workload = "idle", sessions = 200, seed = 4 }) })
      local first = s:config("SESSION_COUNT").SESSION_COUNT   -- logons ramp at 50 a second
      if limit then s:put({ SESSION_LIMIT = limit }) end
      s:advance(10000)
      local n = s:config("SESSION_COUNT").SESSION_COUNT
      s:close()
      return first, n
    end
    local first, all = count(nil)
    assert.equal(50, first)
    assert.equal(200, all)
    local _, capped = count(80)
    assert.equal(80, capped)
  end)

  it("uses the DS quantum PUT: a shorter quantum expires more often", function()
    local function expiries(q)
      local sys = mi.system({ workload = "batch", seed = 5, job_cpu_ms = 500 })
      local s = mi.open({ system = sys })
      s:put({ DS_QUANTUM = q })
      s:on("global", { 21202 })
      s:advance(20000)
      local n = s:get("global", { 21202 })[21202]
      s:close()
      return n
    end
    local short, long = expiries(10), expiries(5000)
    assert.is_true(short > 10 * math.max(long, 1), short .. " vs " .. long)
  end)
end)

describe("the coverage report", function()
  it("in the repo is what the simulator drives today (regenerate with `make coverage`)", function()
    local out = os.tmpname()
    local ok = os.execute("./lua/mish scripts/coverage.lua --out " .. out .. " > /dev/null")
    assert.is_true(ok, "coverage.lua failed (a not-instrumented item became non-zero?)")
    local function read(p) local f = assert(io.open(p)) local t = f:read("a") f:close() return t end
    local fresh, kept = read(out), read("core/catalog/COVERAGE-sim.md")
    os.remove(out)
    assert.is_true(fresh == kept, "core/catalog/COVERAGE-sim.md is stale: run `make coverage`")
    -- every family the simulator promises shows up as driven
    for _, name in ipairs({ "gmt_cs_process", "gmt_bs_process", "gmc_response_to_1", "imc_completed_read", "imc_swaplist_read",
      "gmc_page_flt_count_objcl_", "gmc_prefetch_count_objcl_", "gmc_post_count_objcl_", "gmc_semcl_que_1_3",
      "gmc_sw2cm_count", "gmt_cm_time", "pmt_process_time", "imc_q_depth_0", "gmc_launches" }) do
      assert.is_truthy(fresh:find("| " .. name .. " | [%a_]+ | yes | %a+ |"), name .. " not driven")
    end
  end)
end)
