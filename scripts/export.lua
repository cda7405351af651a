-- export.lua: writes a recording's samples with wall-clock timestamps, one value per line:
-- CSV (timestamp, time_ms, domain, entity, pid, program, item, value) or JSON lines (one object
-- per sample and entity). Values are the recorded cumulative counters (class counters summed;
-- MI_Time items in ticks as the store keeps them; see --help).
local mi = require("mi")
local cli = require("mi.cli")
local rec = require("mi.recording")

local file, argv = rec.args(arg or {})
local opts = cli.parse({
  name = "export", sampling = false,
  about = "Exports a recording with wall-clock timestamps: --csv (default) or --json.",
  options = {
    { "csv", nil, "CSV, one value per line (default)" }, { "json", nil, "JSON lines, one object per sample and entity" },
    { "openmetrics", nil, "OpenMetrics text for promtool (not yet available)" },
    { "from", "T", "start (ISO 8601 or an offset such as +10m from the recording's start)" },
    { "to", "T", "end (ISO 8601 or an offset from --from)" },
  },
  footer = "usage: mish scripts/export.lua FILE [--csv|--json] [--from T] [--to T]",
}, argv)
if opts.openmetrics then io.stderr:write("export: --openmetrics is not yet available\n") os.exit(2) end
if opts.csv and opts.json then io.stderr:write("export: choose one of --csv and --json\n") os.exit(2) end
local r = rec.open("export", file)
local info = r:info()
local from, to = rec.window("export", r, opts.from, opts.to)
local layout = {}
local out = io.stdout
if not opts.json then out:write("timestamp,time_ms,domain,entity,pid,program,item,value\n") end
rec.walk(r, from, to, function(ev)
  local ts, ms = rec.stamp(ev.time, info.tpm), ev.time // info.tpm
  for _, d in ipairs(rec.DOMAINS) do
    local its = layout[d]
    for _, row in ipairs(r:rows(d)) do
      if opts.json then
        local values = {}
        for i, it in ipairs(its) do values[it.name or tostring(it.item)] = row[i] end
        out:write(cli.json({ timestamp = ts, time_ms = ms, domain = d, entity = row.key, pid = row.pid, program = row.program,
          values = values }), "\n")
      else
        for i, it in ipairs(its) do
          out:write(ts, ",", ms, ",", d, ",", row.key, ",", row.pid or "", ",", row.program or "", ",",
            it.name or it.item, ",", row[i], "\n")
        end
      end
    end
  end
end, function() for _, d in ipairs(rec.DOMAINS) do layout[d] = r:layout(d) end end)
r:close()
