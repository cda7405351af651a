-- response.lua: terminal response, first-response and think-time histograms with percentiles.
-- The MI counts each completed transaction once in a bucket (items 21000-21029); percentiles
-- are interpolated within the bucket that holds them (the last bucket has no upper bound,
-- so a percentile there is reported as "> its lower bound").
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "response",
  about = "Response, first-response and think-time histograms per interval, with percentiles.",
  options = {
    { "total", nil, "histograms since the start instead of per interval" },
    -- with --csv only the histogram table is written (one header per file); --json has both
    { "plot", "FILE", "also write the response histogram of the whole run to FILE (.png or .svg)" },
  },
})

local RESP = { 0.5, 1, 1.5, 2, 3, 4, 5, 10, 20 }      -- upper bounds, seconds
local THINK = { 1, 2, 3, 4, 5, 10, 20, 30, 40 }
local hist = {
  { key = "response", first = 21000, bounds = RESP },
  { key = "first_response", first = 21010, bounds = RESP },
  { key = "think", first = 21020, bounds = THINK },
}
local items = {}
for _, h in ipairs(hist) do for b = 0, 9 do items[#items + 1] = h.first + b end end

local s = cli.session()
local st, err = s:on("global", items)
if not st then io.stderr:write("response: cannot enable the histograms: ", tostring(err), "\n") os.exit(1) end

-- The p-th percentile (0-100) of a histogram given as counts per bucket.
local function percentile(counts, bounds, p)
  local n = 0
  for _, c in ipairs(counts) do n = n + c end
  if n == 0 then return nil end
  local want, acc = n * p / 100, 0
  for b, c in ipairs(counts) do
    if acc + c >= want and c > 0 then
      local lo = bounds[b - 1] or 0
      if b > #bounds then return string.format(">%g", lo) end
      return lo + (bounds[b] - lo) * (want - acc) / c
    end
    acc = acc + c
  end
end

local function label(bounds, b)
  if b > #bounds then return string.format("> %g s", bounds[#bounds]) end
  return string.format("%g-%g s", bounds[b - 1] or 0, bounds[b])
end

local out = cli.output(opts, {
  { "bucket", "bucket" }, { "response", "response" }, { "first_response", "first resp" },
  { "bucket_think", "think bucket" }, { "think", "think" },
})
local pct_out = cli.output(opts, {
  { "histogram", "histogram" }, { "count", "count" }, { "p50", "p50 s" }, { "p90", "p90 s" }, { "p95", "p95 s" },
  { "p99", "p99 s" },
})
local function fmt(v) return type(v) == "number" and string.format("%.2f", v) or v or "-" end

-- a source that measures none of the histograms (the Linux host) shows them missing, not as 0 (#30)
local dark = #select(2, cli.undriven(s, "global", items)) == #items and
  "the host source does not measure the histograms (items 21000-21029)" or nil
local start = s:get("global")
local prev = start
local watch = cli.watch(s)
watch()
cli.loop(opts, function(i)
  local cur = s:get("global")
  local why = watch() or dark   -- an interval that measured nothing shows its figures missing (#30)
  local d = mi.delta(cur, opts.total and start or prev)
  local rows, prow = {}, {}
  local counts = {}
  for _, h in ipairs(hist) do
    counts[h.key] = {}
    for b = 0, 9 do counts[h.key][b + 1] = d[h.first + b] end
  end
  for b = 1, 10 do
    rows[b] = { bucket = label(RESP, b), response = counts.response[b], first_response = counts.first_response[b],
                bucket_think = label(THINK, b), think = counts.think[b] }
  end
  for _, h in ipairs(hist) do
    local n = 0
    for _, c in ipairs(counts[h.key]) do n = n + c end
    prow[#prow + 1] = { histogram = h.key, count = n, p50 = fmt(percentile(counts[h.key], h.bounds, 50)),
      p90 = fmt(percentile(counts[h.key], h.bounds, 90)), p95 = fmt(percentile(counts[h.key], h.bounds, 95)),
      p99 = fmt(percentile(counts[h.key], h.bounds, 99)) }
  end
  if why then
    cli.unmeasured("response", why)
    cli.blank(rows)
    cli.blank(prow)
    for _, r in ipairs(prow) do for k, v in pairs(r) do if v == "-" then r[k] = cli.NONE end end end
  end
  local meta = { sample = i, title = string.format("sample %d%s", i, opts.total and " (since start)" or "") }
  out.write(rows, meta)
  if not opts.csv then pct_out.write(prow, { sample = i, kind = "percentiles", title = "percentiles" }) end   -- CSV: one table only
  prev = cur
end)
out.finish()   -- the run's averages (table mode)

if opts.plot then
  local d = mi.delta(s:get("global"), start)
  local series = { title = "terminal response time, whole run", xlabel = "response time", ylabel = "transactions",
                   style = "bars", x = {}, xtics = {}, lines = { { title = "response", y = {} }, { title = "first response", y = {} } } }
  for b = 1, 10 do
    series.x[b] = b
    series.xtics[b] = label(RESP, b)
    series.lines[1].y[b] = d[21000 + b - 1]
    series.lines[2].y[b] = d[21010 + b - 1]
  end
  local ok, err = cli.plot(opts.plot, series)
  if not ok then io.stderr:write("response: ", err, "\n") os.exit(1) end
  io.stderr:write("response: wrote ", opts.plot, "\n")
end
s:close()
