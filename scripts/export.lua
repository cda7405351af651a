-- export.lua: writes a recording's samples with wall-clock timestamps, one value per line:
-- CSV (timestamp, time_ms, domain, entity, pid, program, item, value) or JSON lines (one object
-- per sample and entity). Values are the recorded cumulative counters (class counters summed;
-- MI_Time items in ticks as the store keeps them; see --help), or OpenMetrics with a timestamp
-- on every sample (--openmetrics: the exporter's own families, replayed sample by sample), which
-- `promtool tsdb create-blocks-from openmetrics` loads into a Prometheus. Items a recorded host
-- never measures (outside its map, recorded as 0) are written empty (CSV) or null (JSON), said once.
local mi = require("mi")
local cli = require("mi.cli")
local rec = require("mi.recording")

local file, argv = rec.args(arg or {})
local opts = cli.parse({
  name = "export", sampling = false,
  about = "Exports a recording with wall-clock timestamps: --csv (default), --json or --openmetrics.",
  options = {
    { "csv", nil, "CSV, one value per line (default)" }, { "json", nil, "JSON lines, one object per sample and entity" },
    { "openmetrics", nil, "OpenMetrics with timestamps (promtool tsdb create-blocks-from openmetrics)" },
    { "from", "T", "start (ISO 8601, a date, a time of day such as 10:51, +10m from the recording's start, -1m from its end)" },
    { "to", "T", "end (as --from; +x counts from --from)" },
  },
  footer = "usage: mish scripts/export.lua FILE [--csv|--json|--openmetrics] [--from T] [--to T]",
}, argv)
if (opts.csv and 1 or 0) + (opts.json and 1 or 0) + (opts.openmetrics and 1 or 0) > 1 then
  io.stderr:write("export: choose one of --csv, --json and --openmetrics\n") os.exit(2)
end

-- OpenMetrics: the recording replayed sample by sample through the exporter (mi.openmetrics),
-- each sample line given the recorded time; a family's lines are gathered by series so every
-- series is contiguous and in time order, as the format asks. _created lines are left out (a
-- backfill has the samples themselves).
if opts.openmetrics then
  mi.recording_state(file, io.stderr)   -- a recording that is not whole says so, never silently
  local ok, sys = pcall(mi.replay, file, { from = opts.from, to = opts.to, speed = "max" })
  if not ok then   -- a window that holds no sample is the caller's mistake (2), as for --csv and --json
    io.stderr:write("export: ", tostring(sys), "\n")
    local msg = tostring(sys)
    os.exit((msg:find("holds no sample", 1, true) or msg:find("before it starts", 1, true)) and 2 or 1)
  end
  local fams, order = {}, {}
  local n = 0
  mi.openmetrics(sys)   -- turns the counters on at the window's first sample: they count from there
  while mi.core.replay_step(sys, 1) == 1 do
    local text = mi.openmetrics(sys)
    local ts = string.format(" %.3f", mi.core.replay_clock(sys) / 1000)
    local fam
    for line in text:gmatch("[^\n]+") do
      local kind, name = line:match("^# (%u+) (%S+)")
      if kind == "TYPE" or kind == "HELP" or kind == "UNIT" then
        fam = fams[name]
        if not fam then fam = { head = {}, series = {}, sorder = {}, seen = {} }; fams[name] = fam; order[#order + 1] = name end
        if not fam.seen[kind] then fam.seen[kind] = true; fam.head[#fam.head + 1] = line end
      elseif fam and line:sub(1, 1) ~= "#" then
        local key, value = line:match("^(.-) (%S+)$")
        if key and not key:match("^[%w_:]+_created[{ ]?") and not key:match("^[%w_:]+_created$") then
          local ser = fam.series[key]
          if not ser then ser = {}; fam.series[key] = ser; fam.sorder[#fam.sorder + 1] = key end
          ser[#ser + 1] = key .. " " .. value .. ts
        end
      end
    end
    n = n + 1
  end
  local out = io.stdout
  for _, name in ipairs(order) do
    local fam = fams[name]
    out:write(table.concat(fam.head, "\n"), "\n")
    for _, key in ipairs(fam.sorder) do out:write(table.concat(fam.series[key], "\n"), "\n") end
  end
  out:write("# EOF\n")
  io.stderr:write(string.format("export: %d samples\n", n))
  os.exit(0)
end
local r = rec.open("export", file)
local info = r:info()
local from, to = rec.window("export", r, opts.from, opts.to)
local layout = {}
local dark = {}   -- per domain, per layout index: an item the recorded host never measures (recorded as 0: no data, #30)
local ndark = {}
local out = io.stdout
local nsamples = 0
local unreadable = rec.walk(r, from, to, function(ev)
  nsamples = nsamples + 1
  if nsamples == 1 and not opts.json then out:write("timestamp,time_ms,domain,entity,pid,program,item,value\n") end
  local ts, ms = rec.stamp(ev.time, info.tpm), ev.time // info.tpm
  for _, d in ipairs(rec.DOMAINS) do
    local its = layout[d]
    for _, row in ipairs(r:rows(d)) do
      local dk = dark[d]
      if opts.json then
        local values = {}
        for i, it in ipairs(its) do values[it.name or tostring(it.item)] = dk[i] and cli.NONE or row[i] end
        out:write(cli.json({ timestamp = ts, time_ms = ms, domain = d, entity = row.key, pid = row.pid, program = row.program,
          values = values }), "\n")
      else
        for i, it in ipairs(its) do
          out:write(ts, ",", ms, ",", d, ",", row.key, ",", row.pid or "", ",", row.program or "", ",",
            it.name or it.item, ",", dk[i] and "" or row[i], "\n")
        end
      end
    end
  end
end, function()
  for _, d in ipairs(rec.DOMAINS) do
    layout[d] = r:layout(d)
    local names = {}
    for i, it in ipairs(layout[d]) do names[i] = it.name or "" end
    local set = info.source == "host" and cli.undriven("host", d, names) or {}
    dark[d] = {}
    for i, n in ipairs(names) do if set[n] then dark[d][i] = true; ndark[n .. "@" .. d] = true end end
  end
end)
if next(ndark) then   -- said once: what the empty values are
  local n = 0
  for _ in pairs(ndark) do n = n + 1 end
  io.stderr:write(string.format("export: %d item(s) the recorded host never measures (outside its map) are written %s\n", n,
    opts.json and "null" or "empty"))
end
if nsamples == 0 and unreadable == 0 then rec.empty("export", r, from, to) end   -- a window between two samples
if unreadable > 0 then   -- taken, but not data: said, as summary says it (#30.6)
  io.stderr:write(string.format("export: %d samples (%d more unreadable after damage)\n", nsamples, unreadable))
end
r:close()
