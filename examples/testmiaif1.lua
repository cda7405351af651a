-- testmiaif1.lua: Appendix H's first example with the friendly layer — compare with
-- testmiaif1.c. Names instead of item numbers, a table instead of a buffer, mi.delta
-- for the rollover arithmetic, s:ms() for the MI_Time conversion.
--   mish examples/testmiaif1.lua [interval-seconds] [samples]
local mi = require("mi")
local wait, samples = tonumber(arg[1]) or 1, tonumber(arg[2]) or 40

local times = { "gmt_paused", "gmt_idle", "gmt_mem_mgr_sys_fetch", "gmt_mem_mgr_swapin", "gmt_mem_mgr_tos_trap",
  "gmt_disp_act", "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }
local counts = { "gmc_stop_nm_code_page_fault", "gmc_stop_nm_stack_page_fault", "gmc_stop_nm_trans_page_fault",
  "gmc_stop_cm_code_page_fault", "gmc_stop_cm_stack_page_fault", "gmc_stop_cm_trans_page_fault",
  "gmc_stop_priority_preemption", "gmc_mem_clock_cycles", "gmc_mem_pressure", "gmc_sw2nm_count", "gmc_sw2cm_count" }

local s = mi.open()                       -- GETPRIVMODE + AIFACCESSON
local items = { "gmt_cm_time" }
for _, n in ipairs(times) do items[#items + 1] = n end
for _, n in ipairs(counts) do items[#items + 1] = n end
local st, err = s:on("global", items)          -- MIGLOBON, small map
if not st then error("trouble enabling the mi: " .. tostring(err)) end

-- one MI_Time is round/tpm ms: ICS is the interval less every accounted state. The MI's times
-- add up over all processors: on N CPUs each figure is a share of N times the interval.
local ncpus = s:info().cpus
if ncpus > 1 then print(string.format("%d CPUs: each figure is a share of all processors' time (%d x the interval)", ncpus, ncpus)) end
s:sample(wait, samples, function() return { v = s:get("global"), ms = mi.clock() } end, function(d, _)
  local interval = math.floor(d.ms + 0.5)
  local mi_time = (interval + 1) / s:ms(1) * ncpus
  local accounted = 0
  for _, n in ipairs(times) do accounted = accounted + d.v[n] end
  local function pct(x) return 100 * x / mi_time end
  print("delta time " .. interval)
  local other = accounted - d.v.gmt_paused - d.v.gmt_idle - d.v.gmt_cs_process - d.v.gmt_ds_process - d.v.gmt_es_process
  print(string.format(" paused %6.2f idle %6.2f ics %6.2f cs %6.2f ds %6.2f es %6.2f other %6.2f", pct(d.v.gmt_paused),
    pct(d.v.gmt_idle), pct(mi_time - accounted), pct(d.v.gmt_cs_process), pct(d.v.gmt_ds_process),
    pct(d.v.gmt_es_process), pct(other)))
  for _, n in ipairs(counts) do
    if d.v[n] ~= 0 then print(string.format("%30s %d", n, d.v[n])) end
  end
end)
s:close()                                 -- MIGLOBOFF + AIFACCESSOFF
