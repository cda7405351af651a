-- glance.lua: a full-screen live display — CPU bars, the top processes and the busiest
-- disks — refreshed every interval. q quits; so does Ctrl-C; the terminal is restored
-- either way, and on SIGTERM and SIGHUP too (mish turns them into an error in the running
-- script, then ends by the signal). Without a terminal it prints --count plain frames.
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "glance",
  about = "Live full-screen view: CPU per processor, top processes, busiest disks. Press q to quit.",
  options = { { "n", "N", "processes and disks to show", 8 } },
  footer = "--count defaults to 0 here (run until q); --csv/--json print one record per refresh.",
})
local count_given = false
for _, a in ipairs(arg or {}) do if a:match("^%-%-count") then count_given = true end end
if not count_given then opts.count = 0 end

local s = cli.session()
local info = s:info()
assert(s:on("global", { "gmc_pauses", "gmt_paused", "gmt_idle" }), "cannot enable processor counters")
assert(s:on("process", { "pmt_process_time", "pmc_disc_read", "pmc_disc_write" }), "cannot enable process counters")
local disks = s:on("io", { "imc_logical_rd", "imc_logical_wt", "imt_rd_round_trip_time", "imt_wt_round_trip_time",
                           "imc_q_current" }, { ldev = "disk" }) ~= nil
local cpu_items = { "gmt_idle", "gmt_external_ics", "gmt_dispatcher_ics", "gmt_mem_mgr_sys_fetch_ics",
  "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }

local tty = os.execute("test -t 0 && test -t 1") == true and not opts.csv and not opts.json
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

local function sample()
  local procs = {}
  for _, r in ipairs(s:get("process")) do procs[r.pid] = r end
  return { cpu = s:get("processor", cpu_items), p = procs, d = disks and s:get("io") or {}, t = mi.clock() }
end

-- Builds one frame from two samples: a list of lines plus a record for --json/--csv.
local function frame(prev, cur)
  local ms = cur.t - prev.t
  local lines, rec = {}, { cpus = {}, top = {}, disks = {} }
  local w = info.workload
  lines[#lines + 1] = string.format("mish glance — %s, %d CPU%s — %s — every %gs — q quits",
    w and ("simulated HP 3000, workload " .. w.name) or "host", info.cpus, info.cpus > 1 and "s" or "",
    os.date("%H:%M:%S"), opts.interval)
  lines[#lines + 1] = ""
  for c = 1, info.cpus do
    local d = mi.delta(cur.cpu[c], prev.cpu[c])
    local total = 0
    for _, n in ipairs(cpu_items) do total = total + d[n] end
    local busy = 100 - mi.pct(d.gmt_idle, total)
    local user = mi.pct(d.gmt_cs_process + d.gmt_ds_process + d.gmt_es_process, total)
    local sys = busy - user
    local width = 40
    local nu, ns = math.floor(user * width / 100 + 0.5), math.floor(sys * width / 100 + 0.5)
    if nu + ns > width then ns = width - nu end
    lines[#lines + 1] = string.format("CPU %d [%s%s%s] %5.1f%%  (user %4.1f  system %4.1f)", c - 1,
      string.rep("#", nu), string.rep("=", ns), string.rep(".", width - nu - ns), busy, user, sys)
    rec.cpus[c] = { cpu = c - 1, busy = busy, user = user, system = sys }
  end
  lines[#lines + 1] = ""
  local rows = cli.process_rates(s, prev.p, cur.p, ms)
  table.sort(rows, function(a, b) if a.cpu_pct ~= b.cpu_pct then return a.cpu_pct > b.cpu_pct end return a.pid < b.pid end)
  lines[#lines + 1] = string.format("%8s  %-16s %-12s %6s %7s", "PID", "PROGRAM", "USER", "CPU%", "I/O/s")
  for i = 1, math.min(opts.n, #rows) do
    local r = rows[i]
    lines[#lines + 1] = string.format("%8d  %-16s %-12s %6.1f %7.1f", r.pid, r.program:sub(1, 16), r.user:sub(1, 12), r.cpu_pct, r.io_s)
    rec.top[i] = { pid = r.pid, program = r.program, user = r.user, cpu_pct = r.cpu_pct, io_s = r.io_s }
  end
  lines[#lines + 1] = ""
  local drows = cli.disk_rates(s, prev.d, cur.d, ms)
  table.sort(drows, function(a, b) if a.ios ~= b.ios then return a.ios > b.ios end return a.ldev < b.ldev end)
  lines[#lines + 1] = string.format("%6s %9s %9s %8s %6s", "LDEV", "READS/s", "WRITES/s", "RTT ms", "QUEUE")
  for i = 1, math.min(opts.n, #drows) do
    local d = drows[i]
    lines[#lines + 1] = string.format("%6d %9.1f %9.1f %8.2f %6d", d.ldev, d.reads_s, d.writes_s, d.rtt_ms, d.queue)
    rec.disks[i] = { ldev = d.ldev, reads_s = d.reads_s, writes_s = d.writes_s, rtt_ms = d.rtt_ms, queue = d.queue }
  end
  return lines, rec
end

local plot = cli.recorder(opts, "glance", { title = "busy per CPU", ylabel = "% busy" })

local function run()
  local prev = sample()
  local i = 0
  while opts.count == 0 or i < opts.count do
    i = i + 1
    if tty then
      -- wait out the interval a tenth of a second at a time, watching for q
      local deadline = mi.clock() + opts.interval * 1000
      while mi.clock() < deadline do
        local k = io.read(1)
        if k == "q" or k == "Q" then return end
      end
    else
      mi.sleep(opts.interval)
    end
    local cur = sample()
    local lines, rec = frame(prev, cur)
    local points = {}
    for _, c in ipairs(rec.cpus) do points[#points + 1] = { "CPU " .. c.cpu, c.busy } end
    plot.add(points)
    if opts.json then rec.time = cli.stamp(); io.write(cli.json(rec), "\n")
    elseif opts.csv then
      if i == 1 then io.write("time,sample,cpu,busy,user,system\n") end
      for _, c in ipairs(rec.cpus) do io.write(string.format("%s,%d,%d,%.2f,%.2f,%.2f\n", cli.stamp(), i, c.cpu, c.busy, c.user, c.system)) end
    elseif tty then io.write("\27[H\27[J", table.concat(lines, "\n"), "\n")
    else io.write(table.concat(lines, "\n"), "\n\n") end
    io.flush()
    prev = cur
  end
end

-- screen_on inside the pcall: a signal while it switches still gets the terminal back
local ok, err = pcall(function() if tty then screen_on() end run() end)
if tty then screen_off() end
s:close()
plot.finish()
local e = tostring(err)
if not ok and not e:find("interrupted!", 1, true) and not e:find("terminated by signal", 1, true) then error(err, 0) end
