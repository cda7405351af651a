-- summary.lua: what a recording saw, per item and entity: samples, coverage of the window,
-- the average rate (time-weighted: the counted total over the time between samples, segment
-- by segment, never across a restart; a process born during the recording counted from its
-- birth), the lowest and highest interval rates with their times; for levels and watermarks
-- (the catalog's reading: current values, settings, maxima) the plain and time-weighted
-- averages and the extremes. MI_Time items are shown in seconds
-- (a rate of 0.5 = half of each second).
local mi = require("mi")
local cli = require("mi.cli")
local rec = require("mi.recording")

local file, argv = rec.args(arg or {})
local opts = cli.parse({
  name = "summary", sampling = false,
  about = "Summarizes a recording per item and entity: samples, coverage, rates, minima and maxima with times.",
  options = {
    { "csv", nil, "write CSV" }, { "json", nil, "write JSON lines" },
    { "from", "T", "start (ISO 8601, a date, a time of day such as 10:51, +10m from the recording's start, -1m from its end)" },
    { "to", "T", "end (as --from; +x counts from --from)" },
    { "items", "GLOB", "only items whose names match (e.g. 'gmt_*')" },
    { "all", nil, "also items that stayed 0" },
    { "view", "CLASS", "a MONITOR class view instead (cur, avg, min, max of every figure): modes, processes, disk or page" },
  },
  footer = "usage: mish scripts/summary.lua FILE [--from T] [--to T] [--csv|--json]",
}, argv)
if opts.csv and opts.json then io.stderr:write("summary: choose one of --csv and --json\n") os.exit(2) end
local VIEWS = { modes = true, processes = true, disk = true, page = true }
if opts.view and not VIEWS[opts.view] then io.stderr:write("summary: --view wants modes, processes, disk or page\n") os.exit(2) end
local r = rec.open("summary", file)
local info = r:info()
local from, to = rec.window("summary", r, opts.from, opts.to)
local tps = info.tpm * 1000   -- ticks per second
local pat = opts.items and ("^" .. opts.items:gsub("[%.%-%+%?]", "%%%0"):gsub("%*", ".*") .. "$")

-- MONITOR's class views (#30): for every figure of the class, per entity, the statistics MONITOR
-- shows — current (the last interval's), average (time-weighted over the window), minimum and
-- maximum (of the interval rates, or of the levels) — from one walk of the window. A figure is
-- a rate (its items summed, differenced per interval, per second; MI_Time items in seconds, so
-- x100 is a percentage of one CPU), a share (MODES: its time over the time the CPU counted in all
-- its modes, in %, as cpu.lua shows it) or a level (its items summed, as sampled). total is the
-- window's count (seconds for MI_Time). A figure whose items the recording lacks, or the recorded
-- host never measures, is missing, and said once.
local CLASSES = {
  modes = { domain = "processor", entity = "cpu", share = { "gmt_idle", "gmt_external_ics", "gmt_dispatcher_ics",
    "gmt_mem_mgr_replenish_critical_pool_ics", "gmt_mem_mgr_sys_fetch_ics", "gmt_mem_mgr_swapin_ics", "gmt_mem_mgr_tos_trap_ics",
    "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }, figures = {   -- every CPU mode the MI counts (Appendix I)
    { "idle", { "gmt_idle" }, 100, "%" }, { "interrupts (external ICS)", { "gmt_external_ics" }, 100, "%" },
    { "dispatcher ICS", { "gmt_dispatcher_ics" }, 100, "%" },
    { "memory manager: replenish critical pool", { "gmt_mem_mgr_replenish_critical_pool_ics" }, 100, "%" },
    { "memory manager: system fetch", { "gmt_mem_mgr_sys_fetch_ics" }, 100, "%" },
    { "memory manager: swap in", { "gmt_mem_mgr_swapin_ics" }, 100, "%" },
    { "memory manager: TOS trap", { "gmt_mem_mgr_tos_trap_ics" }, 100, "%" },
    { "AS queue", { "gmt_as_process" }, 100, "%" }, { "BS queue", { "gmt_bs_process" }, 100, "%" },
    { "CS queue", { "gmt_cs_process" }, 100, "%" }, { "DS queue", { "gmt_ds_process" }, 100, "%" },
    { "ES queue", { "gmt_es_process" }, 100, "%" },
    { "compatibility mode (within the queues)", { "gmt_cm_time" }, 100, "%" },
  } },
  processes = { domain = "process", entity = "process", figures = {
    { "cpu", { "pmt_process_time" }, 100, "%" }, { "ready-queue wait", { "pmt_ready_queue" }, 100, "%" },
    { "launches", { "pmc_launch" }, 1, "/s" }, { "priority changes", { "pmc_process_priority" }, 1, "/s" },
    { "pages in memory", { "pmc_cur_main_mem_pg_objcl_" }, 1, "pages", level = true },
    { "page faults", { "pmc_pg_fault_objcl_" }, 1, "/s" },
    { "disc reads", { "pmc_disc_read" }, 1, "/s" }, { "disc writes", { "pmc_disc_write" }, 1, "/s" },
    { cli.io_heading(info.source), { "pmc_disc_read", "pmc_disc_write" }, 1, "/s" },   -- the host's are read/write calls (#30.10)
    { "KB read", { "pmc_disc_read_size" }, 1 / 1024, "KB/s" }, { "KB written", { "pmc_disc_write_size" }, 1 / 1024, "KB/s" },
  } },
  page = { domain = "global", entity = "system", figures = {   -- MONITOR's PAGE class in the MI's words
    { "page faults", { "gmc_page_flt_count_objcl_" }, 1, "/s" },
    { "faults on virgin pages (demand zero)", { "gmc_page_flt_on_virgin_objcl_" }, 1, "/s" },
    { "overlay candidates recovered (free-list faults)", { "gmc_recover_oc_objcl_" }, 1, "/s" },
    { "pages read in by faults", { "gmc_page_flt_len_objcl_" }, 1, "/s" },
    { "page reads from disc", { "gmc_page_flt_io_pages_objcl_" }, 1, "/s" },
    { "page read I/Os", { "gmc_page_flt_io_mibs_objcl_" }, 1, "/s" },
    { "page writes (dirty overlay candidates)", { "gmc_make_oc_io_pages_objcl_" }, 1, "/s" },
    { "page write I/Os", { "gmc_make_oc_io_mibs_objcl_" }, 1, "/s" },
    { "pages posted to disc", { "gmc_post_io_pages_objcl_" }, 1, "/s" },
    { "modified pages made overlay candidates", { "gmc_make_dirty_oc_objcl_" }, 1, "/s" },
    { "free pages", { "gmc_cur_free_main_mem_pg" }, 1, "pages", level = true },
    { "recoverable overlay candidates (modified list)", { "gmc_cur_roc_pages" }, 1, "pages", level = true },
  } },
  disk = { domain = "io", entity = "ldev", disks = true, figures = {
    { "operations", { "imc_completed_read", "imc_completed_write" }, 1, "/s" },
    { "reads", { "imc_completed_read" }, 1, "/s" }, { "writes", { "imc_completed_write" }, 1, "/s" },
    { "KB transferred", { "imc_read_xfer_size", "imc_write_xfer_size" }, 1 / 1024, "KB/s" },
    { "queue length", { "imc_q_current" }, 1, "requests", level = true },
    { "longest queue", { "imc_q_maximum" }, 1, "requests", level = true },
  } },
}

-- The disk LDEVs of the recording (the replayed recording's device table), or nil when it cannot be replayed.
local function disk_ldevs()
  local ok, devs = pcall(function()
    local sys = mi.replay(file, { speed = "max" })
    local s = mi.open({ system = sys })
    local t = s:info().devices or {}
    s:close() sys:close()
    return t
  end)
  if not ok then return nil end
  local disks = {}
  for l, kind in pairs(devs) do if kind == "disk" then disks[l] = true end end
  return disks
end

-- Adds one row's figures to entity e of view V at time t (run: the stretch of the clock; born: the
-- entity was born since the sample before; at: each figure's item indices in the row; dden: MODES'
-- time the CPU counted in all its modes since the sample before).
local function view_add(V, e, row, at, t, run, born, dden)
  for j, f in ipairs(V.figures) do
    local idx = at[j]
    if idx then
      local v = 0
      for _, i in ipairs(idx) do v = v + (row[i] or 0) end
      local st = e.st[j]
      if not st then st = { sum = 0, dt = 0 } e.st[j] = st end
      local x
      if f.level then
        x = v * f[3]
        if st.run == run and st.pt and t > st.pt then st.sum = st.sum + (st.cur or x) * (t - st.pt) / tps; st.dt = st.dt + (t - st.pt) / tps end
        st.cur, st.n = x, (st.n or 0) + 1
      else
        local dv, dt
        if st.run == run and st.pv and t > st.pt then dv, dt = v - st.pv, (t - st.pt) / tps
        elseif st.run ~= run and born then dv, dt = v, (t - e.start) / tps end
        if dv and V.share then   -- a share of the counted time, not of the clock
          if dden and dden > 0 then
            x = 100 * dv / dden
            st.sum, st.dt, st.cur, st.n, st.total = st.sum + 100 * dv, st.dt + dden, x, (st.n or 0) + 1, (st.total or 0) + dv / tps
          end
        elseif dv then
          if f.time then dv = dv / tps end
          x = dv / dt * f[3]
          st.sum, st.dt, st.cur, st.n, st.total = st.sum + dv * f[3], st.dt + dt, x, (st.n or 0) + 1, (st.total or 0) + dv
        end
      end
      if x then
        if not st.min or x < st.min then st.min = x end
        if not st.max or x > st.max then st.max = x end
      end
      st.pv, st.pt, st.run = v, t, run
    end
  end
end

-- Resolves view V's figures in a segment's layout of domain d: at[j] = the indices of figure j's
-- items (nil when one is missing: dark says why); returns MODES' indices of the modes that
-- partition a CPU's time (nil for other views).
local function view_layout(V, d, undriven, dark, at)
  local pos = {}
  for i, it in ipairs(r:layout(d)) do if it.name then pos[it.name] = i; pos[it.name .. ".unit"] = it.unit end end
  local den
  if V.share then
    den = {}
    for _, n in ipairs(V.share) do if pos[n] then den[#den + 1] = pos[n] end end
  end
  for j, f in ipairs(V.figures) do
    local idx = {}
    for _, n in ipairs(f[2]) do
      if undriven[n] then dark[n] = "not measured by the host source"; idx = nil break end
      if not pos[n] then dark[n] = "not in the recording"; idx = nil break end
      idx[#idx + 1] = pos[n]
      f.time = pos[n .. ".unit"] == "mi_time"
    end
    at[j] = idx
  end
  return den
end

-- Prints view name's table (or CSV/JSON) of the entities in eorder (last: the window's last sample time).
local function view_print(name, V, eorder, last, nsamp, unread)
  local d = V.domain
  local cols = { { "entity", V.entity } }
  if d == "process" then cols[#cols + 1] = { "state", "state" } end
  for _, c in ipairs({ { "figure", "figure" }, { "cur", "cur", "%.6g" }, { "avg", "avg", "%.6g" }, { "min", "min", "%.6g" },
    { "max", "max", "%.6g" }, { "unit", "unit" }, { "total", "total", "%.6g" } }) do cols[#cols + 1] = c end
  local rows = {}
  for _, e in ipairs(eorder) do
    for j, f in ipairs(V.figures) do
      local st = e.st[j]
      local row = { entity = e.text, figure = f[1], unit = f[4] }
      if d == "process" then row.state = e.last == last and "alive" or "gone" end
      if d == "io" then row.entity = tonumber(e.text) or e.text end
      if st and st.n then
        row.cur, row.min, row.max, row.total = st.cur, st.min, st.max, st.total or cli.NONE
        row.avg = st.dt > 0 and st.sum / st.dt or (f.level and st.cur) or cli.NONE
      else
        row.cur, row.avg, row.min, row.max, row.total = cli.NONE, cli.NONE, cli.NONE, cli.NONE, cli.NONE
      end
      rows[#rows + 1] = row
    end
  end
  if #rows == 0 then   -- an empty table is said, not left to read as a class with nothing in it
    io.stderr:write("summary: no ", V.disks and "disk device" or V.entity, " in the window's samples: the ", name, " view is empty\n")
  end
  local said_ = unread > 0 and string.format(" (%d more unreadable after damage)", unread) or ""
  cli.output(opts, cols, nil, true).write(rows, { time = false, file = file, view = name, window_samples = nsamp, unreadable = unread,
    title = string.format("%s: %s, %d samples%s, %s .. %s (cur: the last interval; avg: time-weighted)", file, name, nsamp,
      said_, rec.stamp(from, info.tpm), rec.stamp(to, info.tpm)) })
end

-- Walks the window for view name; prints its table (or CSV/JSON) and exits 0.
local function class_view(name)
  local V = CLASSES[name]
  local d = V.domain
  local disks = V.disks and disk_ldevs()   -- LDEV -> true for the disk devices
  local dark = {}   -- item name -> "not recorded" / "not measured by the host"
  local undriven = info.source == "host" and cli.undriven(info.source, d, (function()
    local all = {}
    for _, f in ipairs(V.figures) do for _, n in ipairs(f[2]) do all[#all + 1] = n end end
    return all
  end)()) or {}
  local ents, eorder = {}, {}
  local at = {}    -- per figure: the indices of its items in the segment's layout (nil: one is missing)
  local den        -- MODES: the indices of the modes that partition a CPU's time
  local nsamp, prev_t, prev_run = 0, nil, nil
  local unread = rec.walk(r, from, to, function(ev, _, run)
    nsamp = nsamp + 1
    local t = ev.time
    local before = prev_run == run and prev_t or nil
    prev_t, prev_run = t, run
    for _, row in ipairs(r:rows(d)) do
      local key = row.key
      if not disks or disks[key] then
        local e = ents[key]
        if d == "process" and e and (e.pid ~= row.pid or e.start ~= row.start) then e = nil end   -- another process in the slot
        if not e then
          e = { key = key, pid = row.pid, start = row.start, text = d == "process" and string.format("%d %s", row.pid, row.program)
                or d == "global" and "system" or tostring(key), st = {} }
          ents[key] = e
          eorder[#eorder + 1] = e
        end
        e.last = t
        local dden   -- MODES: the time the CPU counted in all its modes since the sample before
        if V.share and den then
          local v = 0
          for _, i in ipairs(den) do v = v + (row[i] or 0) end
          if e.drun == run and e.dv then dden = v - e.dv end
          e.dv, e.drun = v, run
        end
        view_add(V, e, row, at, t, run, before and e.start and e.start >= before and e.start < t, dden)
      end
    end
  end, function() den = view_layout(V, d, undriven, dark, at) end)
  if nsamp == 0 then
    if unread > 0 then io.stderr:write("summary: the window's ", unread, " sample(s) are all unreadable after damage: nothing to summarize\n") os.exit(2) end
    rec.empty("summary", r, from, to)
  end
  r:close()
  -- what is missing, said once: the figures' items the recording lacks or the host never measured
  local why = {}
  for _, f in ipairs(V.figures) do
    for _, n in ipairs(f[2]) do if dark[n] then why[#why + 1] = f[1] .. " (" .. n .. ": " .. dark[n] .. ")" break end end
  end
  if #why > 0 then io.stderr:write("summary: not measured, shown as missing: ", table.concat(why, "; "), "\n") end
  view_print(name, V, eorder, prev_t, nsamp, unread)
  os.exit(0)
end
if opts.view then class_view(opts.view) end

-- The walk's inner loop is keyed by entity and item index (#31.4): each segment's layout gives,
-- per domain, the items shown (index, name, kind) once; each entity (a process is its slot, pid,
-- program and start time) keeps, per layout, the list of its stats in that order, so a value
-- is stat j of its row, with no key built per value. A stat's text key (domain|entity|item) is
-- made only when an entity first meets a layout. The running figures live in C (core.stats,
-- lua/mi_stats.c), fed straight from the reader's cells: one call per domain and sample adds
-- every entity's values, with no row table (#31); the entities' identities and stat ids live
-- there too, and Lua is called only when an entity meets a layout (spec/stats_spec.lua holds
-- it to the former row-table loop).
local stats, order, nsamples, segments = {}, {}, 0, 0
local sel, gen = {}, 0            -- per domain: the items shown, {at = index in the row, name, level, time, reading}
local sel_at = {}                 -- per domain: those items' indices in the row
local ents = {}                   -- per domain: row key -> entity id in core.stats (which keeps its identity and stat ids)
for _, d in ipairs(rec.DOMAINS) do ents[d] = {} end
local prev_t, prev_run            -- the sample before, in the same stretch of the clock
local acc = require("mi.core").stats(tps)   -- every stat's running figures, in C (lua/mi_stats.c)
-- The stat of item it of entity text ent of domain d, made at its first sight (in order).
local function stat_of(d, ent, it)
  local k = d .. "|" .. ent .. "|" .. it.name
  local s = stats[k]
  if not s then
    s = { domain = d, entity = ent, item = it.name, reading = it.reading, level = it.level, time = it.time, id = acc:new(it.level, it.time) }
    stats[k] = s
    order[#order + 1] = k
  end
  return s
end
-- The stat ids of entity eid of domain d (a process: pid, program, start) in the layout's order,
-- made at the entity's first row in a layout (core.stats' sample calls it).
local resolve = {}
for _, d in ipairs(rec.DOMAINS) do
  resolve[d] = function(eid, key, pid, program)
    local text = pid and string.format("%d %s", pid, program) or d == "global" and "-" or tostring(key)
    local its, ids = sel[d], {}
    for j = 1, #its do
      local st = stat_of(d, text, its[j])
      if st.owner ~= eid then st.owner = eid; acc:release(st.id) end   -- another process of the same name: no difference across
      ids[j] = st.id
    end
    return ids
  end
end
-- unreadable: whole samples of the window that damage left unreadable (taken, not data: coverage counts them, #30.6)
local unreadable = rec.walk(r, from, to, function(ev, _, seg)   -- seg: a stretch of the recorded clock (rates never span two)
  nsamples = nsamples + 1
  local t = ev.time
  local before = prev_run == seg and prev_t or nil
  prev_t, prev_run = t, seg
  for _, d in ipairs(rec.DOMAINS) do
    -- every entity's values added in C, straight from the reader's cells: a process born since
    -- the sample before counts from its birth, its counters started at 0 then (#30.5)
    if #sel[d] > 0 then acc:sample(r, d, sel_at[d], t, seg, before, gen, ents[d], resolve[d]) end
  end
end, function(seg)
  segments = seg
  gen = gen + 1
  for _, d in ipairs(rec.DOMAINS) do
    local its = {}
    for i, it in ipairs(r:layout(d)) do
      local name = it.name or tostring(it.item)
      if not pat or name:find(pat) then
        its[#its + 1] = { at = i, name = name, reading = it.reading, level = it.reading ~= nil and it.reading ~= "total", time = it.unit == "mi_time" }
      end
    end
    sel[d] = its
    local at = {}
    for j, it in ipairs(its) do at[j] = it.at end
    sel_at[d] = at
  end
end)
if nsamples == 0 and unreadable > 0 then
  io.stderr:write("summary: the window's ", unreadable, " sample(s) are all unreadable after damage: nothing to summarize\n")
  os.exit(2)
elseif nsamples == 0 then rec.empty("summary", r, from, to) end   -- a window between two samples
local taken = nsamples + unreadable   -- coverage is of the samples the recording took in the window
local said = unreadable > 0 and string.format(" (%d more unreadable after damage)", unreadable) or ""
r:close()


-- the items a recorded host never measures (outside its map: they were recorded as 0) are no data (#30)
local undriven, dark = {}, 0
if info.source == "host" then
  local names, seen = {}, {}   -- each item's name once per domain (not once per entity)
  for _, k in ipairs(order) do
    local d, n = stats[k].domain, stats[k].item
    seen[d] = seen[d] or {}
    if not seen[d][n] then seen[d][n] = true; names[d] = names[d] or {}; names[d][#names[d] + 1] = n end
  end
  for d, list in pairs(names) do undriven[d] = cli.undriven("host", d, list) end
end
local stamps = {}   -- ticks -> its text: the extremes' times are the window's few sample times
-- The text of a recorded time, made once per time.
local function stamp(t)
  local x = stamps[t]
  if not x then x = rec.stamp(t, info.tpm); stamps[t] = x end
  return x
end
local rows = {}
for _, k in ipairs(order) do
  local s = stats[k]
  -- a stat that shows nothing (no total over an interval, extremes absent or 0) is left out
  -- without --all, before its tables are made (most of a host's processes): stats:zero's rule
  if not opts.all and acc:zero(s.id) then goto next_stat end
  local g = acc:get(s.id)   -- its figures, from C
  local row = { domain = s.domain, entity = s.entity, item = s.item, samples = g.n,
    coverage = taken > 0 and 100 * g.n / taken or 0, unit = s.time and "s" or "" }
  if undriven[s.domain] and undriven[s.domain][s.item] then
    row.kind = s.level and s.reading or "counter"
    row.total, row.avg, row.twavg, row.min, row.max = cli.NONE, cli.NONE, cli.NONE, cli.NONE, cli.NONE
    dark = dark + 1
    if opts.all then rows[#rows + 1] = row end
    goto next_stat
  end
  if s.level then
    row.kind = s.reading   -- level or watermark
    row.avg = g.nv > 0 and g.sumv / g.nv or 0
    row.twavg = g.dt > 0 and g.sumvdt / g.dt or row.avg
    row.min, row.max = g.minv, g.maxv
  else
    row.kind = "counter"
    row.total = g.dt > 0 and g.total or cli.NONE   -- one sample, no interval: nothing counted, not 0
    row.avg = g.dt > 0 and g.total / g.dt or cli.NONE
    row.min, row.max = g.minr, g.maxr
  end
  row.min_at, row.max_at = g.mint and stamp(g.mint), g.maxt and stamp(g.maxt)
  rows[#rows + 1] = row
  ::next_stat::
end
if opts.all and dark > 0 then
  io.stderr:write(string.format("summary: %d item(s) the recorded host never measures (outside its map) show as missing\n", dark))
end

local meta = { time = false, file = file, from = rec.stamp(from, info.tpm), to = rec.stamp(to, info.tpm), window_samples = nsamples, segments = segments,
  unreadable = unreadable,
  title = string.format("%s: %d samples%s, %d segment(s), %s .. %s (rates per second; MI_Time in seconds)", file, nsamples, said,
    segments, rec.stamp(from, info.tpm), rec.stamp(to, info.tpm)) }
cli.output(opts, {
  { "domain", "domain" }, { "entity", "entity" }, { "item", "item" }, { "kind", "kind" }, { "samples", "samples" },
  { "coverage", "cover%", "%.0f" }, { "total", "total", "%.6g" }, { "avg", "avg (/s)", "%.6g" }, { "twavg", "tw avg", "%.6g" },
  { "min", "min", "%.6g" }, { "min_at", "min at" }, { "max", "max", "%.6g" }, { "max_at", "max at" }, { "unit", "unit" },
}, nil, true).write(rows, meta)   -- one report: no Average kept
