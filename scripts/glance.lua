-- glance.lua: a full-screen live display — CPU bars, memory and queues, the top processes and
-- the busiest disks — refreshed every interval, fitted to the terminal's size. Keys: c/i/f sort,
-- h or ? help, q quits; so does Ctrl-C; the terminal is restored
-- either way, and on SIGTERM and SIGHUP too (mish turns them into an error in the running
-- script, then ends by the signal). Without a terminal it prints --count plain frames.
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "glance",
  about = "Live full-screen view: CPU per processor, memory and queues, top processes, busiest disks.",
  options = { { "n", "N", "processes and disks to show at most", 8 }, { "by", "KEY", "sort processes by cpu, io or faults", "cpu" } },
  footer = "--count defaults to 0 here (run until q); --csv/--json print one record per refresh.\n" ..
    "Keys on a terminal: c, i, f sort by CPU, I/O or page faults; h or ? help; q quits.\n" ..
    "Colour on a colour terminal only (not with NO_COLOR set or TERM=dumb); the layout follows the terminal's size.",
})
local SORT = { cpu = "cpu_pct", io = "io_s", faults = "faults_s" }
if not SORT[opts.by] then io.stderr:write("glance: --by wants cpu, io or faults, got '", tostring(opts.by), "'\n") os.exit(2) end
local count_given = false
for _, a in ipairs(arg or {}) do if a:match("^%-%-count") then count_given = true end end
if not count_given then opts.count = 0 end

local s = cli.session()
local info = s:info()
assert(s:on("global", { "gmc_pauses", "gmt_paused", "gmt_idle", "gmc_cur_ready_queue", "gmc_cur_blk_disc_io",
                        "gmc_cur_free_main_mem_pg" }), "cannot enable the global counters")
assert(s:on("process", { "pmt_process_time", "pmc_disc_read", "pmc_disc_write", "pmc_pg_fault_objcl_" }),
       "cannot enable the process counters")
local disks = s:on("io", { "imc_completed_read", "imc_completed_write", "imt_rd_round_trip_time", "imt_wt_round_trip_time",
                           "imc_q_current" }, { ldev = "disk" }) ~= nil
