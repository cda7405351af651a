-- top.lua: processes ranked by CPU, disk I/O or page faults over each interval.
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "top",
  about = "Processes ranked by CPU time, disk I/O or page faults per interval.",
  options = { { "by", "KEY", "rank by cpu, io or faults", "cpu" }, { "n", "N", "processes to show", 10 } },
})
local keys = { cpu = "cpu_pct", io = "io_s", faults = "faults_s" }
if not keys[opts.by] then io.stderr:write("top: --by wants cpu, io or faults, got '", tostring(opts.by), "'\n") os.exit(2) end

local s = cli.session()
local st, err = s:on("process", { "pmt_process_time", "pmc_disc_read", "pmc_disc_write", "pmc_pg_fault_objcl_" })
if not st then io.stderr:write("top: cannot enable process counters: ", tostring(err), "\n") os.exit(1) end

local out = cli.output(opts, {
  { "pid", "pid" }, { "program", "program" }, { "user", "user" }, { "js", "job/ses" }, { "state", "state" },
  { "cpu_pct", "cpu%", "%.1f" }, { "io_s", cli.io_heading(cli.source(s)), "%.1f" }, { "faults_s", "faults/s", "%.1f" },
})

local function sample()
  local by = {}
  for _, r in ipairs(s:get("process") or {}) do by[r.pid] = r end   -- no process data: none (the watch says why)
  local host = s:info().host
  return { p = by, t = mi.clock(), short_lived = host and host.short_lived }
end
local watch = cli.watch(s)
local prev = sample()
watch()
local plot = cli.recorder(opts, "top", { title = "top processes by " .. opts.by,
  ylabel = ({ cpu = "% of one CPU", io = "disk I/Os per second", faults = "page faults per second" })[opts.by] })
cli.loop(opts, function(i)
  local cur = sample()
  local why = watch()   -- an interval that measured nothing shows its figures missing (#30)
  local ms = cur.t - prev.t
  local rows = cli.process_rates(s, prev.p, cur.p, ms)
  local k = keys[opts.by]
  table.sort(rows, function(a, b) if a[k] ~= b[k] then return a[k] > b[k] end return a.pid < b.pid end)
  for j = #rows, math.floor(opts.n) + 1, -1 do rows[j] = nil end
  if why then
    cli.unmeasured("top", why)
    cli.blank(rows, { "pid" })
  else
    local points = {}
    for _, r in ipairs(rows) do points[#points + 1] = { string.format("%s (%d)", r.program, r.pid), r[k] } end
    plot.add(points)
  end
  -- on the host: tasks born and gone in the interval that no reading saw (forks less births seen)
  local unseen = cur.short_lived and prev.short_lived and cur.short_lived - prev.short_lived
  out.write(rows, { sample = i, interval_ms = math.floor(ms + 0.5), by = opts.by, short_lived = unseen,
                    title = string.format("sample %d: %.0f ms, top %d by %s%s", i, ms, #rows, opts.by,
                      unseen and string.format(", %d short-lived unseen", unseen) or "") })
  prev = cur
end)
out.finish()   -- the run's averages (table mode)
plot.finish()
s:close()
