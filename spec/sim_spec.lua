-- sim_spec.lua: the simulated HP 3000 keeps its books: CPU time adds up, per-class
-- arrays sum to totals, transactions are counted once, and it is deterministic.
local mi = require("mi")

local function sum(t) local n = 0 for _, v in ipairs(t) do n = n + v end return n end

describe("the simulated system", function()
  it("accounts every processor's time (Appendix I view)", function()
    local s, sys = H.session({ cpus = 4 })
    s:on("global", { "gmc_pauses", "gmt_paused" })
    local items = { "gmt_idle", "gmt_mem_mgr_replenish_critical_pool_ics", "gmt_mem_mgr_sys_fetch_ics",
      "gmt_mem_mgr_swapin_ics", "gmt_mem_mgr_tos_trap_ics", "gmt_dispatcher_ics", "gmt_external_ics",
      "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }
    local before, gb = s:get("processor", items), s:get("global")
    s:advance(10000)
    local after, ga = s:get("processor", items), s:get("global")
    -- each CPU's states within 10 s (MI_Time units of 125 us; each of the 12 values is rounded on
    -- its own); what is missing is its paused time (idle and paused exclude each other)
    local all = mi.delta(ga.gmt_paused, gb.gmt_paused)
    for cpu = 1, 4 do
      local total = 0
      for _, name in ipairs(items) do total = total + mi.delta(after[cpu][name], before[cpu][name]) end
      assert.is_true(total <= 10000 * 8 + #items, "cpu " .. cpu .. ": " .. total)
      all = all + total
    end
    assert.is_true(math.abs(4 * 10000 * 8 - all) <= 4 * #items + 1, "the CPUs' states and paused: " .. all)
    assert.equal(4, #after)   -- the configured processors; an unconfigured one reads 0 when asked for
    for cpu = 4, 7 do assert.equal(0, s:get("processor", items, { cpu = cpu })[1].gmt_idle) end
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

  it("spends every moment at one ready-queue length (21095-21102)", function()
    local s = H.session({ cpus = 1, workload = "oltp" })
    local names = { "gmt_ready_q_0", "gmt_ready_q_1", "gmt_ready_q_2", "gmt_ready_q_4", "gmt_ready_q_8",
      "gmt_ready_q_16", "gmt_ready_q_32", "gmt_ready_q_over_32" }
    s:on("global", names)
    s:advance(10000)
    local v, total, used = s:get("global"), 0, 0
    for _, n in ipairs(names) do total = total + v[n]; used = used + (v[n] > 0 and 1 or 0) end
    -- 10 s in MI_Time units of 125 us; each value rounded down on its own
    assert.is_true(math.abs(10000 * 8 - total) <= #names, "total " .. total)
    assert.is_true(used >= 2, "a busy CPU sees more than one queue length")
    s:close()
  end)

  it("counts ready-queue entries and the time spent waiting in it", function()
    local s = H.session({ workload = "oltp" })
    s:on("global", { "gmc_cum_ready_queue", "gmt_cum_request_secs", "gmc_pauses" })
    s:on("process", { "pmt_ready_queue" })
    s:advance(10000)
    local g = s:get("global")
    local wait, launches = 0, 0
    for _, r in ipairs(s:get("process")) do wait = wait + r.pmt_ready_queue end
    for _, c in ipairs(s:get("processor", { "gmc_launches" })) do launches = launches + c.gmc_launches end
    -- every wait is booked to the process and to the system; each process value is rounded down
    assert.is_true(g.gmt_cum_request_secs >= wait and g.gmt_cum_request_secs - wait <= 200,
      g.gmt_cum_request_secs .. " vs " .. wait)
    assert.is_true(g.gmc_cum_ready_queue > 0)
    -- a process enters the queue once and may be launched several times (quantum, preemption)
    assert.is_true(g.gmc_cum_ready_queue <= launches + 200, g.gmc_cum_ready_queue .. " vs " .. launches)
    s:close()
  end)

  it("counts blocked processes where they wait: disc, other devices, children, timers", function()
    local s = H.session({ workload = "oltp" })
    s:on("global", { "gmc_cur_blk_disc_io", "gmc_cur_blk_io_other", "gmc_cur_blk_child_wait",
      "gmc_cur_blk_timer_wait", "gmc_cur_blk_trm_read" })
    s:on("io", { "imc_q_current" }, { ldev = "all" })
    s:on("process", { "process_type", "pid_state" })
    local seen = { other = 0, timer = 0 }
    for _ = 1, 60 do
      s:advance(250)
      local g = s:get("global")
      local disc, other = 0, 0
      for _, r in ipairs(s:get("io")) do
        if r.type == "disk" then disc = disc + r.imc_q_current else other = other + r.imc_q_current end
      end
      assert.equal(disc, g.gmc_cur_blk_disc_io)
      assert.equal(0, other)   -- 23034 is a disc's queue: a tape's or printer's waiters are in 21113 only
      local parents = 0
      for _, r in ipairs(s:get("process")) do
        -- a session's CI waits for its program (JSMAIN is a system process here, with duties)
        if r.pid_state == 0 and r.process_type == 2 then parents = parents + 1 end
      end
      assert.equal(parents, g.gmc_cur_blk_child_wait)
      if g.gmc_cur_blk_io_other > 0 then seen.other = seen.other + 1 end
      if g.gmc_cur_blk_timer_wait > 0 then seen.timer = seen.timer + 1 end
    end
    assert.is_true(seen.other > 0, "a job waits on its printer or tape now and then")
    assert.is_true(seen.timer > 0, "system processes pause between duties")
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
