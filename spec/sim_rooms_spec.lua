-- sim_rooms_spec.lua: the rooms of the simulated HP 3000 (issue 18) keep their books: every stop
-- reason counted per process and per processor adds up to the global count, per-class counters
-- add up to their totals, the system's storage is the sum of its processes', queue histograms
-- count every request once, busy time never exceeds elapsed time, items the manual marks not
-- instrumented stay zero, and a seed gives the same counters whatever else is enabled.
local mi = require("mi")

-- A session on a simulated system of workload w with no process ending (no jobs), so that the
-- processes' counters are all still there to add up.
local function session(w, cpus, extra)
  local o = { workload = w, cpus = cpus or 4, seed = 5, jobs = 0 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return mi.open({ system = mi.system(o) })
end

local function sum_field(recs, name)
  local n = 0
  for _, r in ipairs(recs) do n = n + (r[name] or 0) end
  return n
end

local function sum_array(a)
  local n = 0
  for _, v in pairs(a) do n = n + v end
  return n
end

-- The counter items of a domain named like pattern (a Lua pattern), instrumented only.
local function items(domain, pattern)
  local out = {}
  for _, it in ipairs(mi.find("*", domain)) do
    if it.kind ~= "pseudo" and it.instrumented == "yes" and it.name:match(pattern) then out[#out + 1] = it.name end
  end
  return out
end

describe("the simulator's rooms (#18)", function()
  for _, w in ipairs({ "sql", "ipc", "image", "memory-pressure" }) do
    it("counts every stop reason once per process and once per processor as the global count (" .. w .. ")", function()
      local s = session(w)
      local gstops = items("global", "^gmc_stop_")
      local on = { "gmc_pauses" }   -- 21164 brings the processor counters
      for _, n in ipairs(gstops) do on[#on + 1] = n end
      s:on("global", on)
      s:on("process", items("process", "^pmc_stop_"))
      s:advance(120000)
      local g, procs, cpus = s:get("global"), s:get("process"), s:get("processor", items("processor", "^gmc_stop_"))
      local moved = 0
      for _, name in ipairs(gstops) do
        local pname = name:gsub("^gmc_", "pmc_")
        local psum = sum_field(procs, pname)
        local csum = sum_field(cpus, name)
        assert.equal(g[name], psum, name .. " vs the processes' " .. pname)
        assert.equal(g[name], csum, name .. " vs the processors'")
        if g[name] > 0 then moved = moved + 1 end
      end
      assert.is_true(moved >= 12, w .. ": only " .. moved .. " stop reasons moved")
      -- the reasons the global table lacks (SQL latches 5-32, release, pseudo I/O) per processor
      local levels = 0
      for _, name in ipairs(items("processor", "^gmc_stop_sql_latch_level_%d+_wait$")) do
        local lvl = tonumber(name:match("level_(%d+)"))
        if lvl >= 5 then
          assert.equal(sum_field(procs, "pmc_stop_sql_latch_level_" .. lvl .. "_wait"), sum_field(cpus, name), name)
          levels = levels + 1
        end
      end
      assert.equal(28, levels, "SQL latch levels 5-32")
      s:close()
    end)
  end

  it("makes SQL statements wait on locks and latches, and IPC messages on ports and mail", function()
    local s = session("sql")
    s:on("global", { "gmc_stop_sql_lock_wait", "gmc_stop_sql_latch_level_1_wait", "gmc_stop_port_wait", "gmc_ul_startg_trans" })
    s:advance(120000)
    local g = s:get("global")
    assert.is_true(g.gmc_stop_sql_lock_wait > 0 and g.gmc_stop_sql_latch_level_1_wait > 0 and g.gmc_ul_startg_trans > 0)
    s:close()
    local q = session("oltp", 2, { ipc_msgs = 0, sql_stmts = 0, image_calls = 0, file_opens = 0 })
    q:on("global", { "gmc_stop_sql_lock_wait", "gmc_stop_port_wait", "gmc_sm_open_file", "gmc_ul_startg_trans" })
    q:advance(120000)
    local z = q:get("global")
    assert.same({ 0, 0, 0, 0 }, { z.gmc_stop_sql_lock_wait, z.gmc_stop_port_wait, z.gmc_sm_open_file, z.gmc_ul_startg_trans })
    q:close()
  end)

  it("sums the processes' mode switches, directory reads and stop times to the system's", function()
    local s = session("oltp", 2)
    s:on("global", { "gmc_sw2nm_count", "gmc_sw2cm_count", "gmc_sm_open_file", "gmc_stop_quantum_expiration" })
    s:on("process", { "pmc_sw2nm_count", "pmc_sw2cm_count", "pmc_disc_other", "pmc_sm_open_file",
      "pmc_stop_quantum_expiration", "pmt_stop_quantum_expiration" })
    s:advance(120000)
    local g, procs = s:get("global"), s:get("process")
    assert.equal(g.gmc_sw2nm_count, sum_field(procs, "pmc_sw2nm_count"))
    assert.equal(g.gmc_sw2cm_count, sum_field(procs, "pmc_sw2cm_count"))
    -- every open reads the directory and the label: one "other" disc request each; the process
    -- counts an FOPEN four times (root, account, group, file), the system once
    assert.equal(sum_field(procs, "pmc_sm_open_file"), 4 * sum_field(procs, "pmc_disc_other"))
    assert.equal(4 * g.gmc_sm_open_file, sum_field(procs, "pmc_sm_open_file"))
    assert.is_true(g.gmc_sw2nm_count > 0 and g.gmc_sm_open_file > 0)
    s:close()
  end)

  it("preempts only batch processes: without jobs nothing is preempted", function()
    for _, seed in ipairs({ 1, 2, 3, 4, 5, 6, 7, 8 }) do
      local s = mi.open({ system = mi.system({ workload = "oltp", cpus = 2, seed = seed, jobs = 0 }) })
      s:on("global", { "gmc_stop_preemption", "gmc_stop_disc_io_preemption", "gmc_stop_priority_preemption" })
      s:advance(5000)
      local g = s:get("global")
      assert.same({ 0, 0, 0 }, { g.gmc_stop_preemption, g.gmc_stop_disc_io_preemption, g.gmc_stop_priority_preemption })
      s:close()
    end
  end)

  it("keeps the system's storage, virtual memory and objects the sums of its processes'", function()
    local s = session("oltp", 2)
    local classes = { "temp_data", "perm_data", "nm_stack", "nm_code", "file_object", "nm_sys_lib", "cm_code" }
    local g, p = {}, {}
    for _, c in ipairs(classes) do
      g[#g + 1] = "gmc_cur_sec_storage_" .. c; g[#g + 1] = "gmc_cur_virt_mem_" .. c
      p[#p + 1] = "pmc_cur_sec_storage_" .. c; p[#p + 1] = "pmc_cur_virt_mem_" .. c
    end
    s:on("global", g)
    s:on("process", p)
    s:advance(30000)   -- levels enabled now are filled in within a second
    local gv, procs = s:get("global"), s:get("process")
    for _, c in ipairs(classes) do
      assert.equal(gv["gmc_cur_sec_storage_" .. c], sum_field(procs, "pmc_cur_sec_storage_" .. c), c)
      assert.equal(gv["gmc_cur_virt_mem_" .. c], sum_field(procs, "pmc_cur_virt_mem_" .. c), c)
    end
    assert.is_true(gv.gmc_cur_sec_storage_nm_code > 0)
    s:close()
  end)

  it("adds page faults by class up to the processes' and memory-manager fetches per processor to the global", function()
    local s = session("memory-pressure", 2)
    s:on("global", { "gmc_page_flt_count_objcl_", "gmc_mem_mgr_sys_fetch", "gmc_mem_mgr_swapin", "gmc_mem_mgr_tos_trap",
      "gmc_pauses" })
    s:on("process", { "pmc_pg_fault_objcl_" })
    s:advance(60000)
    local g, procs = s:get("global"), s:get("process")
    local cpus = s:get("processor", { "gmc_mem_mgr_sys_fetch_ics", "gmc_mem_mgr_swapin_ics", "gmc_mem_mgr_tos_trap_ics" })
    local psum = 0
    for _, r in ipairs(procs) do psum = psum + sum_array(r.pmc_pg_fault_objcl_) end
    assert.equal(sum_array(g.gmc_page_flt_count_objcl_), psum)
    assert.equal(g.gmc_mem_mgr_sys_fetch, sum_field(cpus, "gmc_mem_mgr_sys_fetch_ics"))
    assert.equal(g.gmc_mem_mgr_swapin, sum_field(cpus, "gmc_mem_mgr_swapin_ics"))
    assert.equal(g.gmc_mem_mgr_tos_trap, sum_field(cpus, "gmc_mem_mgr_tos_trap_ics"))
    assert.is_true(g.gmc_mem_mgr_swapin > 0, "memory over 80% in use swaps")
    s:close()
  end)

  it("counts each disc request once in each of the volume histograms", function()
    local s = session("disk", 2)
    local depth = items("io", "^imc_vdm_q_depth_") ; table.remove(depth) -- the last is the maximum
    local rq, wq = items("io", "^imc_vdm_read_q_wait_"), items("io", "^imc_vdm_write_q_wait_")
    local rs, ws = items("io", "^imc_vdm_read_service_"), items("io", "^imc_vdm_write_service_")
    local all = { "imc_completed_io", "imc_completed_read", "imc_completed_write" }
    for _, l in ipairs({ depth, rq, wq, rs, ws }) do for _, n in ipairs(l) do all[#all + 1] = n end end
    s:on("io", all, { ldev = "all" })
    s:advance(60000)
    local seen = 0
    for _, r in ipairs(s:get("io")) do
      local function total(l) local n = 0 for _, k in ipairs(l) do n = n + r[k] end return n end
      assert.equal(r.imc_completed_io, total(depth), "depth, ldev " .. r.ldev)
      assert.equal(r.imc_completed_read, total(rq), "read waits, ldev " .. r.ldev)
      assert.equal(r.imc_completed_write, total(wq), "write waits, ldev " .. r.ldev)
      assert.equal(r.imc_completed_read, total(rs), "read service, ldev " .. r.ldev)
      assert.equal(r.imc_completed_write, total(ws), "write service, ldev " .. r.ldev)
      seen = seen + r.imc_completed_io
    end
    assert.is_true(seen > 0)
    s:close()
  end)

  it("keeps every processor's busy time within the elapsed time under memory pressure", function()
    local s = session("memory-pressure", 2)
    s:on("global", { "gmc_pauses", "gmt_paused" })
    local names = { "gmt_idle", "gmt_mem_mgr_replenish_critical_pool_ics", "gmt_mem_mgr_sys_fetch_ics",
      "gmt_mem_mgr_swapin_ics", "gmt_mem_mgr_tos_trap_ics", "gmt_dispatcher_ics", "gmt_external_ics",
      "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }
    local before, gb = s:get("processor", names), s:get("global")
    s:advance(20000)
    local after, ga = s:get("processor", names), s:get("global")
    local all = mi.delta(ga.gmt_paused, gb.gmt_paused)   -- (a CPU's paused time is in no processor item)
    for cpu = 1, 2 do
      local total = 0
      for _, n in ipairs(names) do total = total + mi.delta(after[cpu][n], before[cpu][n]) end
      all = all + total
      assert.is_true(total <= 20000 * 8 + #names, "cpu " .. cpu .. ": " .. total)
      assert.is_true(after[cpu].gmt_mem_mgr_replenish_critical_pool_ics > 0, "memory over 90% in use replenishes")
    end
    assert.is_true(math.abs(2 * 20000 * 8 - all) <= 2 * #names + 1, "the CPUs' states and paused: " .. all)
    s:close()
  end)

  it("leaves every item the manual marks not instrumented at zero in every built-in workload", function()
    for _, w in ipairs(mi.workloads()) do
      local s = mi.open({ system = mi.system({ workload = w, cpus = 2, seed = 3 }) })
      s:on("global", "*")
      s:on("process", "*")
      s:advance(60000)
      local g, gn, pn = s:get("global"), 0, 0
      for _, it in ipairs(mi.find("*", "global")) do
        if it.kind ~= "pseudo" and it.instrumented ~= "yes" then
          local v = g[it.name]
          if type(v) == "table" then v = sum_array(v) end
          assert.equal(0, v or 0, w .. ": " .. it.name)
          gn = gn + 1
        end
      end
      local procs = s:get("process")
      for _, r in ipairs(procs) do
        for _, it in ipairs(mi.find("*", "process")) do
          if it.kind ~= "pseudo" and it.instrumented ~= "yes" then assert.equal(0, r[it.name] or 0, w .. ": " .. it.name); pn = pn + 1 end
        end
      end
      assert.is_true(gn > 0 and #procs > 0 and pn > 0, w .. ": global items, processes and process items checked")
      s:close()
    end
  end)

  it("gives the CS queue a quantum of the transactions' average CPU within CS_QUANTUM_MIN..MAX", function()
    local function expiries(lo, hi)
      local s = session("oltp", 1, { txn_cpu_ms = 50, txn_ios = 0, sessions = 8, think_ms = 1000 })
      s:put({ CS_QUANTUM_MIN = lo, CS_QUANTUM_MAX = hi })
      s:on("global", { "gmc_stop_quantum_expiration" })
      s:advance(60000)
      local n = s:get("global").gmc_stop_quantum_expiration
      s:close()
      return n
    end
    -- a 2 s maximum: the quantum is the ~50 ms average, and a third of the bursts outlast it;
    -- a 1 s minimum: none do
    local short, long = expiries(10, 2000), expiries(1000, 2000)
    assert.is_true(short > 20 and short > 10 * long, short .. " vs " .. long)
  end)

  it("runs the same model whether anybody watches it or not", function()
    local function run(watch)
      local sys = mi.system({ workload = "memory-pressure", cpus = 2, seed = 8 })
      local s = mi.open({ system = sys })
      if watch then s:on("global", "*") s:on("process", "*") s:on("io", "*", { ldev = "all" }) end
      s:advance(60000)
      local out = { sys:info().transactions, sys:info().processes }
      s:close()
      return out
    end
    assert.same(run(true), run(false))
  end)

  it("gives the same counters for a seed whatever else is enabled", function()
    local names = { "gmc_sm_read_count", "gmc_sl_log_writes", "gmc_vpn_cache_dummy", "gmc_stop_port_wait",
      "gmc_ipc_transfer_to_ics", "gmc_mem_ko_insert" }
    names[3] = "gmc_ppf_hits_vpn_cache"
    local function run(all)
      local s = session("memory-pressure", 2)
      s:on("global", all and "*" or names)
      if all then s:on("process", "*") end
      s:advance(45000)
      local g = s:get("global")
      local out = {}
      for _, n in ipairs(names) do out[n] = g[n] end
      s:close()
      return out
    end
    local few, many = run(false), run(true)
    assert.same(many, few)
    assert.is_true(few.gmc_sm_read_count > 0 and few.gmc_ppf_hits_vpn_cache > 0)
  end)
end)