local cpu_items = { "gmt_idle", "gmt_external_ics", "gmt_dispatcher_ics", "gmt_mem_mgr_sys_fetch_ics",
  "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }
local mem_pages = (s:config("MEMORY_SIZE") or {}).MEMORY_SIZE or 0   -- 2 KB pages

local tty = os.execute("test -t 0 && test -t 1") == true and not opts.csv and not opts.json
local term = os.getenv("TERM") or ""
local colour = tty and term ~= "" and term ~= "dumb" and (os.getenv("NO_COLOR") or "") == ""
local saved
-- Puts the terminal in key-at-a-time mode on the alternate screen (and back).
local function screen_on()
  local p = io.popen("stty -g 2>/dev/null")
  saved = p and p:read("l")
  if p then p:close() end
  os.execute("stty -icanon -echo min 0 time 1 2>/dev/null")
  io.write("\27[?1049h\27[?25l")
end
local function screen_off()
  io.write("\27[?25h\27[?1049l")
  io.flush()
  if saved and saved ~= "" then os.execute("stty " .. saved .. " 2>/dev/null") end
end

-- The terminal's size (rows, columns); 24 x 80 when it cannot be read (and off a terminal).
local function term_size()
  if not tty then return 24, 80 end
  local p = io.popen("stty size 2>/dev/null")
  local r, c = (p and p:read("l") or ""):match("^(%d+) (%d+)$")
  if p then p:close() end
  r, c = tonumber(r), tonumber(c)
  if not r or r < 1 or not c or c < 1 then return 24, 80 end
  return r, c
end

-- Wraps text in an SGR colour when colour is on.
local function paint(code, text) return colour and ("\27[" .. code .. "m" .. text .. "\27[0m") or text end

local function sample()
  local procs = {}
  for _, r in ipairs(s:get("process") or {}) do procs[r.pid] = r end
  local host = info.host and s:info().host
  return { cpu = s:get("processor", cpu_items) or {}, g = s:get("global") or {}, p = procs,
           d = disks and s:get("io") or {}, t = mi.clock(), short_lived = host and host.short_lived }
end

local HELP = {
  "mish glance — keys",
  "",
  "  c   sort processes by CPU",
  "  i   sort processes by disk I/O",
  "  f   sort processes by page faults",
  "  h ? this help (any key returns)",
  "  q   quit (Ctrl-C too)",
  "",
  "CPU bars: # user (CS, DS, ES queues), = system; past 8 CPUs several a line (id,",
  "bar, busy %), the rest summed up when the screen is short; memory in MB; ready:",
  "processes waiting for a CPU; disk-blocked: processes waiting on a disk I/O.",
}

-- Every CPU of the reading with its figures between samples prev and cur, in processor_id
-- order and paired by processor_id, never by position (a host past 8 CPUs lists them all):
-- {cpu, busy, user, system} in % of the CPU's time, cli.NONE for a CPU that counted nothing,
-- is new since prev, or a reading that failed (why); the CPUs 0 .. info.cpus - 1 when the
-- reading has none.
local function cpu_figures(prev, cur, why)
  local out = {}
  for _, d in ipairs(mi.delta(cur.cpu or {}, prev.cpu or {})) do
    if d.processor_id ~= nil and not d.died then
      local total = 0
      for _, n in ipairs(cpu_items) do total = total + (d[n] or 0) end
      if total == 0 or d.born or why then   -- nothing counted: not idle, not busy, not measured (#30)
        out[#out + 1] = { cpu = d.processor_id, busy = cli.NONE, user = cli.NONE, system = cli.NONE }
      else
        local busy = 100 - mi.pct(d.gmt_idle or 0, total)
        local user = mi.pct((d.gmt_cs_process or 0) + (d.gmt_ds_process or 0) + (d.gmt_es_process or 0), total)
        out[#out + 1] = { cpu = d.processor_id, busy = busy, user = user, system = math.max(0, busy - user) }
      end
    end
  end
  if #out == 0 then
    for c = 0, info.cpus - 1 do out[#out + 1] = { cpu = c, busy = cli.NONE, user = cli.NONE, system = cli.NONE } end
  end
  table.sort(out, function(x, y) return x.cpu < y.cpu end)
  return out
end

-- A CPU's bar, width characters: # user, = system, . idle; blanks when it has no figures.
local function cpu_bar(c, width)
  if c.busy == cli.NONE then return string.rep(" ", width) end
  local nu, ns = math.floor(c.user * width / 100 + 0.5), math.floor(c.system * width / 100 + 0.5)
  if nu + ns > width then ns = width - nu end
  return paint("32", string.rep("#", nu)) .. paint("31", string.rep("=", ns)) .. string.rep(".", width - nu - ns)
end

-- Adds the CPU bars to lines (cut to cols, at most maxl lines) and every CPU's figures to
-- rec.cpus. Up to 8 CPUs: a line each with user and system. More: cells of several CPUs a line
-- (id, bar, busy %); when they need more than maxl lines, the last line sums up the CPUs left
-- (their mean and highest busy %).
local function cpu_lines(prev, cur, cols, maxl, why, lines, rec)
  local cpus = cpu_figures(prev, cur, why)
  for i, c in ipairs(cpus) do
    rec.cpus[i] = c
    if c.busy == cli.NONE then rec.unmeasured = why or "no CPU time was counted in the interval" end
  end
  if #cpus <= 8 then
    local width = math.max(10, math.min(40, cols - 42))
    for _, c in ipairs(cpus) do
      local tail = c.busy == cli.NONE and "]     -%  user    -  sys    -" or
        string.format("] %5.1f%%  user %4.1f  sys %4.1f", c.busy, c.user, c.system)
      local head = string.format("CPU %d [", c.cpu)
      lines[#lines + 1] = head .. cpu_bar(c, width) .. tail:sub(1, math.max(0, cols - #head - width))
    end
    return
  end
  local iw = #tostring(cpus[#cpus].cpu)
  local bw = 8
  local cellw = iw + 2 + bw + 6   -- "ID [" bar "] 100%"
  local per = math.max(1, (cols + 1) // (cellw + 1))
  local fit = math.max(1, maxl) * per
  local shown = #cpus <= fit and #cpus or math.max(0, fit - per)
  for i = 1, shown, per do
    local cells = {}
    for j = i, math.min(i + per - 1, shown) do
      local c = cpus[j]
      cells[#cells + 1] = string.format("%" .. iw .. "d [", c.cpu) .. cpu_bar(c, bw) ..
        (c.busy == cli.NONE and "]    -" or string.format("] %3.0f%%", c.busy))
    end
    lines[#lines + 1] = table.concat(cells, " ")
  end
  if shown < #cpus then
    local n, sum, top = 0, 0, nil
    for j = shown + 1, #cpus do
      local c = cpus[j]
      if c.busy ~= cli.NONE then
        n, sum = n + 1, sum + c.busy
        if not top or c.busy > top.busy then top = c end
      end
    end
    local text = string.format("CPU %d-%d (%d more): ", cpus[shown + 1].cpu, cpus[#cpus].cpu, #cpus - shown) ..
      (n > 0 and string.format("busy %.1f%% mean, %.1f%% at most (CPU %d)", sum / n, top.busy, top.cpu) or "busy -")
    lines[#lines + 1] = text:sub(1, cols)
  end
end

-- Builds one frame from two samples for a rows x cols screen: a list of (painted) lines, and a
-- record for --json/--csv. Lines are cut to cols; processes and disks share the rows left.
local function frame(prev, cur, rows, cols, why)
  local ms = cur.t - prev.t
  local lines, rec = {}, { cpus = {}, top = {}, disks = {} }
  local function add(text, code)
    local n = utf8.len(text) or #text   -- cut to the screen's width in characters, not bytes
    if n > cols then text = text:sub(1, (utf8.offset(text, cols + 1) or #text + 1) - 1) end
    lines[#lines + 1] = code and paint(code, text) or text
  end
  local w = info.workload
  local ncpu = math.max(#(cur.cpu or {}), info.cpus)   -- a host past the MI's 8 processors shows them all
  add(string.format("glance %s by %s%s — %s, %d CPU%s, every %gs", os.date("%H:%M:%S"), opts.by,
    tty and " — h help, q quits" or "", w and ("simulated HP 3000, " .. w.name) or info.source, ncpu,
    ncpu > 1 and "s" or "", opts.interval), "1;7")
  cpu_lines(prev, cur, cols, math.max(2, rows // 2 - 2), why, lines, rec)
  local g = cur.g
  local free = g.gmc_cur_free_main_mem_pg or 0
  rec.memory = { total_mb = mem_pages * 2 // 1024, free_mb = free * 2 // 1024, ready = g.gmc_cur_ready_queue or 0,
                 disk_blocked = g.gmc_cur_blk_disc_io or 0 }
  if why then   -- levels of a reading that read nothing: not zeros (#30)
    rec.memory = { total_mb = cli.NONE, free_mb = cli.NONE, ready = cli.NONE, disk_blocked = cli.NONE }
    add("Mem -, free -  ready -  disk-blocked -")
  elseif free == 0 then   -- free memory not read (the host's /proc/meminfo, which gives its size too): not 0 MB
    rec.memory.free_mb = cli.NONE
    if cli.source(s) == "host" then rec.memory.total_mb = cli.NONE end
    rec.missing = "free memory was not read" .. (cli.source(s) == "host" and " (/proc/meminfo: memory size and free pages)" or "")
    add(string.format("Mem %s, free -  ready %d  disk-blocked %d", rec.memory.total_mb == cli.NONE and "-" or rec.memory.total_mb .. " MB",
      rec.memory.ready, rec.memory.disk_blocked))
  else
    -- on the host: tasks born and gone in the interval that no reading saw (forks less births seen)
    local unseen = cur.short_lived and prev.short_lived and cur.short_lived - prev.short_lived
    rec.memory.short_lived = unseen
    add(string.format("Mem %d MB, %s  ready %d  disk-blocked %d%s", rec.memory.total_mb,
      free > 0 and string.format("%d MB free (%.0f%%)", rec.memory.free_mb, mi.pct(free, mem_pages)) or "free not measured",
      rec.memory.ready, rec.memory.disk_blocked, unseen and string.format("  short-lived %d", unseen) or ""))
  end
  local prows = cli.process_rates(s, prev.p, cur.p, ms)
  local k = SORT[opts.by]
  table.sort(prows, function(a, b) if a[k] ~= b[k] then return a[k] > b[k] end return a.pid < b.pid end)
  local drows = cli.disk_rates(s, prev.d, cur.d, ms)
  table.sort(drows, function(a, b) if a.ios ~= b.ios then return a.ios > b.ios end return a.ldev < b.ldev end)
  -- rows left after the lines above and the two headers and blank lines: 60% processes, the rest disks
  local left = rows - #lines - 4
  local nd = math.min(opts.n, #drows, math.max(disks and #drows > 0 and 1 or 0, left - math.ceil(left * 0.6)))
  local np = math.min(opts.n, #prows, math.max(1, left - nd))
  add("")
  local ioh = cli.io_heading(cli.source(s)):upper()   -- what the host's process I/O is (#30.10)
  local iw = math.max(7, #ioh)
  local pw = math.max(8, math.min(24, cols - 42 - iw))
  add(string.format("%8s  %-" .. pw .. "s %-8s %-5s %6s %" .. iw .. "s %8s", "PID", "PROGRAM", "USER", "JOB", "CPU%", ioh, "FAULTS/s"), "1")
  for i = 1, np do
    local r = prows[i]
    add(string.format("%8d  %-" .. pw .. "s %-8s %-5s %6.1f %" .. iw .. ".1f %8.1f", r.pid, r.program:sub(1, pw), r.user:sub(1, 8),
      r.js:sub(1, 5), r.cpu_pct, r.io_s, r.faults_s))
    rec.top[i] = { pid = r.pid, program = r.program, user = r.user, js = r.js, cpu_pct = r.cpu_pct, io_s = r.io_s,
                   faults_s = r.faults_s }
  end
  add("")
  local names = info.host and info.host.disks or {}
  add(string.format("%6s %-8s %9s %9s %8s %6s", "LDEV", "DISK", "READS/s", "WRITES/s", "RTT ms", "QUEUE"), "1")
  for i = 1, nd do
    local d = drows[i]
    local name = names[d.ldev] or "disk"
    add(string.format("%6d %-8s %9.1f %9.1f %8.2f %6d", d.ldev, name:sub(1, 8), d.reads_s, d.writes_s, d.rtt_ms, d.queue))
    rec.disks[i] = { ldev = d.ldev, name = names[d.ldev], reads_s = d.reads_s, writes_s = d.writes_s, rtt_ms = d.rtt_ms, queue = d.queue }
  end
  while #lines > rows do lines[#lines] = nil end
  return lines, rec
end

local plot = cli.recorder(opts, "glance", { title = "busy per CPU", ylabel = "% busy" })
local watch = cli.watch(s)

local frames = 0   -- frames shown
local function run()
  local prev = sample()
  watch()
  local last, help
  -- Draws the screen: the help, or the frame of the last two samples at the terminal's size now.
  local size   -- the size last drawn at, "rows x cols"
  local function draw()
    local rows, cols = term_size()
    size = rows .. "x" .. cols
    local lines = help and HELP or frame(last[1], last[2], rows, cols, last[3])
    for j = #lines, rows + 1, -1 do lines[j] = nil end
    io.write("\27[H\27[J", table.concat(lines, "\n"))   -- no newline after the last: no scroll
    io.flush()
  end
  while opts.count == 0 or frames < opts.count do
    local i = frames + 1
    if tty then
      -- wait out the interval a tenth of a second at a time, acting on keys
      local deadline, polls = mi.clock() + opts.interval * 1000, 0
      while mi.clock() < deadline do
        polls = polls + 1   -- about once a second: a resized terminal is redrawn at once
        if polls % 10 == 0 and last and size ~= table.concat({ term_size() }, "x") then draw() end
        local key = io.read(1)
        if key then
          if help then help = false
          elseif key == "q" or key == "Q" then return
          elseif key == "h" or key == "?" then help = true
          elseif key == "c" or key == "i" or key == "f" then opts.by = ({ c = "cpu", i = "io", f = "faults" })[key] end
          if last then draw() end
        end
      end
    else
      mi.sleep(opts.interval)
    end
    local cur = sample()
    local why = watch()
    last = { prev, cur, why }
    local rows, cols = term_size()
    local lines, rec = frame(prev, cur, tty and rows or 1000, tty and cols or 200, why)
    if rec.missing then
      if not tty then cli.unmeasured("glance", rec.missing) end
      rec.missing = nil
    end
    if rec.unmeasured then
      if not tty then cli.unmeasured("glance", rec.unmeasured) end   -- (a screen shows "-" where it has no figure)
      rec.unmeasured = nil
    else
      local points = {}
      for _, c in ipairs(rec.cpus) do points[#points + 1] = { "CPU " .. c.cpu, c.busy } end
      plot.add(points)
    end
    if opts.json then rec.time = cli.stamp(); io.write(cli.json(rec), "\n")
    elseif opts.csv then
      local function f2(v) return v == cli.NONE and "" or string.format("%.2f", v) end
      if i == 1 then io.write("time,sample,cpu,busy,user,system\n") end
      for _, c in ipairs(rec.cpus) do io.write(string.format("%s,%d,%d,%s,%s,%s\n", cli.stamp(), i, c.cpu, f2(c.busy), f2(c.user), f2(c.system))) end
    elseif tty then draw()
    else io.write(table.concat(lines, "\n"), "\n\n") end
    io.flush()
    prev = cur
    frames = i
  end
end

-- screen_on inside the pcall: a signal while it switches still gets the terminal back; a replayed
-- recording that ends before --count frames ends the run as the count would, said with the frames
-- shown, as cli.loop says it (#30.4)
local raises = mi._end_raises
mi._end_raises = true
local ok, err = pcall(function() if tty then screen_on() end run() end)
mi._end_raises = raises
if tty then screen_off() end
s:close()
plot.finish()
if not ok and err == mi.REPLAY_END then cli.replay_ended(frames, math.floor(opts.count)) ok = true end
local e = tostring(err)
if not ok and not e:find("interrupted!", 1, true) and not e:find("terminated by signal", 1, true) then error(err, 0) end
