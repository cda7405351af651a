-- mi.cli: what every analysis script in scripts/ shares — option parsing with --help,
-- interval/count sampling, and output as a text table, CSV or JSON lines, plus gnuplot.
local mi = require("mi")

local cli = {}

-- The options every sampling script takes, in --help order.
local COMMON = {
  { "interval", "N", "seconds between samples", 1 },
  { "count", "N", "number of samples (0 = until interrupted)", 5 },
  { "csv", nil, "write CSV (a header, then one row per line) instead of a table" },
  { "json", nil, "write JSON, one object per sample per line, instead of a table" },
}

-- Parses argv against spec {name=, about=, options={{name, ARG|nil, help, default}...}, sampling=bool}.
-- Prints --help and exits; raises a usage error on a bad option. Returns the options table.
function cli.parse(spec, argv)
  argv = argv or arg or {}
  local all = {}
  if spec.sampling ~= false then for _, o in ipairs(COMMON) do all[#all + 1] = o end end
  for _, o in ipairs(spec.options or {}) do all[#all + 1] = o end
  local opts, by = {}, {}
  for _, o in ipairs(all) do by[o[1]] = o; opts[o[1]] = o[4] end
  local function usage(out)
    out:write("usage: mish scripts/", spec.name, ".lua [options]\n", spec.about, "\n\noptions:\n")
    for _, o in ipairs(all) do
      local flag = "--" .. o[1] .. (o[2] and (" " .. o[2]) or "")
      out:write(string.format("  %-18s %s%s\n", flag, o[3], o[4] ~= nil and (" (default " .. tostring(o[4]) .. ")") or ""))
    end
    out:write("  --help             show this help\n")
    if spec.footer then out:write("\n", spec.footer, "\n") end
  end
  local i = 1
  while argv[i] do
    local a = argv[i]
    if a == "--help" or a == "-h" then usage(io.stdout) os.exit(0) end
    local name, inline = a:match("^%-%-([%w_-]+)=(.*)$")
    name = name or a:match("^%-%-([%w_-]+)$")
    local o = name and by[name]
    if not o then io.stderr:write(spec.name, ": unknown option '", a, "' (try --help)\n") os.exit(2) end
    if o[2] then
      local v = inline or argv[i + 1]
      if not inline then i = i + 1 end
      if v == nil then io.stderr:write(spec.name, ": option --", name, " needs ", o[2], "\n") os.exit(2) end
      if o[2] == "N" then
        local n = tonumber(v)
        if not n or n < 0 then io.stderr:write(spec.name, ": --", name, " wants a number >= 0, got '", v, "'\n") os.exit(2) end
        v = n
      end
      opts[name] = v
    else
      opts[name] = true
    end
    i = i + 1
  end
  if opts.csv and opts.json then io.stderr:write(spec.name, ": choose one of --csv and --json\n") os.exit(2) end
  if opts.interval and opts.interval <= 0 then io.stderr:write(spec.name, ": --interval must be > 0\n") os.exit(2) end
  return opts
end

-- Encodes a Lua value as JSON (tables with only 1..n keys become arrays).
function cli.json(v)
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    return math.type(v) == "integer" and tostring(v) or string.format("%.6g", v)
  end
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      local map = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
      return map[c] or string.format("\\u%04x", c:byte())
    end) .. '"'
  end
  if t == "table" then
    local n = #v
    local count = 0
    for _ in pairs(v) do count = count + 1 end
    local parts = {}
    if count == n then
      for i = 1, n do parts[i] = cli.json(v[i]) end
      return "[" .. table.concat(parts, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local val = v[k]
      if val == nil then val = v[tonumber(k)] end
      parts[#parts + 1] = cli.json(k) .. ":" .. cli.json(val)
    end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return '"' .. tostring(v) .. '"'
end

-- Quotes one CSV field when it needs it.
local function csv_field(v)
  if type(v) == "number" and math.type(v) == "float" then v = string.format("%.2f", v) end
  v = tostring(v == nil and "" or v)
  if v:find('[,"\n]') then v = '"' .. v:gsub('"', '""') .. '"' end
  return v
end

-- Formats a cell for the text table.
local function cell(v, fmt)
  if v == nil then return "" end
  if fmt then return string.format(fmt, v) end
  if type(v) == "number" and math.type(v) == "float" then return string.format("%.1f", v) end
  return tostring(v)
end

-- The wall-clock time now as ISO 8601 UTC with milliseconds (a replay's: the recorded time).
function cli.timestamp()
  local ms = mi._clock and mi.clock() or mi.core.wall_ms()
  return os.date("!%Y-%m-%dT%H:%M:%S", ms // 1000) .. string.format(".%03dZ", ms % 1000)
end

-- An output stream for one script: rows of named columns, printed as a table, CSV or JSON.
-- cols = {{key, title, fmt}...}; write(rows, meta) prints one sample (meta: fields shown once;
-- CSV and JSON also get meta.timestamp, the wall-clock time, unless meta.timestamp is false).
function cli.output(opts, cols, out)
  out = out or io.stdout
  local o = { header_done = false }
  function o.write(rows, meta)
    if opts.json or opts.csv then   -- #13: every sample says when it was taken (the recorded time on a replay)
      local m = { timestamp = cli.timestamp() }
      for k, v in pairs(meta or {}) do m[k] = v end
      if m.timestamp == false then m.timestamp = nil end
      meta = m
    end
    if opts.json then
      local obj = {}
      for k, v in pairs(meta or {}) do if k ~= "title" then obj[k] = v end end
      local list = {}
      for i, r in ipairs(rows) do
        local x = {}
        for _, c in ipairs(cols) do x[c[1]] = r[c[1]] end
        list[i] = x
      end
      obj.rows = list
      out:write(cli.json(obj), "\n")
    elseif opts.csv then
      local mkeys = {}
      for k in pairs(meta or {}) do if k ~= "title" then mkeys[#mkeys + 1] = k end end
      table.sort(mkeys)
      if not o.header_done then
        local h = {}
        for _, k in ipairs(mkeys) do h[#h + 1] = csv_field(k) end
        for _, c in ipairs(cols) do h[#h + 1] = csv_field(c[1]) end
        out:write(table.concat(h, ","), "\n")
        o.header_done = true
      end
      for _, r in ipairs(rows) do
        local line = {}
        for _, k in ipairs(mkeys) do line[#line + 1] = csv_field(meta[k]) end
        for _, c in ipairs(cols) do line[#line + 1] = csv_field(r[c[1]]) end
        out:write(table.concat(line, ","), "\n")
      end
    else
      local width, left = {}, {}
      for j, c in ipairs(cols) do
        width[j] = #c[2]
        for _, r in ipairs(rows) do   -- text columns align left, numbers right
          if r[c[1]] ~= nil and type(r[c[1]]) ~= "number" and not tostring(r[c[1]]):match("^[%d.%-]+$") then left[j] = true end
        end
      end
      local text = {}
      for i, r in ipairs(rows) do
        text[i] = {}
        for j, c in ipairs(cols) do
          text[i][j] = cell(r[c[1]], c[3])
          if #text[i][j] > width[j] then width[j] = #text[i][j] end
        end
      end
      if meta and meta.title then out:write(meta.title, "\n") end
      local h = {}
      local function fmtw(j) return left[j] and "%-" .. width[j] .. "s" or "%" .. width[j] .. "s" end
      for j, c in ipairs(cols) do h[j] = string.format(fmtw(j), c[2]) end
      out:write(table.concat(h, "  "), "\n")
      for i = 1, #rows do
        local line = {}
        for j = 1, #cols do line[j] = string.format(fmtw(j), text[i][j]) end
        out:write(table.concat(line, "  "), "\n")
      end
      out:write("\n")
    end
    out:flush()
  end
  return o
end

-- Calls fn(i) for each of opts.count samples (0 = until interrupted), opts.interval seconds apart.
function cli.loop(opts, fn)
  local n = math.floor(opts.count or 1)
  local i = 0
  while n == 0 or i < n do
    i = i + 1
    mi.sleep(opts.interval or 1)
    fn(i)
  end
end

-- Runs gnuplot to write `file` (.png or .svg) from columns of data; returns true or nil, error.
-- series = {xlabel=, ylabel=, title=, x = {...}, lines = {{title=, y={...}}...}, style="lines"|"boxes", xtics={...}}
function cli.plot(file, series)
  local term = file:match("%.svg$") and "svg size 900,500" or file:match("%.png$") and "pngcairo size 900,500"
  if not term then return nil, "plot file must end in .png or .svg" end
  if os.execute("command -v gnuplot > /dev/null 2>&1") ~= true then
    return nil, "gnuplot is not installed (sudo apt-get install gnuplot-nox)"
  end
  local data = os.tmpname()
  local f = assert(io.open(data, "w"))
  for i, x in ipairs(series.x) do
    local row = { series.xtics and i - 1 or x }
    for _, l in ipairs(series.lines) do row[#row + 1] = l.y[i] or 0 end
    f:write(table.concat(row, " "), "\n")
  end
  f:close()
  local p = {}
  p[#p + 1] = "set terminal " .. term
  p[#p + 1] = string.format("set output %q", file)
  p[#p + 1] = string.format("set title %q", series.title or "")
  p[#p + 1] = string.format("set xlabel %q", series.xlabel or "")
  p[#p + 1] = string.format("set ylabel %q", series.ylabel or "")
  p[#p + 1] = "set key outside right"
  p[#p + 1] = "set grid"
  if series.xtics then
    local t = {}
    for i, lab in ipairs(series.xtics) do t[#t + 1] = string.format("%q %d", lab, i - 1) end
    p[#p + 1] = "set xtics (" .. table.concat(t, ", ") .. ")"
  end
  if series.style == "stacked" then
    p[#p + 1] = "set style data histograms"
    p[#p + 1] = "set style histogram rowstacked"
    p[#p + 1] = "set style fill solid 0.8 border -1"
    p[#p + 1] = "set yrange [0:100]"
  elseif series.style == "boxes" then
    p[#p + 1] = "set style fill solid 0.6 border -1"
    p[#p + 1] = "set boxwidth 0.8"
  end
  local plots = {}
  for j, l in ipairs(series.lines) do
    if series.style == "stacked" then plots[j] = string.format("%q using %d title %q", data, j + 1, l.title)
    elseif series.style == "boxes" then plots[j] = string.format("%q using 1:%d with boxes title %q", data, j + 1, l.title)
    else plots[j] = string.format("%q using 1:%d with linespoints title %q", data, j + 1, l.title) end
  end
  p[#p + 1] = "plot " .. table.concat(plots, ", ")
  local script = os.tmpname()
  f = assert(io.open(script, "w"))
  f:write(table.concat(p, "\n"), "\n")
  f:close()
  local ok = os.execute("gnuplot " .. script .. " 2>/dev/null")
  os.remove(script)
  os.remove(data)
  if ok ~= true then return nil, "gnuplot failed" end
  return true
end

-- Sums a list of numbers (an object-class array); 0 for nil.
local function total(t) local n = 0 for _, v in ipairs(t or {}) do n = n + v end return n end

-- Per-process rates between two samples (tables pid -> s:get("process") record) ms apart:
-- rows {pid, program, user, js, state, cpu_pct, io_s, faults_s}; io_s and faults_s are 0
-- unless pmc_disc_read/write and pmc_pg_fault_objcl_ were sampled. A process born in the
-- interval counts from zero.
function cli.process_rates(s, prev, cur, ms)
  local rows = {}
  for pid, r in pairs(cur) do
    local o = prev[pid]
    local d = o and mi.delta(r, o) or r
    rows[#rows + 1] = {
      pid = pid, program = (r.program_name or ""):match("^[^.%s]*"), user = (r.user_name or ""):match("^[^.%s]*"),
      js = r.js_number ~= "" and r.js_number or "-", state = r.state,
      cpu_pct = mi.pct(s:ms(d.pmt_process_time or 0), ms),
      io_s = mi.rate((d.pmc_disc_read or 0) + (d.pmc_disc_write or 0), ms),
      faults_s = mi.rate(total(d.pmc_pg_fault_objcl_), ms),
    }
  end
  return rows
end

-- Per-LDEV rates between two s:get("io") lists ms apart: rows {ldev, reads_s, writes_s,
-- kb_s, rtt_ms, queue, queue_max, ios, delta} in LDEV order (ios: I/Os in the interval;
-- delta: the whole record's difference, for arrays such as the object classes); counters
-- not sampled read 0; an LDEV not in the earlier sample is left out.
function cli.disk_rates(s, prev, cur, ms)
  local old, rows = {}, {}
  for _, r in ipairs(prev) do old[r.ldev] = r end
  for _, r in ipairs(cur) do
    local o = old[r.ldev]
    if o then
      local d = mi.delta(r, o)
      local rd, wt = d.imc_logical_rd or 0, d.imc_logical_wt or 0
      local n = rd + wt
      rows[#rows + 1] = {
        ldev = r.ldev, reads_s = mi.rate(rd, ms), writes_s = mi.rate(wt, ms),
        kb_s = mi.rate(((d.imc_logical_rd_xfer_size or 0) + (d.imc_logical_wt_xfer_size or 0)) / 1024, ms),
        rtt_ms = n > 0 and s:ms((d.imt_rd_round_trip_time or 0) + (d.imt_wt_round_trip_time or 0)) / n or 0,
        queue = r.imc_q_current or 0, queue_max = r.imc_q_maximum or 0, ios = n, delta = d,
      }
    end
  end
  table.sort(rows, function(a, b) return a.ldev < b.ldev end)
  return rows
end

-- Opens the shell's session (the default system), privileged and authorized.
function cli.session() return mi.open() end

return cli
