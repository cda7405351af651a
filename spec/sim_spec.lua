-- sim_spec.lua: the simulated HP 3000 keeps its books: CPU time adds up, per-class
-- arrays sum to totals, transactions are counted once, and it is deterministic.
local mi = require("mi")

local function sum(t) local n = 0 for _, v in ipairs(t) do n = n + v end return n end

describe("the simulated system", function()
  it("accounts every processor's time (Appendix I view)", function()
    local s, sys = H.session({ cpus = 4 })
    s:on("global", { "gmc_pauses" })
    local items = { "gmt_idle", "gmt_mem_mgr_replenish_critical_pool_ics", "gmt_mem_mgr_sys_fetch_ics",
      "gmt_mem_mgr_swapin_ics", "gmt_mem_mgr_tos_trap_ics", "gmt_dispatcher_ics", "gmt_external_ics",
      "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }
    local before = s:get("processor", items)
    s:advance(10000)
    local after = s:get("processor", items)
    for cpu = 1, 4 do
      local total = 0
      for _, name in ipairs(items) do total = total + mi.delta(after[cpu][name], before[cpu][name]) end
      -- 10 s in MI_Time units of 125 us; each of the 12 values is rounded down on its own
      assert.is_true(math.abs(10000 * 8 - total) <= #items, "cpu " .. cpu .. ": " .. total)
    end
    for cpu = 5, 8 do assert.equal(0, after[cpu].gmt_idle) end
    s:close()
  end)

  it("gives testmiaif1 a breakdown with ICS never negative on one CPU", function()
    local s = H.session({ cpus = 1, workload = "oltp" })
    local names = { "gmt_paused", "gmt_idle", "gmt_mem_mgr_sys_fetch", "gmt_mem_mgr_swapin", "gmt_mem_mgr_tos_trap",
      "gmt_disp_act", "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }
    s:on("global", names)
    local prev = s:get("global")
    for _ = 1, 20 do
      s:advance(1000)
      local cur = s:get("global")
      local d, acc = mi.delta(cur, prev), 0
      for _, n in ipairs(names) do acc = acc + d[n] end
      assert.is_true(acc <= 8000, "accounted " .. acc)
      assert.is_true(8000 - acc >= 0)
      prev = cur
    end
    s:close()
  end)

  it("charges global CPU time to processes", function()
    local s = H.session()
    s:on("global", { "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" })
    s:on("process", { "pmt_process_time" })
    s:advance(5000)
    local g = s:get("global")
    local p = s:get("process")
    local total = 0
    for _, r in ipairs(p) do total = total + r.pmt_process_time end
    local cpu = g.gmt_as_process + g.gmt_bs_process + g.gmt_cs_process + g.gmt_ds_process + g.gmt_es_process
    -- each value is rounded down to MI_Time on its own
    assert.is_true(math.abs(cpu - total) <= #p + 5, cpu .. " vs " .. total)
    s:close()
  end)

  it("sums per-device disk reads to the processes' reads and classes to totals", function()
    local s = H.session({ workload = "disk" })
    s:on("io", { "imc_completed_read", "imc_read_objcl_" }, { ldev = "disk" })
    s:on("process", { "pmc_disc_read", "pmc_disc_read_objcl_" })
    s:advance(8000)
    local dev, proc = 0, 0
    for _, r in ipairs(s:get("io")) do
      dev = dev + r.imc_completed_read
      assert.equal(r.imc_completed_read, sum(r.imc_read_objcl_))
    end
    for _, r in ipairs(s:get("process")) do
      proc = proc + r.pmc_disc_read
      assert.equal(r.pmc_disc_read, sum(r.pmc_disc_read_objcl_))
    end
    assert.is_true(dev > 0)
    assert.equal(dev, proc)
    s:close()
  end)

  it("counts every completed transaction once in the response histogram", function()
    local s, sys = H.session()
    s:on("global", "gmc_response_*")
    local t0 = sys:info().transactions
    s:advance(20000)
    local v = s:get("global")
    local n = 0
    for _, it in ipairs(mi.find("gmc_response_*")) do n = n + v[it.name] end
    assert.equal(sys:info().transactions - t0, n)
    assert.is_true(n > 0)
    s:close()
  end)

  it("is deterministic for the same seed and calls", function()
    local function run()
      local s = H.session({ seed = 99 })
      s:on("global", { "gmt_idle", "gmt_cs_process", "gmc_stop_disc_io" })
      s:advance(7000)
      local v = s:get("global")
      s:close()
      return v
    end
    assert.same(run(), run())
  end)

  it("obeys the job fence", function()
    local s = H.session({ workload = "batch" })
    s:put({ JOB_FENCE = 14 })
    s:advance(3000)
    local before = s:config("JOB_COUNT").JOB_COUNT
    s:advance(600000)
    assert.is_true(s:config("JOB_COUNT").JOB_COUNT <= before)
    s:put({ JOB_FENCE = 0 })
    s:advance(2000)
    assert.is_true(s:config("JOB_COUNT").JOB_COUNT > 0)
    s:close()
  end)
end)
