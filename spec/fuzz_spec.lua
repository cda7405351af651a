-- fuzz_spec.lua: random calls with random arguments never crash the process; a refused call raises
-- a message, and the system keeps its books afterwards.
local mi = require("mi")
local core = require("mi.core")

describe("random calls", function()
  it("survive a few thousand iterations", function()
    math.randomseed(12345)
    local sys = core.system({ workload = "oltp", seed = 3 })
    local sessions = { core.session(sys), core.session(sys) }
    local values = { 0, -1, 1, 2, 3, 7, -20006, 21176, 21164, 25047, 23048, 27006, 20001, 20020, 3001, 3015,
      2 ^ 31, -2 ^ 31, 1e300, "x", "", {}, { 21176, 0 }, { 25047 }, { 23050, 20020 }, { 3001 }, { 3015 },
      { "a" }, { 1.5 }, true, false, nil, function() end }
    local fns = {}
    for k, f in pairs(core) do if type(f) == "function" and k ~= "system" and k ~= "sleep" then fns[#fns + 1] = f end end
    local friendly = { "on", "off", "get", "config", "put", "time" }
    local S = mi.open({ system = sys })
    local domains = { "global", "process", "io", "processor", "x", 5 }
    local accepted, refused, unclear = 0, 0, {}
    -- Calls f with the arguments under pcall; counts the outcome (a refusal must carry a message).
    local function try(f, ...)
      local ok, err = pcall(f, ...)
      if ok then accepted = accepted + 1
      else
        refused = refused + 1
        if type(err) ~= "string" or err == "" then unclear[#unclear + 1] = tostring(err) end
      end
    end
    for i = 1, 4000 do
      local args = {}
      local n = math.random(0, 6)
      if math.random() < 0.8 then args[1] = sessions[math.random(#sessions)] end
      for k = #args + 1, n do args[k] = values[math.random(#values)] end
      try(fns[math.random(#fns)], table.unpack(args, 1, n))
      if i % 3 == 0 then
        local m = friendly[math.random(#friendly)]
        try(S[m], S, domains[math.random(#domains)], values[math.random(#values)], values[math.random(#values)])
      end
      if i % 500 == 0 then sys:advance(100) end
      if i % 997 == 0 then sessions[1]:close(); sessions[1] = core.session(sys) end
    end
    for _, s in ipairs(sessions) do s:close() end
    S:close()
    assert.is_true(accepted > 0 and refused > 0, "the calls reached the functions: " .. accepted .. " accepted, " .. refused .. " refused")
    assert.same({}, unclear, "every refusal is an error message")
    -- the system still keeps its books (core/sim/BOOKS.md §1): each processor's states fill at
    -- most an interval of 2 s, and with the paused time (21176) they fill the CPUs' 2 s exactly
    local t = mi.open({ system = sys })
    local items = { "gmt_idle", "gmt_mem_mgr_replenish_critical_pool_ics", "gmt_mem_mgr_sys_fetch_ics",
      "gmt_mem_mgr_swapin_ics", "gmt_mem_mgr_tos_trap_ics", "gmt_dispatcher_ics", "gmt_external_ics",
      "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }
    assert.is_true(t:on("global", { "gmc_pauses", "gmt_paused" }).ok)   -- processor items follow gmc_pauses
    local before, gb = t:get("processor", items), t:get("global")
    sys:advance(2000)
    local after, ga = t:get("processor", items), t:get("global")
    assert.is_true(#after >= 1 and #after == #before, "processors read: " .. #after)
    local all = mi.delta(ga.gmt_paused, gb.gmt_paused)
    for cpu = 1, #after do
      local total = 0
      for _, name in ipairs(items) do total = total + mi.delta(after[cpu][name], before[cpu][name]) end
      assert.is_true(total <= 2000 * 8, "cpu " .. cpu .. ": " .. total)
      all = all + total
    end
    assert.is_true(math.abs(2000 * 8 * #after - all) <= (#items + 1) * #after, "all CPUs with paused: " .. all)
    t:close()
  end)
end)
