-- disk.lua: disk activity per LDEV and reads per object class, with rates.
-- Per disk: reads/s, writes/s, KB/s, average round trip (ms) and queue length (current,
-- maximum); then the interval's reads by object class (small map) over all disks.
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "disk",
  about = "Disk reads and writes per LDEV with rates, round trips and queues; reads per object class.",
  options = { { "classes", nil, "also print reads per object class (small map) each interval (not with --csv)" } },
})

local s = cli.session()
local items = { "imc_completed_read", "imc_completed_write", "imc_read_xfer_size", "imc_write_xfer_size",
  "imt_rd_round_trip_time", "imt_wt_round_trip_time", "imc_q_current", "imc_q_maximum", "imc_read_objcl_" }
local st, err = s:on("io", items, { ldev = "disk", mapping = "small" })
if not st then io.stderr:write("disk: cannot enable disk counters: ", tostring(err), "\n") os.exit(1) end
local names = mi.objcl_names("small")
local dark_classes = opts.classes and cli.undriven(s, "io", { "imc_read_objcl_" }).imc_read_objcl_   -- the host: not measured
if dark_classes then cli.undriven_said("disk", { "imc_read_objcl_ (reads per object class)" }) end

local out = cli.output(opts, {
  { "ldev", "ldev" }, { "reads_s", "reads/s", "%.1f" }, { "writes_s", "writes/s", "%.1f" },
  { "kb_s", "KB/s", "%.1f" }, { "rtt_ms", "rtt ms", "%.2f" }, { "queue", "queue" }, { "queue_max", "max q" },
})
local cls_out = cli.output(opts, { { "class", "object class" }, { "reads", "reads" }, { "share", "share%", "%.1f" } })

local function sample() return { d = s:get("io") or {}, t = mi.clock() } end
local watch = cli.watch(s)
local prev = sample()
watch()
local plot = cli.recorder(opts, "disk", { title = "disk I/O per LDEV", ylabel = "I/Os per second" })
cli.loop(opts, function(i)
  local cur = sample()
  local why = watch()   -- an interval that measured nothing shows its figures missing (#30)
  local ms = cur.t - prev.t
  local rows = cli.disk_rates(s, prev.d, cur.d, ms)
  local total = { ldev = "all", reads_s = 0, writes_s = 0, kb_s = 0, queue = 0, queue_max = 0 }
  local ios, rtt, classes = 0, 0, {}
  for _, row in ipairs(rows) do
    for _, k in ipairs({ "reads_s", "writes_s", "kb_s", "queue" }) do total[k] = total[k] + row[k] end
    total.queue_max = math.max(total.queue_max, row.queue_max)
    ios, rtt = ios + row.ios, rtt + row.rtt_ms * row.ios
    -- reads per object class over every disk in both samples
    for c, v in ipairs(row.delta.imc_read_objcl_) do classes[c] = (classes[c] or 0) + v end
  end
  total.rtt_ms = ios > 0 and rtt / ios or 0
  rows[#rows + 1] = total
  if not why and #rows == 1 then why = "no disk device was seen (no LDEV in both samples)" end   -- "all" of none is not 0 (#30)
  if why then
    cli.unmeasured("disk", why)
    cli.blank(rows, { "ldev" })
    classes = {}
  else
    local points = {}
    for _, row in ipairs(rows) do points[#points + 1] = { "LDEV " .. row.ldev, row.reads_s + row.writes_s } end
    points[#points][1] = "all disks"
    plot.add(points)
  end
  out.write(rows, { sample = i, interval_ms = math.floor(ms + 0.5), title = string.format("sample %d: %.0f ms", i, ms) })
  if opts.classes and not opts.csv then
    local sum, crow = 0, {}
    for _, v in ipairs(classes) do sum = sum + v end
    for c, v in ipairs(classes) do
      if v > 0 then crow[#crow + 1] = { class = names[c], reads = v, share = mi.pct(v, sum) } end
    end
    table.sort(crow, function(a, b) return a.reads > b.reads end)
    crow[#crow + 1] = { class = "all classes", reads = sum, share = sum > 0 and 100.0 or 0.0 }
    if why or dark_classes then crow = { { class = "all classes", reads = cli.NONE, share = cli.NONE } } end   -- not 0 (#30)
    cls_out.write(crow, { sample = i, kind = "object_class", title = "reads per object class" })
  end
  prev = cur
end)
out.finish()   -- the run's averages (table mode)
plot.finish()
s:close()
