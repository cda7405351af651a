-- summary.lua: what a recording saw, per item and entity: samples, coverage of the window,
-- the average rate (time-weighted: the counted total over the time between samples, segment
-- by segment, never across a restart), the lowest and highest interval rates with their
-- times; for level items (current values, maxima) the plain and time-weighted averages and
-- the extremes. MI_Time items are shown in seconds (a rate of 0.5 = half of each second).
local mi = require("mi")
local cli = require("mi.cli")
local rec = require("mi.recording")

local file, argv = rec.args(arg or {})
local opts = cli.parse({
  name = "summary", sampling = false,
  about = "Summarizes a recording per item and entity: samples, coverage, rates, minima and maxima with times.",
  options = {
    { "csv", nil, "write CSV" }, { "json", nil, "write JSON lines" },
    { "from", "T", "start (ISO 8601 or an offset such as +10m from the recording's start)" },
    { "to", "T", "end (ISO 8601 or an offset from --from)" },
    { "items", "GLOB", "only items whose names match (e.g. 'gmt_*')" },
    { "all", nil, "also items that stayed 0" },
  },
  footer = "usage: mish scripts/summary.lua FILE [--from T] [--to T] [--csv|--json]",
}, argv)
if opts.csv and opts.json then io.stderr:write("summary: choose one of --csv and --json\n") os.exit(2) end
local r = rec.open("summary", file)
local info = r:info()
local from, to = rec.window("summary", r, opts.from, opts.to)
local tps = info.tpm * 1000   -- ticks per second
local pat = opts.items and ("^" .. opts.items:gsub("[%.%-%+%?]", "%%%0"):gsub("%*", ".*") .. "$")

-- Level items hold a current value or a maximum, not a count.
local function is_level(name) return name and (name:find("current") or name:find("maximum") or name:find("_max$")) ~= nil end

local layout, stats, order, nsamples, segments = {}, {}, {}, 0, 0
rec.walk(r, from, to, function(ev, seg)
  nsamples = nsamples + 1
  for _, d in ipairs(rec.DOMAINS) do
    local its = layout[d]
    for _, row in ipairs(r:rows(d)) do
      local ent = d == "global" and "-" or d == "process" and string.format("%d %s", row.pid, row.program) or tostring(row.key)
      for i, it in ipairs(its) do
        local name = it.name or tostring(it.item)
        if not pat or name:find(pat) then
          local k = d .. "|" .. ent .. "|" .. name
          local s = stats[k]
          if not s then
            s = { domain = d, entity = ent, item = name, level = is_level(name), time = it.unit == "mi_time", n = 0,
                  total = 0, dt = 0, sumv = 0, sumvdt = 0, nv = 0 }
            stats[k] = s
            order[#order + 1] = k
          end
          local v = row[i]
          s.n = s.n + 1
          if s.level then
            local lv = s.time and v / tps or v
            s.sumv, s.nv = s.sumv + lv, s.nv + 1
            if s.seg == seg and s.pt then s.sumvdt = s.sumvdt + (s.pl or lv) * (ev.time - s.pt); s.dt = s.dt + ev.time - s.pt end
            if not s.minv or lv < s.minv then s.minv, s.mint = lv, ev.time end
            if not s.maxv or lv > s.maxv then s.maxv, s.maxt = lv, ev.time end
            s.pl = lv
          elseif s.seg == seg and s.pv and ev.time > s.pt then
            local dv = v - s.pv
            if s.time then dv = dv / tps end
            local dt = (ev.time - s.pt) / tps
            local rate = dv / dt
            s.total, s.dt = s.total + dv, s.dt + dt
            if not s.minr or rate < s.minr then s.minr, s.mint = rate, ev.time end
            if not s.maxr or rate > s.maxr then s.maxr, s.maxt = rate, ev.time end
          end
          s.pv, s.pt, s.seg = v, ev.time, seg
        end
      end
    end
  end
end, function(seg)
  segments = seg
  for _, d in ipairs(rec.DOMAINS) do layout[d] = r:layout(d) end
end)
r:close()

local rows = {}
for _, k in ipairs(order) do
  local s = stats[k]
  local row = { domain = s.domain, entity = s.entity, item = s.item, samples = s.n,
    coverage = nsamples > 0 and 100 * s.n / nsamples or 0, unit = s.time and "s" or "" }
  if s.level then
    row.kind = "level"
    row.avg = s.nv > 0 and s.sumv / s.nv or 0
    row.twavg = s.dt > 0 and s.sumvdt / s.dt or row.avg
    row.min, row.min_at, row.max, row.max_at = s.minv, s.mint and rec.stamp(s.mint, info.tpm), s.maxv, s.maxt and rec.stamp(s.maxt, info.tpm)
  else
    row.kind = "counter"
    row.total = s.total
    row.avg = s.dt > 0 and s.total / s.dt or 0
    row.min, row.min_at, row.max, row.max_at = s.minr, s.mint and rec.stamp(s.mint, info.tpm), s.maxr, s.maxt and rec.stamp(s.maxt, info.tpm)
  end
  local zero = (row.total or 0) == 0 and (row.max or 0) == 0 and (row.min or 0) == 0
  if opts.all or not zero then rows[#rows + 1] = row end
end

local meta = { timestamp = false, file = file, from = rec.stamp(from, info.tpm), to = rec.stamp(to, info.tpm), window_samples = nsamples, segments = segments,
  title = string.format("%s: %d samples, %d segment(s), %s .. %s (rates per second; MI_Time in seconds)", file, nsamples,
    segments, rec.stamp(from, info.tpm), rec.stamp(to, info.tpm)) }
cli.output(opts, {
  { "domain", "domain" }, { "entity", "entity" }, { "item", "item" }, { "kind", "kind" }, { "samples", "samples" },
  { "coverage", "cover%", "%.0f" }, { "total", "total", "%.6g" }, { "avg", "avg (/s)", "%.6g" }, { "twavg", "tw avg", "%.6g" },
  { "min", "min", "%.6g" }, { "min_at", "min at" }, { "max", "max", "%.6g" }, { "max_at", "max at" }, { "unit", "unit" },
}).write(rows, meta)
