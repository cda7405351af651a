-- mi.cli: what every analysis script in scripts/ shares — option parsing with --help,
-- interval/count sampling, and output as a text table, CSV or JSON lines, plus gnuplot.
local mi = require("mi")

local cli = {}

-- Whether s can turn MI_Time into milliseconds (a session, or a stand-in with an ms method).
local function has_ms(s) return (type(s) == "table" or type(s) == "userdata") and type(s.ms) == "function" end

-- The options every sampling script takes, in --help order.
local COMMON = {
  { "interval", "N", "seconds between samples", 1 },
  { "count", "N", "number of samples (0 = until interrupted)", 5 },
  { "csv", nil, "write CSV (a header, then one row per line) instead of a table" },
  { "json", nil, "write JSON, one object per sample per line, instead of a table" },
  { "plot", "FILE", "also plot the run over time in FILE (.png or .svg, needs gnuplot)" },
}

-- Parses argv against spec {name=, about=, options={{name, ARG|nil, help, default, short = "o"}...}, sampling=bool}
-- (short: a one-letter spelling, -o FILE for --out FILE).
-- Prints --help and exits; raises a usage error on a bad option. Returns the options table.
function cli.parse(spec, argv)
  mi.arg_check(type(spec) == "table" and type(spec.name) == "string", 1, "cli.parse", "spec table {name=, about=, options=}", spec)
  mi.arg_check(argv == nil or type(argv) == "table", 2, "cli.parse", "argument list or nil", argv)
  argv = argv or arg or {}
  local all, at = {}, {}
  if spec.sampling ~= false then for _, o in ipairs(COMMON) do all[#all + 1] = o; at[o[1]] = #all end end
  for _, o in ipairs(spec.options or {}) do   -- a script's own text for a common option replaces it
    if at[o[1]] then all[at[o[1]]] = o else all[#all + 1] = o end
  end
  local opts, by, short = {}, {}, {}
  for _, o in ipairs(all) do by[o[1]] = o; opts[o[1]] = o[4]; if o.short then short[o.short] = o[1] end end
  local function usage(out)
    out:write("usage: mish ", spec.name, " [options]   (or mish path/to/", spec.name, ".lua)\n", spec.about, "\n\noptions:\n")
    for _, o in ipairs(all) do
      local flag = (o.short and ("-" .. o.short .. ", ") or "") .. "--" .. o[1] .. (o[2] and (" " .. o[2]) or "")
      out:write(string.format("  %-18s %s%s\n", flag, o[3], o[4] ~= nil and (" (default " .. tostring(o[4]) .. ")") or ""))
    end
    out:write("  --help             show this help\n")
    if spec.footer then out:write("\n", spec.footer, "\n") end
  end
  -- Says which option's value is wrong and what it wants; exits 2.
  local function bad(name, v, want)
    io.stderr:write(spec.name, ": --", name, " ", v, ": wants ", want, " (try --help)\n")
    os.exit(2)
  end
  local i = 1
  while argv[i] do
    local a = argv[i]
    if a == "--help" or a == "-h" then usage(io.stdout) os.exit(0) end
    local name, inline = a:match("^%-%-([%w_-]+)=(.*)$")
    name = name or a:match("^%-%-([%w_-]+)$") or short[a:match("^%-(%w)$") or ""]
    local o = name and by[name]
    if not o then io.stderr:write(spec.name, ": unknown option '", a, "' (try --help)\n") os.exit(2) end
    if o[2] then
      local v = inline or argv[i + 1]
      if not inline then i = i + 1 end
      if v == nil then io.stderr:write(spec.name, ": option --", name, " needs ", o[2], "\n") os.exit(2) end
      if o[2] == "N" then   -- checked now, not after the run (#16.4): seconds for --interval, else a count
        local n = tonumber(v)
        if name == "interval" then
          if not n or not (n > 0 and n <= 1e7) then bad(name, v, "seconds, more than 0 and at most 1e7") end
        elseif not math.tointeger(n) or n < 0 then bad(name, v, "a whole number >= 0") end
        v = name == "interval" and n or math.tointeger(n)
      end
      opts[name] = v
    else
      opts[name] = true
    end
    i = i + 1
  end
  if opts.csv and opts.json then io.stderr:write(spec.name, ": choose one of --csv and --json\n") os.exit(2) end
  if opts.plot then   -- before the run, not after it (#16.11)
    local ok, err = cli.plot_check(opts.plot)
    if not ok then io.stderr:write(spec.name, ": --plot ", opts.plot, ": ", err, "\n") os.exit(2) end
  end
  return opts
end

-- A figure that was not measured (#30): "-" in a table, an empty field in CSV, null in JSON, left
-- out of the Average; never a number.
cli.NONE = setmetatable({}, { __tostring = function() return "-" end, __name = "cli.NONE" })

-- Encodes a Lua value as JSON (tables with only 1..n keys become arrays; cli.NONE is null).
function cli.json(v)
  local t = type(v)
  if t == "nil" or v == cli.NONE then return "null" end
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
  if v == cli.NONE then return "" end
  if type(v) == "number" and math.type(v) == "float" then v = string.format("%.2f", v) end
  v = tostring(v == nil and "" or v)
  if v:find('[,"\n]') then v = '"' .. v:gsub('"', '""') .. '"' end
  return v
end

-- Formats a cell for the text table.
local function cell(v, fmt)
  if v == nil then return "" end
  if v == cli.NONE then return "-" end
  if fmt then return string.format(fmt, v) end
  if type(v) == "number" and math.type(v) == "float" then return string.format("%.1f", v) end
  return tostring(v)
end

-- The time of a sample in whole seconds since the epoch: the recorded time on a replay (#13), else now.
function cli.sample_time() return math.floor(cli.now()) end

-- The time of a sample (default: cli.sample_time()) as ISO 8601 with the UTC offset (CSV column and JSON key "time").
function cli.stamp(t) return os.date("%Y-%m-%dT%H:%M:%S%z", t or cli.sample_time()) end

-- Prints rows as an aligned text table of columns cols on out, under title (nil: none).
local function table_out(out, cols, rows, title)
  local width, left = {}, {}
  for j, c in ipairs(cols) do
    width[j] = #c[2]
    for _, r in ipairs(rows) do   -- text columns align left, numbers right
      if r[c[1]] ~= nil and type(r[c[1]]) ~= "number" and not tostring(r[c[1]]):match("^[%d.%-]+$") then left[j] = true break end
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
  if title then out:write(title, "\n") end
  local h, fmtw = {}, {}   -- each column's format, by its width and alignment
  for j, c in ipairs(cols) do fmtw[j] = left[j] and "%-" .. width[j] .. "s" or "%" .. width[j] .. "s"; h[j] = string.format(fmtw[j], c[2]) end
  out:write(table.concat(h, "  "), "\n")
  for i = 1, #rows do
    local line = {}
    for j = 1, #cols do line[j] = string.format(fmtw[j], text[i][j]) end
    out:write(table.concat(line, "  "), "\n")
  end
  out:write("\n")
end

-- Writes one sample as a JSON object on out: its time, the meta fields, and the rows' columns.
local function json_out(out, cols, rows, meta, stamp)
  local obj = { time = stamp }
  for k, v in pairs(meta) do if k ~= "title" and k ~= "time" then obj[k] = v end end
  local list = {}
  for i, r in ipairs(rows) do
    local x = {}
    for _, c in ipairs(cols) do x[c[1]] = r[c[1]] end
    list[i] = x
  end
  obj.rows = list
  out:write(cli.json(obj), "\n")
end

-- Writes one sample as CSV lines on out (the header line first, once per stream o): the time and
-- the meta fields in front of each row's columns.
local function csv_out(o, out, cols, rows, meta, stamp)
  local mkeys = {}
  for k in pairs(meta) do if k ~= "title" and k ~= "time" then mkeys[#mkeys + 1] = k end end
  table.sort(mkeys)
  if stamp then table.insert(mkeys, 1, "time") end
  meta.time = stamp
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
end

-- Adds the rows of one sample to the running sums of stream o's Average (rows matched by their
-- first column; numbers summed, text kept while it does not change, cli.NONE not averaged).
local function add_average(o, cols, rows)
  for _, r in ipairs(rows) do
    local id = tostring(r[cols[1][1]])
    local a = o.avg[id]
    if not a then a = { id = r[cols[1][1]], n = 0, sum = {}, cnt = {}, text = {} }; o.avg[id] = a; o.order[#o.order + 1] = id end
    a.n = a.n + 1
    for _, c in ipairs(cols) do
      local v = r[c[1]]
      if type(v) == "number" then a.sum[c[1]] = (a.sum[c[1]] or 0) + v; a.cnt[c[1]] = (a.cnt[c[1]] or 0) + 1
      elseif v == cli.NONE then if a.text[c[1]] == nil then a.text[c[1]] = cli.NONE end   -- not measured: not averaged
      elseif a.text[c[1]] == nil then a.text[c[1]] = v == nil and false or v
      elseif a.text[c[1]] ~= v then a.text[c[1]] = "" end
    end
  end
end

-- The rows of stream o's Average over its samples (rows matched by their first column).
local function average_rows(o, cols)
  local rows = {}
  for _, id in ipairs(o.order) do
    local a, r = o.avg[id], {}
    for _, c in ipairs(cols) do
      if a.sum[c[1]] then r[c[1]] = a.sum[c[1]] / a.cnt[c[1]] else r[c[1]] = a.text[c[1]] or nil end
    end
    r[cols[1][1]] = a.id
    rows[#rows + 1] = r
  end
  return rows
end

-- An output stream for one script: rows of named columns, printed as a table, CSV or JSON.
-- cols = {{key, title, fmt}...}; write(rows, meta) prints one sample (meta: fields shown once)
-- with its time (table: in the title line; CSV: a "time" column; JSON: a "time" key; the recorded
-- time on a replay; meta.time = false for none: a report over a whole recording);
-- finish() ends a table run with the average of every row over the samples, sar's "Average"
-- (rows matched by their first column; numbers averaged, text kept when it never changed);
-- report = true: a stream of one report, which keeps no averages (finish prints none).
function cli.output(opts, cols, out, report)
  mi.arg_check(type(opts) == "table", 1, "cli.output", "options table (cli.parse's)", opts)
  mi.arg_check(type(cols) == "table", 2, "cli.output", "list of columns {key, heading [, format]}", cols)
  out = out or io.stdout
  local o = { header_done = false, samples = 0, avg = {}, order = {} }
  -- Writes one sample (see above).
  function o.write(rows, meta)
    meta = meta or {}
    local now = cli.sample_time()
    o.first, o.last = o.first or now, now
    o.samples = o.samples + 1
    local stamp = meta.time ~= false and (meta.time or cli.stamp(now)) or nil
    if opts.json then json_out(out, cols, rows, meta, stamp)
    elseif opts.csv then csv_out(o, out, cols, rows, meta, stamp)
    else
      if not report then add_average(o, cols, rows) end
      local when = stamp and os.date("%H:%M:%S", now) or ""
      table_out(out, cols, rows, meta.title and (when ~= "" and when .. "  " .. meta.title or meta.title) or when)
    end
    out:flush()
  end
  -- Ends a table run with the Average of every row over the samples.
  function o.finish()
    if opts.json or opts.csv or report or o.samples == 0 then return end
    table_out(out, cols, average_rows(o, cols), string.format("Average of %d sample%s, %s to %s", o.samples, o.samples > 1 and "s" or "",
      os.date("%H:%M:%S", o.first), os.date("%H:%M:%S", o.last)))
    out:flush()
  end
  return o
end

-- Calls fn(i) for each of opts.count samples (0 = until interrupted), opts.interval seconds apart.
-- Ctrl-C ends the loop as the count would (so the run's averages still print), and so does the
-- end of a replayed recording, said on stderr with the samples taken (#30.4); returns their number.
function cli.loop(opts, fn)
  mi.arg_check(type(opts) == "table", 1, "cli.loop", "options table (cli.parse's)", opts)
  mi.arg_check(type(fn) == "function", 2, "cli.loop", "function", fn)
  local n = math.floor(opts.count or 1)
  local i = 0
  local raises = mi._end_raises
  mi._end_raises = true
  local ok, err = pcall(function()
    while n == 0 or i < n do
      mi.sleep(opts.interval or 1)
      fn(i + 1)
      i = i + 1
    end
  end)
  mi._end_raises = raises
  if not ok and err == mi.REPLAY_END then cli.replay_ended(i, n)
  elseif not ok and not tostring(err):find("interrupted!", 1, true) then error(err, 0) end
  return i
end

-- Says on stderr that a replayed recording ended after i samples (of the n asked for; 0: no count),
-- the line every sampling script ends with when the recording is shorter than its run (#30.4).
function cli.replay_ended(i, n)
  mi.arg_check(math.type(i) == "integer", 1, "cli.replay_ended", "samples taken", i)
  mi.arg_check(n == nil or math.type(n) == "integer", 2, "cli.replay_ended", "samples asked for or nil", n)
  io.stderr:write(string.format("mish: the recording ended after %d sample%s%s\n", i, i == 1 and "" or "s",
    (n or 0) > 0 and string.format(" of the %d asked for", n) or ""))
end

-- Distinct colours for plot series, one each (a qualitative palette, then darker variants).
cli.PALETTE = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
  "#bcbd22", "#17becf", "#000000", "#fdd835", "#00897b", "#5e35b1", "#c2185b", "#6d4c41" }

local T0, C0
-- Wall-clock seconds (with fractions, from the monotonic clock since the first call); on a
-- replay (#13) the recorded time.
function cli.now()
  if mi._clock then return mi.clock() / 1000 end
  if not T0 then T0, C0 = os.time(), mi.clock() end
  return T0 + (mi.clock() - C0) / 1000
end

-- Checks a --plot file before the run: .png or .svg, a writable directory, gnuplot installed.
-- Returns true or nil, why.
function cli.plot_check(file)
  mi.arg_check(type(file) == "string", 1, "cli.plot_check", "file name", file)
  if not (file:match("%.svg$") or file:match("%.png$")) then return nil, "the file name must end in .png or .svg" end
  local dir = file:match("^(.*)/[^/]*$") or "."
  if dir == "" then dir = "/" end
  if os.execute("test -d '" .. dir:gsub("'", "'\\''") .. "' && test -w '" .. dir:gsub("'", "'\\''") .. "'") ~= true then
    return nil, "cannot write in directory " .. dir
  end
  if os.execute("command -v gnuplot > /dev/null 2>&1") ~= true then
    return nil, "gnuplot is not installed (apt-get install gnuplot-nox)"
  end
  return true
end

-- Runs gnuplot to write `file` (.png or .svg); returns true or nil, error (gnuplot's own message).
-- series = {title=, xlabel=, ylabel=, style=, x = {...}, lines = {{title=, y={...}}...}, xtics = {...}}:
-- style "lines" (default) and "stacked" (bands adding up, 0-100) have a time-of-day axis (x: wall-clock
-- seconds); "bars" puts the series side by side over the labels xtics. Each series has its own colour.
function cli.plot(file, series)
  mi.arg_check(type(file) == "string", 1, "cli.plot", "file name", file)
  mi.arg_check(type(series) == "table", 2, "cli.plot", "series table", series)
  local ok, err = cli.plot_check(file)
  if not ok then return nil, err end
  local svg = file:match("%.svg$")
  local style = series.style or "lines"
  local offset = os.time() - os.time(os.date("!*t"))   -- gnuplot shows UTC: show the local time of day
  local data = os.tmpname()
  local f = assert(io.open(data, "w"))
  for i = 1, #series.x do
    local row = { style == "bars" and string.format("%q", series.xtics[i]) or string.format("%.3f", series.x[i] + offset) }
    local acc = 0
    for _, l in ipairs(series.lines) do
      local y = l.y[i]
      if style == "stacked" then acc = acc + (y or 0); y = acc end
      row[#row + 1] = y and (y == y) and string.format("%.6g", y) or "NaN"
    end
    f:write(table.concat(row, " "), "\n")
  end
  f:close()
  local p = {}
  p[#p + 1] = (svg and "set terminal svg size 1000,500 dynamic font 'sans,11'" or "set terminal pngcairo size 1000,500 font 'sans,10'")
  p[#p + 1] = string.format("set output %q", file)
  p[#p + 1] = string.format("set title %q", series.title or "")
  p[#p + 1] = string.format("set ylabel %q", series.ylabel or "")
  p[#p + 1] = "set key outside right top"
  p[#p + 1] = "set grid"
  if style == "bars" then
    p[#p + 1] = string.format("set xlabel %q", series.xlabel or "")
    p[#p + 1] = "set style data histograms"
    p[#p + 1] = "set style histogram clustered gap 1"
    p[#p + 1] = "set style fill solid 0.85 border -1"
    p[#p + 1] = "set xtics rotate by -30 nomirror"
    p[#p + 1] = "set yrange [0:*]"
  else
    p[#p + 1] = string.format("set xlabel %q", series.xlabel or "time of day")
    p[#p + 1] = "set xdata time"
    p[#p + 1] = 'set timefmt "%s"'
    local span = #series.x > 1 and series.x[#series.x] - series.x[1] or 0
    p[#p + 1] = span < 30 and 'set format x "%H:%M:%.1S"' or 'set format x "%H:%M:%S"'   -- short runs: tenths
    p[#p + 1] = "set xtics rotate by -30"
    p[#p + 1] = "set autoscale xfix"   -- the axis ends at the first and last sample: no empty band
    if style == "stacked" then
      p[#p + 1] = "set yrange [0:100]"
      p[#p + 1] = "set style fill solid 0.9 noborder"
    else p[#p + 1] = "set yrange [0:*]" end
  end
  local plots = {}
  for j, l in ipairs(series.lines) do
    local colour = cli.PALETTE[(j - 1) % #cli.PALETTE + 1]
    local src = j == 1 and string.format("%q", data) or "''"
    if style == "bars" then
      plots[j] = string.format("%s using %d:xtic(1) title %q lc rgb %q", src, j + 1, l.title, colour)
    elseif style == "stacked" then
      plots[j] = j == 1 and string.format("%s using 1:2 with filledcurves x1 title %q lc rgb %q", src, l.title, colour)
        or string.format("%s using 1:%d:%d with filledcurves title %q lc rgb %q", src, j, j + 1, l.title, colour)
    else
      plots[j] = string.format("%s using 1:%d with linespoints lw 2 lc rgb %q pt 7 ps 0.5 title %q", src, j + 1, colour, l.title)
    end
  end
  p[#p + 1] = "plot " .. table.concat(plots, ", \\\n  ")
  local script, errf = os.tmpname(), os.tmpname()
  f = assert(io.open(script, "w"))
  f:write(table.concat(p, "\n"), "\n")
  f:close()
  local ran = os.execute("gnuplot " .. script .. " 2> " .. errf)
  local h = io.open(errf)
  local msg = h and h:read("a") or ""
  if h then h:close() end
  os.remove(script); os.remove(data); os.remove(errf)
  if ran ~= true then
    os.remove(file)   -- no empty or half-written plot left behind
    msg = msg:gsub("^%s+", ""):gsub("%s+$", "")
    return nil, "gnuplot failed" .. (msg ~= "" and (":\n" .. msg) or " (no message)")
  end
  return true
end

-- Collects a run for --plot: add(values) records one sample, values a list of {name, y} in
-- order (a series not in a sample is a gap); finish() writes opts.plot (if given) with spec
-- {title=, ylabel=, style=} and says so on stderr, or exits 1 with gnuplot's error.
function cli.recorder(opts, name, spec)
  mi.arg_check(type(opts) == "table", 1, "cli.recorder", "options table (cli.parse's)", opts)
  local r = { x = {}, order = {}, ys = {} }
  function r.add(values)
    if not opts.plot then return end
    local i = #r.x + 1
    r.x[i] = cli.now()
    for _, v in ipairs(values) do
      if not r.ys[v[1]] then r.ys[v[1]] = {}; r.order[#r.order + 1] = v[1] end
      r.ys[v[1]][i] = v[2]
    end
  end
  function r.finish()
    if not opts.plot then return end
    local series = { title = spec.title, ylabel = spec.ylabel, xlabel = spec.xlabel, style = spec.style, x = r.x, lines = {} }
    for _, n in ipairs(r.order) do
      local y = r.ys[n]
      if spec.style == "stacked" then for i = 1, #r.x do y[i] = y[i] or 0 end end
      series.lines[#series.lines + 1] = { title = n, y = y }
    end
    local ok, err = cli.plot(opts.plot, series)
    if not ok then io.stderr:write(name, ": ", err, "\n") os.exit(1) end
    io.stderr:write(name, ": wrote ", opts.plot, "\n")
  end
  return r
end

-- Sums a list of numbers (an object-class array); 0 for nil.
local function total(t) local n = 0 for _, v in ipairs(t or {}) do n = n + v end return n end

-- The first part of an MPE name ("PROG.PUB.SYS" -> "PROG", "MGR.SYS" -> "MGR"); any other name
-- (a Linux program such as "python3.11") whole (#16.12).
local function mpe_short(name)
  name = name or ""
  if name:find("%l") then return name end   -- a Linux name as it is (python3.11)
  return name:match("^([^%.]+)%.") or name   -- MPE names, the host's with _ and ? too (LUA5_4.BIN.USR)
end

-- The heading of a process's pmc_disc_read + pmc_disc_write per second on a system whose source
-- is named source (s:info().source, a recording's info().source): on the Linux host those
-- are read and write system calls (/proc/[pid]/io syscr + syscw: files, pipes, sockets,
-- terminals), elsewhere disk I/Os (#30.10).
function cli.io_heading(source)
  return tostring(source or ""):find("host", 1, true) and "RW calls/s" or "I/O/s"
end

-- Per-process rates between two samples (tables pid -> s:get("process") record) ms apart:
-- rows {pid, program, user, js, state, cpu_pct, io_s, faults_s}; io_s and faults_s are 0
-- unless pmc_disc_read/write and pmc_pg_fault_objcl_ were sampled. A process born in the
-- interval counts from zero.
function cli.process_rates(s, prev, cur, ms)
  mi.arg_check(has_ms(s), 1, "cli.process_rates", "session", s)
  mi.arg_check(type(prev) == "table", 2, "cli.process_rates", "table pid -> process record", prev)
  mi.arg_check(type(cur) == "table", 3, "cli.process_rates", "table pid -> process record", cur)
  mi.arg_check(type(ms) == "number", 4, "cli.process_rates", "milliseconds", ms)
  local rows = {}
  for pid, r in pairs(cur) do
    local o = prev[pid]
    if o and o.start_ticks ~= r.start_ticks then o = nil end   -- a reused pid: another process (#30)
    local d = o and mi.delta(r, o) or r
    rows[#rows + 1] = {
      pid = pid, program = mpe_short(r.program_name), user = mpe_short(r.user_name),
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
  mi.arg_check(has_ms(s), 1, "cli.disk_rates", "session", s)
  mi.arg_check(type(prev) == "table", 2, "cli.disk_rates", "list of I/O records", prev)
  mi.arg_check(type(cur) == "table", 3, "cli.disk_rates", "list of I/O records", cur)
  mi.arg_check(type(ms) == "number", 4, "cli.disk_rates", "milliseconds", ms)
  local old, rows = {}, {}
  for _, r in ipairs(prev) do old[r.ldev] = r end
  for _, r in ipairs(cur) do
    local o = old[r.ldev]
    if o then
      local d = mi.delta(r, o)
      local rd, wt = d.imc_completed_read or 0, d.imc_completed_write or 0
      local n = rd + wt
      rows[#rows + 1] = {
        ldev = r.ldev, reads_s = mi.rate(rd, ms), writes_s = mi.rate(wt, ms),
        kb_s = mi.rate(((d.imc_read_xfer_size or 0) + (d.imc_write_xfer_size or 0)) / 1024, ms),
        rtt_ms = n > 0 and s:ms((d.imt_rd_round_trip_time or 0) + (d.imt_wt_round_trip_time or 0)) / n or 0,
        queue = r.imc_q_current or 0, queue_max = r.imc_q_maximum or 0, ios = n, delta = d,
      }
    end
  end
  table.sort(rows, function(a, b) return a.ldev < b.ldev end)
  return rows
end

local progress_tty
-- Shows progress of long work on one line of stderr when stderr is a terminal, nothing when it is
-- piped or redirected (#16.13): cli.progress("coverage: %s", what); cli.progress() clears the line.
function cli.progress(fmt, ...)
  if progress_tty == nil then progress_tty = os.execute("test -t 2") == true and os.getenv("TERM") ~= "dumb" end
  if not progress_tty then return end
  io.stderr:write("\r\27[K", fmt and string.format(fmt, ...) or "")
  io.stderr:flush()
end

-- Watches the intervals of session s (#30): returns a function that, called after each sample
-- (and once at the baseline), gives why the interval since its last call measured nothing, or
-- nil: the host source read nothing (a --proc that is no proc root: no process, the reading
-- incomplete), or no time passed in the measured system (a replay that does not advance).
function cli.watch(s)
  mi.arg_check(type(s) == "table" and s.sys ~= nil, 1, "cli.watch", "session", s)
  local last
  return function()
    local now, info = s.sys:now(), s:info()
    local h, why = info.host, nil
    if h and not h.complete and (info.processes or 0) == 0 then
      why = string.format("the host source read nothing (%d failed read%s%s)", h.failed_reads, h.failed_reads == 1 and "" or "s",
        h.error and (", the last: " .. h.error) or "")
    elseif last and now == last then
      why = "no time passed in the measured system"
    end
    last = now
    return why
  end
end

-- The source that measured what session s reads: s:info().source, but for mish's replay of a
-- recording (--replay FILE, the default system) the source that recorded it (#30).
function cli.source(s)
  mi.arg_check(type(s) == "table" and type(s.info) == "function", 1, "cli.source", "session", s)
  local src = s:info().source
  if src == "replay" and mi._replay_source then return mi._replay_source end
  return src
end

local host_driven
-- The names among names (items of domain) that the system of session s (or the source named s:
-- a recording's info().source) does not measure: on the Linux host those its map does not drive
-- (they read 0 there, #30); on other sources none. Returns a set {name = true} and the names in
-- the order given.
function cli.undriven(s, domain, names)
  mi.arg_check(type(s) == "string" or type(s) == "table" and type(s.info) == "function", 1, "cli.undriven", "session or source name", s)
  mi.arg_check(type(domain) == "string", 2, "cli.undriven", "domain", domain)
  mi.arg_check(type(names) == "table", 3, "cli.undriven", "list of item names", names)
  local set, list = {}, {}
  if (type(s) == "string" and s or cli.source(s)) ~= "host" then return set, list end
  if not host_driven then
    host_driven = {}
    for _, r in ipairs(mi.core.host_mapping()) do host_driven[r.item] = true end
  end
  for _, n in ipairs(names) do
    local it = mi.item(n, domain)
    if it and not host_driven[it.item] and not set[n] then set[n] = true; list[#list + 1] = n end
  end
  return set, list
end

local said = false
-- Says on stderr, once per run (the first reason), that the figures of an interval were not
-- measured and why (name: the script's).
function cli.unmeasured(name, why)
  mi.arg_check(type(name) == "string", 1, "cli.unmeasured", "script name", name)
  mi.arg_check(type(why) == "string", 2, "cli.unmeasured", "reason", why)
  if said then return end
  said = true
  io.stderr:write(name, ": nothing measured: ", why, "; those figures show as missing\n")
end

local told = {}
-- Says on stderr, once per run and script, which figures the source never measures (names, from
-- cli.undriven): they show as missing, not as the 0 the store holds for them.
function cli.undriven_said(name, names)
  mi.arg_check(type(name) == "string", 1, "cli.undriven_said", "script name", name)
  mi.arg_check(type(names) == "table", 2, "cli.undriven_said", "list of names", names)
  if told[name] or #names == 0 then return end
  told[name] = true
  io.stderr:write(name, ": not measured by the host source: ", table.concat(names, ", "), "; shown as missing\n")
end

-- Marks every number of rows missing (cli.NONE) but the keys keep names (an entity's identity).
function cli.blank(rows, keep)
  mi.arg_check(type(rows) == "table", 1, "cli.blank", "list of rows", rows)
  keep = keep or {}
  local k = {}
  for _, n in ipairs(keep) do k[n] = true end
  for _, r in ipairs(rows) do
    for key, v in pairs(r) do if type(v) == "number" and not k[key] then r[key] = cli.NONE end end
  end
  return rows
end

-- Opens the shell's session (the default system), privileged and authorized.
function cli.session() return mi.open() end

return cli
