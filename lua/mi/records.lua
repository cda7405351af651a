-- mi.records: the exporter and recordings: OpenMetrics text, recorded items, recorders, replays, recording health.
-- Part of the mi facade: loaded by lua/mi/init.lua, it adds to M using the facade's private helpers P.
local F = package.loaded["mi._facade"]   -- set by lua/mi/init.lua while it loads its parts
  or error("mi.records is a part of the mi facade: require('mi')", 2)
local M, P = F.M, F.P
local BY_NAME, BY_NUM, Session, arg_check, core, opt_check, source_options = P.BY_NAME, P.BY_NUM, P.Session, P.arg_check, P.core, P.opt_check, P.source_options
-- ---------------------------------------------------------------- OpenMetrics (#15)
-- Exporters by system userdata and options: a later call reads what happened since the first.
local EXPORTERS = setmetatable({}, { __mode = "k" })

-- Returns the system's counters as an OpenMetrics 1.0.0 exposition (opts.format = "text": the
-- Prometheus text format 0.0.4), e.g. for node_exporter's textfile collector. x: a session, a
-- system or nil (the default system); opts: {format =, pids = N (per-PID series), mapping =,
-- processes = false, io = false, items = {numbers or names}: only those catalog items}. The first call on a system turns the exporter's counters on
-- (they count from then on); later calls with the same options reuse it.
function M.openmetrics(x, opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("bad argument #2 to 'openmetrics' (table expected, got " .. type(opts) .. ")", 2) end
  local sys = x
  if x == nil or x == "default" then sys = M.default_system()
  elseif getmetatable(x) == Session then sys = x.sys end
  if type(sys) ~= "userdata" then error("bad argument #1 to 'openmetrics' (session or system expected, got " .. type(x) .. ")", 2) end
  local fmt = opts.format or "openmetrics"
  if fmt ~= "openmetrics" and fmt ~= "text" then error("bad format '" .. tostring(fmt) .. "' (openmetrics or text)", 2) end
  opt_check(opts.pids == nil or math.type(opts.pids) == "integer" and opts.pids >= 0, "pids", "openmetrics", "a count of processes (an integer >= 0) or nil", opts.pids)
  local items
  if opts.items ~= nil then   -- only these catalog items (numbers or names); user-defined counters always
    opt_check(type(opts.items) == "table" and #opts.items > 0, "items", "openmetrics", "a list of item numbers or names", opts.items)
    items = {}
    for i, v in ipairs(opts.items) do
      local it = M.item(v)
      if not it then error(("bad option 'items' to 'openmetrics' (item %s (#%d) is not in the catalog)"):format(tostring(v), i), 2) end
      items[i] = it.item
    end
  end
  local key = table.concat({ tostring(opts.pids), tostring(opts.mapping), tostring(opts.processes), tostring(opts.io),
                             items and table.concat(items, ",") or "" }, "|")
  local byopts = EXPORTERS[sys] or {}
  EXPORTERS[sys] = byopts
  local e = byopts[key]
  if not e then
    local ok, r = pcall(function()
      local s = core.session(sys)
      return core.exporter(s, { pids = opts.pids, mapping = opts.mapping, processes = opts.processes, io = opts.io, items = items })
    end)
    if not ok then error((tostring(r):gsub("^[^:]*mi/[%w_]+%.lua:%d+: ", "")), 2) end
    e = r
    byopts[key] = e
  end
  local ok, text = pcall(e.format, e, fmt)
  if not ok then error(text, 2) end
  return text
end

-- ---------------------------------------------------------------- recordings (#13)
-- Expands recording item specs into numbers: numbers, names (any domain), "DOMAIN:*" (every
-- counter of a domain), "DOMAIN:NAME" or a glob ("pmc_*"), "userdef:*" (every user-defined
-- counter of the recorded system, those installed while it records too: -1). With sys, names
-- and globs take sys's own user-defined counters only. Raises naming a bad one.
function M.record_items(list, sys)
  arg_check(type(list) == "table" or type(list) == "string" or math.type(list) == "integer", 1, "record_items", "item list", list)
  arg_check(sys == nil or type(sys) == "userdata", 2, "record_items", "system or nil", sys)
  if type(list) ~= "table" then list = { list } end
  local nums, seen, own = {}, {}, nil
  if sys ~= nil then
    M.sync_items(sys)
    own = {}
    for _, it in ipairs(sys:udef_items(0)) do own[it.name] = it end
  end
  local function add(it)
    if it.userdef and own then it = own[it.name] if not it then return false end end
    if it.kind ~= "pseudo" and not seen[it.item] then seen[it.item] = true; nums[#nums + 1] = it.item end
    return true
  end
  for _, x in ipairs(list) do
    if x == "userdef:*" or x == "userdef" then
      if not seen[-1] then seen[-1] = true; nums[#nums + 1] = -1 end
    elseif math.type(x) == "integer" and x >= 29000 and x < 29256 then
      if not seen[x] then seen[x] = true; nums[#nums + 1] = x end   -- the recorder checks it against the system
    elseif math.type(x) == "integer" then
      local it = BY_NUM[x]
      if not it then error("bad item " .. x .. " (not in the catalog)", 2) end
      add(it)
    elseif type(x) == "string" then
      local d, rest = x:match("^(%a+):(.+)$")
      if d and not BY_NAME[d] then error("bad domain '" .. d .. "' in '" .. x .. "' (global, process, io, processor)", 2) end
      local pat = rest or x
      local glob = pat:find("[%*%%%[]")
      local found = glob and M.find(pat, d) or { M.item(pat, d) }
      if #found == 0 then error("bad item '" .. x .. "': no such item", 2) end
      for _, it in ipairs(found) do
        if not add(it) and not glob then error("bad item '" .. x .. "': not a user-defined counter of the recorded system", 2) end
      end
    else error("bad item list: " .. type(x), 2) end
  end
  return nums
end

-- Starts recording: {system = (default), path = FILE, items = list (M.RECORD_ITEMS), fsync =
-- "none"|"interval"|"every", key_every =, mapping =}. Returns a recorder: r:sample(), r:mark(text),
-- r:stats(), r:close(). The first sample is written at once. Raises with the reason.
function M.record(o)
  if type(o) ~= "table" then error("bad argument #1 to 'record' (table expected, got " .. type(o) .. ")", 2) end
  if type(o.path) ~= "string" then error("record: path = FILE expected", 2) end
  local sys = o.system
  if sys == nil or sys == "default" then sys = M.default_system() end
  local ok, nums = pcall(M.record_items, o.items or M.RECORD_ITEMS, sys)
  if not ok then error(nums, 2) end
  local r
  ok, r = pcall(core.record, sys, o.path, nums, { fsync = o.fsync, key_every = o.key_every, index_every = o.index_every,
    mapping = o.mapping and M.mapping(o.mapping), machine = o.machine, version = o.version or (rawget(_G, "mish_options") or {}).version })
  if not ok then error(r, 2) end
  return r
end

-- Opens a recording as a system: mi.replay(path, {from =, to =, speed = N|"max"}); times are ISO
-- 8601, a date, a time of day ("10:51": the one nearest the start, "to" nearest "from"), "@ticks"
-- or offsets ("+10m": from the start of the recording, "to" from "from"; "-1m": back from its end).
-- The window is clamped to the file's span; one that holds no sample is an error. Returns the system.
function M.replay(path, o)
  if type(path) ~= "string" then error("bad argument #1 to 'replay' (path expected, got " .. type(path) .. ")", 2) end
  o = o or {}
  local args = {}
  for name, so in pairs(source_options()) do   -- the replay source's options (#28.2): from, to, speed
    if so.source == "replay" and o[name] ~= nil then args[name] = tostring(o[name]) end
  end
  local ok, sys = pcall(core.open, "replay:" .. path, args)
  if not ok then error(sys, 2) end
  return sys
end

-- Makes the program's clock and sleep follow a replayed system: as fast as possible, a sleep steps
-- the recording (at least to its next sample) and ends the program at the recording's end (or
-- raises M.REPLAY_END when M._end_raises is set); at speed N it sleeps 1/N of the time.
-- mi.clock() reads the recorded time.
function M.replay_drive(sys, speed)
  local n = tonumber(speed)
  M._clock = function() return core.replay_clock(sys) end
  local function the_end()
    local bad, what = core.replay_state(sys)
    if bad then io.stderr:write("mish: the recording is not whole: ", what, "\n") end
    if M._end_raises then error(M.REPLAY_END, 0) end
    io.stdout:flush()
    os.exit(0, true)
  end
  if n and n > 0 then
    M._sleep = function(sec)
      if core.replay_ended(sys) then the_end() end
      return core.sleep(sec / n)
    end
    return
  end
  M._sleep = function(sec)
    if core.replay_step(sys, math.floor(sec * 1000 + 0.5)) == 0 then the_end() end
    return true
  end
end

-- What a recording's health (recording:verify()'s table) says is wrong with it, in the words every
-- tool uses (verify, summary, export, a replay: #30.6): damaged regions and bytes skipped, whole
-- samples left unreadable by the damage, gaps, span marks that lie, a torn tail; nil if nothing is.
function M.health_text(h)
  arg_check(type(h) == "table" and math.type(h.damaged_regions) == "integer", 1, "health_text", "recording:verify()'s table", h)
  local parts = {}
  if h.damaged_regions > 0 then parts[#parts + 1] = string.format("%d damaged region(s), %d bytes skipped (first at offset %d)", h.damaged_regions, h.damaged_bytes, h.first_damage) end
  if (h.unreadable or 0) > 0 then parts[#parts + 1] = string.format("%d whole sample(s) unreadable after damage (no key since)", h.unreadable) end
  if h.seq_gaps > 0 then parts[#parts + 1] = h.seq_gaps .. " gap(s) in the record sequence" end
  if (h.bad_marks or 0) > 0 then parts[#parts + 1] = h.bad_marks .. " index record(s) whose span mark disagrees with the samples (not believed)" end
  if h.torn_at >= 0 then parts[#parts + 1] = string.format("torn tail at offset %d (%d bytes)", h.torn_at, h.torn_bytes) end
  return #parts > 0 and table.concat(parts, "; ") or nil
end

-- Says on stderr what is wrong with a recording, if anything (never silent), with the samples
-- that can be read when it is damaged; returns its verify code and health.
function M.recording_state(path, out)
  local ok, r = pcall(core.rec_open, path)
  if not ok then return nil, r end
  local rc, h = r:verify()
  r:close()
  if h.steps_back > 0 and out then   -- whole, but not in time order: every sample is kept, and that is said
    out:write(path, ": the recorded clock goes back ", h.steps_back, " time(s) (first at offset ", h.first_step_back,
      "); every sample is kept, in file order\n")
  end
  if rc ~= 0 and out then
    out:write(path, ": ", M.health_text(h), "; ", h.samples, " sample(s) readable\n")
  end
  return rc, h
end
