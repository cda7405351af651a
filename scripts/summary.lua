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
    { "view", "CLASS", "a MONITOR-style class view instead: modes (per CPU), processes, disk or page" },
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

-- The walk's inner loop is keyed by entity and item index (#31.4): each segment's layout gives,
-- per domain, the items shown (index, name, kind) once; each entity (a process is its slot, pid,
-- program and start time) keeps, per layout, the list of its stats in that order, so a value
-- is stat j of its row, with no key built per value. A stat's text key (domain|entity|item) is
-- made only when an entity first meets a layout. The running figures live in C (core.stats,
-- lua/mi_stats.c): one call per row adds every value of it (0.61 -> 0.20 s for 500 processes x
-- 9 items x 120 samples; spec/stats_spec.lua holds the C to the former Lua loop).
local stats, order, nsamples, segments = {}, {}, 0, 0
local sel, gen = {}, 0            -- per domain: the items shown, {at = index in the row, name, level, time, reading}
local sel_at = {}                 -- per domain: those items' indices in the row
local ents = {}                   -- per domain: row key -> entity {text, pid, program, start, gen, list}
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
-- unreadable: whole samples of the window that damage left unreadable (taken, not data: coverage counts them, #30.6)
local unreadable = rec.walk(r, from, to, function(ev, _, seg)   -- seg: a stretch of the recorded clock (rates never span two)
  nsamples = nsamples + 1
  local t = ev.time
  local before = prev_run == seg and prev_t or nil
  prev_t, prev_run = t, seg
  for _, d in ipairs(rec.DOMAINS) do
    local its, at, E = sel[d], sel_at[d], ents[d]
    local ni = #its
    if ni > 0 then
      for _, row in ipairs(r:rows(d)) do
        local key = row.key
        local e = E[key]
        if d == "process" then
          if not e or e.pid ~= row.pid or e.start ~= row.start or e.program ~= row.program then   -- another process in the slot
            e = { text = string.format("%d %s", row.pid, row.program), pid = row.pid, program = row.program, start = row.start }
            E[key] = e
          end
        elseif not e then
          e = { text = d == "global" and "-" or tostring(key) }
          E[key] = e
        end
        local ids = e.ids
        if e.gen ~= gen then   -- the entity meets this layout: its stats in the layout's order
          ids = {}
          for j = 1, ni do
            local st = stat_of(d, e.text, its[j])
            if st.owner ~= e then st.owner = e; acc:release(st.id) end   -- another process of the same name: no difference across
            ids[j] = st.id
          end
          e.ids, e.gen = ids, gen
        end
        -- a process born since the sample before counts from its birth: its counters started at 0 then (#30.5)
        local born = before and e.start and e.start >= before and e.start < t
        acc:row(ids, row, at, t, seg, born and e.start or nil)
      end
    end
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
for _, k in ipairs(order) do   -- the stats' figures from C, as fields of each stat
  local st = stats[k]
  for f, v in pairs(acc:get(st.id)) do st[f] = v end
end
local taken = nsamples + unreadable   -- coverage is of the samples the recording took in the window
local said = unreadable > 0 and string.format(" (%d more unreadable after damage)", unreadable) or ""
r:close()

-- A MONITOR-style class view over the window from the per-item totals.
local function view(name)
  local by = {}   -- entity -> item -> stat
  local ents = {}
  for _, k in ipairs(order) do
    local st = stats[k]
    local key = st.domain .. "|" .. st.entity
    if not by[key] then by[key] = {}; ents[#ents + 1] = { domain = st.domain, entity = st.entity, key = key } end
    by[key][st.item] = st
  end
  local function tot(key, item) local x = by[key][item] return x and x.total or 0 end
  local function secs(key) local m = 0 for _, x in pairs(by[key]) do if not x.level and (x.dt or 0) > m then m = x.dt end end return m end
  local rows, cols = {}, nil
  if name == "modes" then
    local parts = { { "idle", { "gmt_idle" } }, { "ics", { "gmt_external_ics" } }, { "disp", { "gmt_dispatcher_ics" } },
      { "memmgr", { "gmt_mem_mgr_replenish_critical_pool_ics", "gmt_mem_mgr_sys_fetch_ics", "gmt_mem_mgr_swapin_ics", "gmt_mem_mgr_tos_trap_ics" } },
      { "as", { "gmt_as_process" } }, { "bs", { "gmt_bs_process" } }, { "cs", { "gmt_cs_process" } },
      { "ds", { "gmt_ds_process" } }, { "es", { "gmt_es_process" } } }
    cols = { { "cpu", "cpu" } }
    for _, p in ipairs(parts) do cols[#cols + 1] = { p[1], p[1] .. "%", "%.1f" } end
    for _, e in ipairs(ents) do
      if e.domain == "processor" then
        local row, sum = { cpu = e.entity }, 0
        for _, p in ipairs(parts) do local v = 0 for _, it in ipairs(p[2]) do v = v + tot(e.key, it) end row[p[1]] = v sum = sum + v end
        for _, p in ipairs(parts) do row[p[1]] = sum > 0 and 100 * row[p[1]] / sum or 0 end
        rows[#rows + 1] = row
      end
    end
  elseif name == "processes" then
    cols = { { "process", "process" }, { "cpu_s", "cpu s", "%.3f" }, { "cpu_pct", "cpu%", "%.1f" }, { "io_s", cli.io_heading(info.source), "%.2f" },
             { "faults_s", "faults/s", "%.2f" }, { "coverage", "cover%", "%.0f" } }
    for _, e in ipairs(ents) do
      if e.domain == "process" then
        local t = secs(e.key)
        local cpu = tot(e.key, "pmt_process_time")
        local any = next(by[e.key])
        rows[#rows + 1] = { process = e.entity, cpu_s = cpu, cpu_pct = t > 0 and 100 * cpu / t or 0,
          io_s = t > 0 and (tot(e.key, "pmc_disc_read") + tot(e.key, "pmc_disc_write")) / t or 0,
          faults_s = t > 0 and tot(e.key, "pmc_pg_fault_objcl_") / t or 0, coverage = by[e.key][any].n * 100 / math.max(taken, 1) }
      end
    end
    table.sort(rows, function(a, b) return a.cpu_s > b.cpu_s end)
  elseif name == "disk" then
    cols = { { "ldev", "ldev" }, { "reads_s", "reads/s", "%.2f" }, { "writes_s", "writes/s", "%.2f" }, { "kb_s", "KB/s", "%.1f" },
             { "rtt_ms", "rtt ms", "%.2f" } }
    for _, e in ipairs(ents) do
      if e.domain == "io" then
        local t = secs(e.key)
        local rd, wt = tot(e.key, "imc_completed_read"), tot(e.key, "imc_completed_write")
        local rtt = tot(e.key, "imt_rd_round_trip_time") + tot(e.key, "imt_wt_round_trip_time")
        rows[#rows + 1] = { ldev = tonumber(e.entity), reads_s = t > 0 and rd / t or 0, writes_s = t > 0 and wt / t or 0,
          kb_s = t > 0 and (tot(e.key, "imc_read_xfer_size") + tot(e.key, "imc_write_xfer_size")) / 1024 / t or 0,
          rtt_ms = rd + wt > 0 and 1000 * rtt / (rd + wt) or 0 }
      end
    end
  else   -- page: the fault and memory-manager counters of the system, per second
    cols = { { "item", "item" }, { "per_s", "per second", "%.3f" }, { "total", "total", "%.6g" } }
    for _, e in ipairs(ents) do
      if e.domain == "global" then
        for item, x in pairs(by[e.key]) do
          if (item:find("fault") or item:find("mem_mgr") or item:find("page")) and not x.level and x.total ~= 0 then
            rows[#rows + 1] = { item = item, per_s = x.dt > 0 and x.total / x.dt or 0, total = x.total }
          end
        end
      end
    end
    table.sort(rows, function(a, b) return a.per_s > b.per_s end)
  end
  return rows, cols
end

if opts.view then
  local vrows, vcols = view(opts.view)
  cli.output(opts, vcols).write(vrows, { time = false, file = file, view = opts.view, window_samples = nsamples, unreadable = unreadable,
    title = string.format("%s: %s, %d samples%s, %s .. %s", file, opts.view, nsamples, said, rec.stamp(from, info.tpm), rec.stamp(to, info.tpm)) })
  os.exit(0)
end

local rows = {}
for _, k in ipairs(order) do
  local s = stats[k]
  local row = { domain = s.domain, entity = s.entity, item = s.item, samples = s.n,
    coverage = taken > 0 and 100 * s.n / taken or 0, unit = s.time and "s" or "" }
  if s.level then
    row.kind = s.reading   -- level or watermark
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

local meta = { time = false, file = file, from = rec.stamp(from, info.tpm), to = rec.stamp(to, info.tpm), window_samples = nsamples, segments = segments,
  unreadable = unreadable,
  title = string.format("%s: %d samples%s, %d segment(s), %s .. %s (rates per second; MI_Time in seconds)", file, nsamples, said,
    segments, rec.stamp(from, info.tpm), rec.stamp(to, info.tpm)) }
cli.output(opts, {
  { "domain", "domain" }, { "entity", "entity" }, { "item", "item" }, { "kind", "kind" }, { "samples", "samples" },
  { "coverage", "cover%", "%.0f" }, { "total", "total", "%.6g" }, { "avg", "avg (/s)", "%.6g" }, { "twavg", "tw avg", "%.6g" },
  { "min", "min", "%.6g" }, { "min_at", "min at" }, { "max", "max", "%.6g" }, { "max_at", "max at" }, { "unit", "unit" },
}).write(rows, meta)
