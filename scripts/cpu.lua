-- cpu.lua: where the CPU time goes, per interval and per CPU — testmiaif1's view for N CPUs.
-- Per CPU (processor counters, Appendix I): idle, ICS (interrupts), dispatcher, memory
-- manager, and the AS/BS/CS/DS/ES queues; they add to 100% of each CPU's interval. The
-- "all" row is the system; "paused" is the idle time while a process waited on disk.
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "cpu",
  about = "CPU breakdown per interval and per CPU (processor counters), as percentages of each CPU.",
  options = { { "plot", "FILE", "also write the system's breakdown over time to FILE (.png or .svg, needs gnuplot)" } },
})

local s = cli.session()
local ncpu = s:info().cpus
local parts = {
  { "idle", { "gmt_idle" } },
  { "ics", { "gmt_external_ics" } },
  { "disp", { "gmt_dispatcher_ics" } },
  { "memmgr", { "gmt_mem_mgr_replenish_critical_pool_ics", "gmt_mem_mgr_sys_fetch_ics", "gmt_mem_mgr_swapin_ics",
                "gmt_mem_mgr_tos_trap_ics" } },
  { "as", { "gmt_as_process" } }, { "bs", { "gmt_bs_process" } }, { "cs", { "gmt_cs_process" } },
  { "ds", { "gmt_ds_process" } }, { "es", { "gmt_es_process" } },
}
local items = {}
for _, p in ipairs(parts) do for _, n in ipairs(p[2]) do items[#items + 1] = n end end
assert(s:on("global", { "gmc_pauses", "gmt_paused", "gmt_idle" }), "cannot enable the processor counters")

local cols = { { "cpu", "cpu" } }
for _, p in ipairs(parts) do cols[#cols + 1] = { p[1], p[1] .. "%", "%.1f" } end
cols[#cols + 1] = { "busy", "busy%", "%.1f" }
cols[#cols + 1] = { "paused", "paused%", "%.1f" }
local out = cli.output(opts, cols)
-- the parts whose every item the source never measures (the host's dispatcher, memory manager,
-- AS and ES queues) show as missing, not as 0% (#30)
local dark, said = {}, {}
do
  local _, none = cli.undriven(s, "processor", items)
  local set = {}
  for _, n in ipairs(none) do set[n] = true end
  for _, p in ipairs(parts) do
    local all = true
    for _, n in ipairs(p[2]) do all = all and set[n] end
    if all then dark[p[1]] = true; said[#said + 1] = p[1] end
  end
end
cli.undriven_said("cpu", said)

local function sample() return { cpu = s:get("processor", items), g = s:get("global"), t = mi.clock() } end
local watch = cli.watch(s)
local prev = sample()
watch()
local plot = cli.recorder(opts, "cpu", { title = "CPU breakdown, all CPUs", ylabel = "% of CPU time", style = "stacked" })

cli.loop(opts, function(i)
  local cur = sample()
  local why = watch()   -- an interval that measured nothing is not 100% busy (#30)
  local rows, sum = {}, { cpu = "all" }
  for c = 1, ncpu do
    local d = mi.delta(cur.cpu[c], prev.cpu[c])
    local row, total = { cpu = cur.cpu[c].processor_id }, 0
    for _, p in ipairs(parts) do
      local v = 0
      for _, n in ipairs(p[2]) do v = v + d[n] end
      row[p[1]] = v
      total = total + v
    end
    for _, p in ipairs(parts) do
      sum[p[1]] = (sum[p[1]] or 0) + row[p[1]]
      row[p[1]] = mi.pct(row[p[1]], total)
    end
    row.busy = 100 - row.idle
    if total == 0 then   -- the CPU counted no time at all: nothing to divide, nothing measured
      why = why or "no CPU time was counted in the interval"
      cli.blank({ row }, { "cpu" })
    end
    rows[#rows + 1] = row
  end
  local total = 0
  for _, p in ipairs(parts) do total = total + sum[p[1]] end
  for _, p in ipairs(parts) do sum[p[1]] = mi.pct(sum[p[1]], total) end
  sum.busy = 100 - sum.idle
  local g = mi.delta(cur.g, prev.g)
  -- the global view splits the system's idle time into paused (a disk I/O pending) and idle
  sum.paused = mi.pct(g.gmt_paused, g.gmt_paused + g.gmt_idle) * sum.idle / 100
  rows[#rows + 1] = sum
  for _, row in ipairs(rows) do for k in pairs(dark) do row[k] = cli.NONE end end
  if why then
    cli.unmeasured("cpu", why)
    cli.blank(rows, { "cpu" })
  end
  out.write(rows, { sample = i, interval_ms = math.floor(cur.t - prev.t + 0.5),
                    title = string.format("sample %d: %.0f ms, %d CPU%s", i, cur.t - prev.t, ncpu, ncpu > 1 and "s" or "") })
  -- the bands add to 100: paused and the rest of idle first, then where the busy time went
  if not why then   -- (a plot leaves an unmeasured interval out)
    local bands = { { "paused", sum.paused }, { "idle", sum.idle - sum.paused } }
    for j = 2, #parts do if not dark[parts[j][1]] then bands[#bands + 1] = { parts[j][1], sum[parts[j][1]] } end end
    plot.add(bands)
  end
  prev = cur
end)
out.finish()   -- the run's averages (table mode)
plot.finish()
s:close()
