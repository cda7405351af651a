-- mi: the Measurement Interface for Lua — names instead of numbers, tables instead
-- of buffers, statuses as data. Built on the C module mi.core; `mi.literal` mirrors
-- the manual's calls one to one.
local core = require("mi.core")

local M = { core = core, USER_ID = 666 }

-- Raises Lua's "bad argument #n to 'fname' (expected, got TYPE)" at the caller of fname when
-- ok is false (level: that caller's level from here, default 3).
local function arg_check(ok, n, fname, expected, v, level)
  if not ok then
    error(string.format("bad argument #%s to '%s' (%s expected, got %s)", tostring(n), tostring(fname), tostring(expected),
      type(v) == "number" and tostring(v) or type(v)), level or 3)
  end
end
-- Raises "bad option 'key' to 'fname' (expected expected, got ...)" at the caller of fname (level as
-- arg_check's) unless ok: an option named as the user wrote it, never a C function's argument number.
local function opt_check(ok, key, fname, expected, v, level)
  if not ok then
    error(string.format("bad option '%s' to '%s' (%s expected, got %s)", key, fname, expected,
      type(v) == "number" and tostring(v) or type(v) == "string" and ("'" .. v .. "'") or type(v)), level or 3)
  end
end
-- An options table or nil for method fname's argument #n (self not counted); returns a table.
local function opts_of(opts, n, fname, level)
  arg_check(opts == nil or type(opts) == "table", n, fname, "options table or nil", opts, (level or 2) + 2)
  return opts or {}
end
local MAPS = { large = 0, small = 1, standard = 2 }
local MAP_NAMES = { [0] = "large", "small", "standard" }
local DOMAIN_PREFIX = { global = { 21 }, process = { 25, 20 }, io = { 23, 20 }, processor = { 27, 20 } }

-- ---------------------------------------------------------------- catalog
-- The catalog tables fill themselves at their first use (#17.2: a start-up that never looks
-- pays nothing): indexing, # and pairs/ipairs of an unfilled table fill it, then it is plain.
local function lazy(fill)
  local function go(t) setmetatable(t, nil); fill(t); return t end
  return setmetatable({}, { __index = function(t, k) return rawget(go(t), k) end,
    __len = function(t) return #go(t) end, __pairs = function(t) return next, go(t), nil end })
end
-- Copies the array core[fn]() returns into t.
local function copy(fn) return function(t) for i, v in ipairs(core[fn]()) do t[i] = v end end end
local ITEMS, CONFIG, STATUS, DEVTYPES = lazy(copy("items")), lazy(copy("config_items")), lazy(copy("statuses")), lazy(copy("devtypes"))
local BY_NUM = lazy(function(t) for _, it in ipairs(ITEMS) do t[it.item] = it end end)
local BY_NAME = lazy(function(t)
  for _, d in ipairs({ "global", "process", "io", "processor" }) do t[d] = {} end
  for _, it in ipairs(ITEMS) do
    local d = t[it.domain]
    if not d[it.name] or d[it.name].kind == "pseudo" then d[it.name] = it end
  end
end)
local CONFIG_BY = lazy(function(t) for _, c in ipairs(CONFIG) do t[c.item], t[c.name] = c, c end end)
local STATUS_BY = lazy(function(t) for _, s in ipairs(STATUS) do t[s.code], t[s.name] = s, s end end)
local DEV_BY = lazy(function(t) for _, d in ipairs(DEVTYPES) do t[d.name], t[d.name .. "s"] = d, d end end)

M.items, M.config_items, M.statuses, M.devtypes = ITEMS, CONFIG, STATUS, DEVTYPES

-- ---------------------------------------------------------------- user-defined counters (#14.2)
-- The catalog grows with the user-defined counters of the systems this Lua state uses (every
-- mi.userdef system, every session's system, the default once it exists), merged on demand.
-- Two systems defining one number differently: the one merged last names it in mi.item(number).
local UDEF_SEEN = setmetatable({}, { __mode = "k" })   -- system userdata -> counters merged
local UDEF_AT = {}                                      -- item number -> its index in ITEMS
local UDEF_OWNER = setmetatable({}, { __mode = "v" })   -- item number -> the system that defines it
-- Forgets the counters of systems closed or collected since.
local function udef_prune()
  local gone = false
  for num, at in pairs(UDEF_AT) do
    local o = UDEF_OWNER[num]
    if o == nil or o:closed() then
      local it = ITEMS[at]
      BY_NUM[num], ITEMS[at], UDEF_AT[num] = nil, false, nil
      if BY_NAME[it.domain][it.name] == it then BY_NAME[it.domain][it.name] = nil end
      gone = true
    end
  end
  if not gone then return end
  local j = 0
  for i = 1, #ITEMS do
    local it = ITEMS[i]
    if it then j = j + 1; ITEMS[j] = it; if UDEF_AT[it.item] then UDEF_AT[it.item] = j end end
  end
  for i = #ITEMS, j + 1, -1 do ITEMS[i] = nil end
end
local function udef_merge(sys)
  if sys == nil or sys:closed() then return end
  local seen, n = UDEF_SEEN[sys] or 0, sys:udef_count()
  if n <= seen then UDEF_SEEN[sys] = seen; return end
  for _, it in ipairs(sys:udef_items(seen)) do
    local old = BY_NUM[it.item]
    if old then BY_NAME[old.domain][old.name] = nil end
    BY_NUM[it.item], UDEF_OWNER[it.item] = it, sys
    BY_NAME[it.domain][it.name] = it
    local at = UDEF_AT[it.item] or #ITEMS + 1
    ITEMS[at], UDEF_AT[it.item] = it, at
  end
  UDEF_SEEN[sys] = n
end
-- Merges the user-defined counters of every system known here (and of sys) into mi.items.
function M.sync_items(sys)
  arg_check(sys == nil or type(sys) == "userdata", 1, "sync_items", "system or nil", sys)
  if next(UDEF_AT) then udef_prune() end
  if sys ~= nil then udef_merge(sys) end
  for known in pairs(UDEF_SEEN) do udef_merge(known) end
  if core.default_exists() then
    if M._udef_default == nil or M._udef_default:closed() then M._udef_default = core.system("default") end
    udef_merge(M._udef_default)
  end
end

-- Returns the catalog entry for an item number or name (optionally within a domain), or nil.
function M.item(x, domain)
  if (math.type(x) == "integer" and x >= 29000 and x < 29256)
    or (type(x) == "string" and not (BY_NAME[domain or "global"] or {})[x:lower()]) then M.sync_items() end
  if math.type(x) == "integer" then return BY_NUM[x] end
  if type(x) ~= "string" then return nil end
  local lx = x:lower()
  if domain then return BY_NAME[domain] and BY_NAME[domain][lx] end
  for _, d in ipairs({ "global", "process", "io", "processor" }) do
    local it = BY_NAME[d][lx]
    if it then return it end
  end
end

-- Returns the items, in item order, whose names match a Lua pattern or a shell-style glob ("gmc_*"),
-- or, for a plain word ("idle", "page fault"), whose name or description contains it (any case).
function M.find(pat, domain)
  arg_check(type(pat) == "string", 1, "find", "name, word or pattern", pat)
  arg_check(domain == nil or BY_NAME[domain] ~= nil, 2, "find", "global, process, io, processor or nil", domain)
  local plain = not pat:find("[%%%[%]%^%$%*]")
  local lpat = plain and pat:lower() or pat:find("[%%%[%]%^%$]") and pat
    or ("^" .. pat:gsub("[%.%-%+%?]", "%%%0"):gsub("%*", ".*") .. "$")
  local out = {}
  M.sync_items()
  for _, it in ipairs(ITEMS) do
    if (not domain or it.domain == domain) and (plain and (it.name:lower():find(lpat, 1, true)
        or it.description:lower():find(lpat, 1, true)) or not plain and it.name:find(lpat)) then
      out[#out + 1] = it
    end
  end
  table.sort(out, function(a, b) return a.item < b.item end)
  return out
end

local READING_WORDS = { total = "a total (rates mean something)", level = "a level (its value now)",
  watermark = "a watermark (the highest or lowest seen)" }
-- Returns a one-line description of an item, configuration item or status.
function M.describe(x)
  local it = M.item(x)
  if it and it.userdef then
    return string.format("%d %s: user-defined %s %s counter%s%s%s", it.item, it.name, it.domain, it.udef_kind,
      it.elements > 1 and (" of " .. it.elements .. " elements") or "", it.udef_unit ~= "" and (" (" .. it.udef_unit .. ")") or "",
      it.help ~= "" and (": " .. it.help) or "")
  end
  if it then
    return string.format("%d %s: %s. [%s %s counter (%s, %s), %s, %s%s]", it.item, it.name, it.description, it.domain,
      it.kind, it.type, it.unit, READING_WORDS[it.reading] or it.reading,
      it.instrumented == "yes" and "instrumented" or it.instrumented == "no" and "not instrumented (stays 0)"
        or "not incremented (TurboIMAGE, stays 0)", it.source ~= "manual" and ("; number from " .. it.source) or "")
  end
  local c = CONFIG_BY[x] or (type(x) == "string" and CONFIG_BY[x:upper()])
  if c then
    return string.format("%d %s (%s): %s. [%s%s]", c.item, c.name, c.type, c.description, c.put and "PUT, VERIFY" or "VERIFY",
      c.min and string.format(", range %d..%d, error %d", c.min, c.max, c.error) or "")
  end
  local s = M.status(x)
  if s then return string.format("status %d %s: %s", s.code, s.name, s.message) end
  return nil
end

-- Returns the status record {code=, name=, message=} for a code or name, or nil.
function M.status(x)
  if type(x) == "string" then return STATUS_BY[x:upper()] end
  if math.type(x) == "integer" then
    return STATUS_BY[x] or (x > 0 and x < 20000 and { code = x, name = "ITEM_ERROR", message = "item " .. x .. " (1-based) is the last that failed" })
  end
end

-- Returns the names of object classes of a mapping ("large"|"small"|"standard" or 0-2), index 1 = class 0.
function M.objcl_names(map) return core.objcl_names(M.mapping(map)) end
-- Returns the names of the 256 semaphore classes, index 1 = class 0.
function M.semcl_names() return core.semcl_names() end

-- Returns a mapping number from a name or number; raises on anything else.
function M.mapping(m, level)
  if m == nil then return 1 end
  local n = MAPS[m] or (math.type(m) == "integer" and m >= 0 and m <= 2 and m)
  if not n then error("bad mapping '" .. tostring(m) .. "' (large, small or standard)", (math.type(level) == "integer" and level or 1) + 1) end
  return n
end

-- ---------------------------------------------------------------- statuses as data
local Status = {}
-- A Status holds its code and lists only (no table built per call for what the code says):
-- .name, .message and .ok come from the code; a GET whose items all passed leaves .items out,
-- and reading it gives the zeros, one per item asked (.item_nums), made then and kept.
Status.__index = function(t, k)
  local m = Status[k]
  if m ~= nil then return m end
  local code = rawget(t, "code")
  if k == "ok" then return code == 0 or code >= 20000 end
  if k == "name" or k == "message" then
    local d = M.status(code)
    return d and d[k] or (k == "name" and "UNKNOWN" or "unknown status")
  end
  if k == "items" then
    local nums = rawget(t, "item_nums")
    if type(nums) ~= "table" then return nil end
    local z = {}
    for i = 1, #nums do z[i] = 0 end
    rawset(t, "items", z)
    return z
  end
end
-- "ITEM (code NAME: message)" for each item a Status's per-item statuses (.items: a list in the
-- order asked, .item_nums naming it, or NAME = Status; .verify: NAME = Status) did not pass.
local function blamed(s)
  local out = {}
  local function add(label, v)
    local code = type(v) == "table" and v.code or v
    if math.type(code) ~= "integer" or code == 0 then return end
    local d = type(v) == "table" and v.message and v or M.status(code)
    out[#out + 1] = string.format("%s: %d %s", label, code, d and (d.name .. ": " .. d.message) or "unknown status")
  end
  local function each(t, prefix)
    if type(t) ~= "table" then return end
    if #t > 0 then
      for i, v in ipairs(t) do
        local n = type(s.item_nums) == "table" and s.item_nums[i]
        local it = n and (BY_NUM[n] or CONFIG_BY[n])
        add(prefix .. "item " .. i .. (n and (" (" .. n .. (it and (" " .. it.name) or "") .. ")") or ""), v)
      end
    else
      local keys = {}
      for k in pairs(t) do keys[#keys + 1] = k end
      table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
      for _, k in ipairs(keys) do add(prefix .. tostring(k), t[k]) end
    end
  end
  each(rawget(s, "items"), "")
  each(rawget(s, "verify"), "expect ")
  return out
end
Status.__tostring = function(s)
  if s.code == 0 then return "ok" end
  local b = blamed(s)
  return string.format("%d %s: %s", s.code, s.name, s.message) .. (#b > 0 and " [" .. table.concat(b, "; ") .. "]" or "")
end
local function status(code)
  arg_check(math.type(code) == "integer", 1, "Status", "status code (an integer)", code)
  return setmetatable({ code = code }, Status)
end
M.Status = status
-- Raises "bad argument #n to 'fname' (expected expected, got ...)" at the caller's caller's line
-- unless ok: the check mi's functions make, for modules built on mi (mi.cli, mi.recording).
M.arg_check = arg_check

-- ---------------------------------------------------------------- item lists
-- Expands names, numbers and globs into item numbers of a domain; raises naming the bad one.
local function resolve(list, domain, argname, level)
  if type(list) == "string" or math.type(list) == "integer" then list = { list } end
  if type(list) ~= "table" then error(string.format("bad argument '%s' (item name, number, pattern or list expected, got %s)", argname, type(list)), level + 1) end
  local nums, its = {}, {}
  for _, x in ipairs(list) do
    if math.type(x) == "integer" then nums[#nums + 1] = x; its[#its + 1] = BY_NUM[x] or { item = x, name = tostring(x) }
    elseif type(x) == "string" and x:find("[%*%%%[]") then
      local found = M.find(x, domain)
      if #found == 0 then error(string.format("bad argument '%s': pattern '%s' matches no %s item", argname, x, domain), level + 1) end
      for _, it in ipairs(found) do if it.kind ~= "pseudo" then nums[#nums + 1] = it.item; its[#its + 1] = it end end
    elseif type(x) == "string" then
      local it = M.item(x, domain)
      if not it then error(string.format("bad argument '%s': no %s item named '%s'", argname, domain, x), level + 1) end
      nums[#nums + 1] = it.item; its[#its + 1] = it
    else error(string.format("bad argument '%s': %s in the item list", argname, type(x)), level + 1) end
  end
  return nums, its
end

-- Turns a device selector into an ldev number: 1-999, -1..-11, "all", "disk", "terminals"...
local function ldev_of(x, level)
  if x == nil or x == "all" then return -1 end
  if math.type(x) == "integer" then return x end
  local d = type(x) == "string" and DEV_BY[x:lower()]
  if not d then
    error("bad device " .. (type(x) == "string" and ("'" .. x .. "'") or type(x) == "number" and tostring(x) or ("(a " .. type(x) .. ")"))
      .. " (an LDEV number, 'all' or a device type such as 'disk')", level + 1)
  end
  return d.selector
end

-- ---------------------------------------------------------------- sessions
-- When each process list was read (system ticks, taken just after the read: a process born in
-- between counts as born before it, its values left out rather than wrong): mi.delta knows from
-- it that a process started since the older read was born inside the interval.
local READ_AT = setmetatable({}, { __mode = "k" })

local Session = {}
Session.__index = Session

-- Opens an MI session: {system = mi.system(...) | "default", user_id = 666}. Privileged and authorized.
function M.open(opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("bad argument #1 to 'open' (table expected, got " .. type(opts) .. ")", 2) end
  local sys = opts.system
  if sys == nil or sys == "default" then sys = M.default_system()
  elseif type(sys) == "table" or type(sys) == "string" then   -- mi.system's table or a spec: "host", "sim:batch"
    local ok, r = pcall(type(sys) == "table" and M.system or M.open_system, sys)
    if not ok then error(r, 2) end
    sys = r
  elseif type(sys) ~= "userdata" then
    error("bad argument 'system' to 'open' (a system, a spec such as \"host\", or a table expected, got " .. type(sys) .. ")", 2)
  end
  local s = core.session(sys)
  s:priv(true)
  local uid = opts.user_id or M.USER_ID
  core.globinstall(s, uid)
  local rc = core.accesson(s, uid)
  if rc ~= 0 then error("AIFACCESSON failed: " .. tostring(status(rc)), 2) end
  if UDEF_SEEN[sys] == nil then UDEF_SEEN[sys] = 0 end   -- its user-defined counters join the catalog
  return setmetatable({ s = s, sys = sys, uid = uid, map = 1, lists = {}, queries = {} }, Session)
end

-- Resolves a workload: a built-in name, a Lua file returning a table, or a table; returns a table.
-- A table may name a built-in to start from (`base` or `workload`) and override any field.
function M.workload(spec)
  if type(spec) == "table" then return spec end
  if type(spec) ~= "string" then
    error("bad argument #1 to 'workload' (name, file or table expected, got " .. type(spec) .. ")", 2)
  end
  local builtin = core.workload(spec)
  if builtin then return builtin end
  local chunk, err = loadfile(spec, "t", {})
  if not chunk then
    if not io.open(spec) then
      error("unknown workload '" .. spec .. "' (built-in: " .. table.concat(core.workloads(), ", ") .. "; or a .lua file)", 2)
    end
    if not err:find(spec, 1, true) then err = spec .. ": " .. err end
    error("workload file " .. err, 2)
  end
  local ok, t = pcall(chunk)
  if not ok then error("workload file " .. spec .. ": " .. tostring(t), 2) end
  if type(t) ~= "table" then error("workload file " .. spec .. " must return a table, got " .. type(t), 2) end
  if t.name == nil then t.name = spec:match("([^/]+)%.lua$") or spec end
  return t
end

-- Describes the fields a workload table may set: array of {name=, min=, max=, about=}.
function M.workload_fields() return core.workload_fields() end

-- Creates a simulated system: {workload = name|file|table, <any workload field>, realtime = false,
-- share = PATH (the store lives in that file; other processes mi.attach it), collect = "all" or
-- "global,process,io" (with share: every counter of those domains is collected for readers that
-- attach read-only; default none: they read what this process turns on)}.
function M.system(opts)
  if opts == nil or opts == "default" then return core.system(opts) end
  if type(opts) ~= "table" then
    error("bad argument #1 to 'system' (table expected, got " .. type(opts) .. ")", 2)
  end
  local flat = {}
  local w = opts.workload
  if w ~= nil and (type(w) == "table" or not core.workload(w)) then
    local ok, t = pcall(M.workload, w)
    if not ok then error(t, 2) end
    for k, v in pairs(t) do flat[k] = v end
    flat.workload = nil
  end
  for k, v in pairs(opts) do if not (k == "workload" and flat.name) then flat[k] = v end end
  flat.collect = nil
  local ok, sys = pcall(core.system, flat)
  if not ok then error(sys, 2) end
  if opts.collect ~= nil then
    local ok2, e = pcall(core.collect, sys, opts.collect)
    if not ok2 then error(e, 2) end
  end
  return sys
end

-- Attaches to the store another process shares at path (mi.system{share = path}, mish --share,
-- examples/embed --share): a system to open sessions on, mi.open{system = mi.attach(path)}.
-- opts: {trust = true} accepts a store file owned by another user (refused by default);
-- {write = true} attaches read-write (#27.8): without it the attach is read-only (the file needs
-- only read permission and nothing here writes it), an ON takes only what the store collects and
-- AIFSCPUT and user-defined counters are refused.
function M.attach(path, opts)
  if type(path) ~= "string" then error("bad argument #1 to 'attach' (path expected, got " .. type(path) .. ")", 2) end
  if opts ~= nil and type(opts) ~= "table" then error("bad argument #2 to 'attach' (table of options expected, got " .. type(opts) .. ")", 2) end
  local ok, sys = pcall(core.attach, path, opts and opts.trust and true or false, opts and opts.write and true or false)
  if not ok then error(sys, 2) end
  return sys
end

-- The sources' options by name (core.sources(): each source describes its options once, #28.2):
-- {name = {source =, type =, to =, min =, max =, value =, help =}}, made at first use.
local SOURCE_OPTIONS
local function source_options()
  if not SOURCE_OPTIONS then
    SOURCE_OPTIONS = {}
    for _, src in ipairs(core.sources()) do
      for _, o in ipairs(src.options) do SOURCE_OPTIONS[o.name] = SOURCE_OPTIONS[o.name] or o end
    end
  end
  return SOURCE_OPTIONS
end

-- Opens the system a spec names — "sim", "sim:WORKLOAD", "host", "host:/proc-root" or a registered
-- NAME[:ARG] — as a program measures it (a sim in real time after a minute of history).
-- opts: any source's option by name (core.sources(): workload = name|file|table and cpus = 1-8 for
-- sim, proc = a proc root for host, from/to/speed for replay; one given to a system whose source
-- has no such option is an error), age_ms = (host), virtual = true (sim without real time or
-- history), share = PATH (the store in that file, for mi.attach elsewhere).
-- Raises with the reason (level 0 leaves the position out).
function M.open_system(spec, opts, level)
  arg_check(opts == nil or type(opts) == "table", 2, "open_system", "options table or nil", opts)
  opts = opts or {}
  spec = spec or "sim"
  if type(spec) ~= "string" then error("bad argument #1 to 'open_system' (string expected, got " .. type(spec) .. ")", 2) end
  level = level or 2
  local args = { age_ms = opts.age_ms, virtual = opts.virtual, share = opts.share }
  for name, o in pairs(source_options()) do
    local v = opts[name]
    -- a workload file or table is read here (the core knows the built-in ones only)
    if o.type == "workload" and v ~= nil and not (type(v) == "string" and core.workload(v)) then
      local ok, t = pcall(M.workload, v)
      if not ok then error(t, level) end
      v = t
    end
    args[name] = v
  end
  local ok, sys = pcall(core.open, spec, args)
  if not ok then error(sys, level) end
  return sys
end

-- Builds the system a program's options describe ({system = spec, any source's option by name
-- (workload =, cpus =, proc = host root, from =, to =, speed =), share = PATH to publish it in,
-- collect = what it collects for its read-only readers; replay = FILE for system replay:FILE; or
-- attach = PATH: the store another process shares, read-only, or attach_rw = PATH: read-write}) once
-- and installs it as THE default, so mi.default_system(), mi.open(), the literal
-- layer and core.system("default") all measure it. Returns it.
function M.set_default(o)
  arg_check(o == nil or type(o) == "table", 1, "set_default", "options table or nil", o)
  o = o or {}
  if o.attach ~= nil or o.attach_rw ~= nil then   -- mish --attach[-rw] PATH: the system another process shares
    if o.share ~= nil then error("--share publishes this shell's system, --attach measures another's: not both", 0) end
    if o.attach ~= nil and o.attach_rw ~= nil then error("--attach and --attach-rw: not both", 0) end
    local ok, sys = pcall(M.attach, o.attach or o.attach_rw, { write = o.attach_rw ~= nil })
    if not ok then error(sys, 0) end
    core.set_default(sys)
    return sys
  end
  local spec = o.system or "sim"
  if spec == "default" then spec = "sim" end
  if o.replay ~= nil then spec = "replay:" .. o.replay end   -- mish --replay FILE (#13)
  local replay = spec:match("^replay:(.+)$")
  if replay and o.share ~= nil then error("--replay and --share: not both", 0) end
  local opts = { share = o.share }
  for name in pairs(source_options()) do opts[name] = o[name] end
  local ok, sys = pcall(M.open_system, spec, opts, 0)
  if not ok then
    if replay then M.recording_state(replay, io.stderr) end   -- a file whose every sample damage left unreadable says so, not only "holds no sample" (#30)
    error(sys, 0)
  end
  if replay then   -- the recording is the default (#13), stepped by the program's sleeps either way (#30.3)
    M.recording_state(replay, io.stderr)
    local okr, rr = pcall(core.rec_open, replay)   -- what recorded it: a host recording's undriven items are no data (#30)
    if okr then M._replay_source = rr:info().source rr:close() end
    core.set_default(sys)
    M.replay_drive(sys, o.speed)
    return sys
  end
  if o.collect ~= nil then   -- mish --share PATH --collect WHAT (#27.8)
    if o.share == nil then error("--collect collects for the readers of --share PATH: it needs --share", 0) end
    local okc, e = pcall(core.collect, sys, o.collect)
    if not okc then error(e, 0) end
  end
  core.set_default(sys)
  return sys
end

-- The default system: the one the program installed (mish's options) or the built-in default
-- (the simulated HP 3000: oltp on 2 CPUs, real time after a minute of history).
function M.default_system() return core.system("default") end

-- Returns the built-in workload names.
function M.workloads() return core.workloads() end

-- Installs user-defined counters (#14.2) in a system (default: the default system):
-- mi.userdef{system = sys, counters = {{name = "orders_placed", kind = "accum"|"faccum"|"busy"|
-- "queue"|"qbusy", unit = "orders", help = "...", per_process = false, elements = 1}, ...}}; a
-- plain name instead of a table takes a counter already installed in that system (another
-- program's, to write it too). Returns a table keyed by name: u.orders_placed:add(n [, pid]),
-- :set(level [, pid]) for busy/queue/qbusy (an accum's value), :add_at(element, n [, pid]),
-- :value([pid]), and .item, .name, .kind. Raises naming the counter, the field or the status.
-- The fields a counter's description may have, and their Lua types.
local UDEF_FIELDS = { name = "string", kind = "string", unit = "string", help = "string", per_process = "boolean", elements = "number" }
-- Installs (or picks up) user-defined counters on a system: see above.
function M.userdef(opts)
  if type(opts) ~= "table" then error("bad argument #1 to 'userdef' (table expected, got " .. type(opts) .. ")", 2) end
  for k in pairs(opts) do
    if k ~= "system" and k ~= "counters" then error("mi.userdef: unknown option '" .. tostring(k) .. "' (system, counters)", 2) end
  end
  local sys = opts.system
  if sys == nil or sys == "default" then sys = M.default_system() end
  if type(sys) ~= "userdata" then error("mi.userdef: system must be a system (mi.system, mi.attach, mi.open_system), got " .. type(sys), 2) end
  if type(opts.counters) ~= "table" or #opts.counters == 0 then error("mi.userdef: counters must be a non-empty list", 2) end
  local out = {}
  for i, c in ipairs(opts.counters) do
    local where = "mi.userdef: counter " .. i
    if type(c) == "string" then
      local h = sys:udef(c)
      if not h then error(string.format("%s: no user-defined counter named '%s' in this system", where, c), 2) end
      out[h.name] = h
    elseif type(c) ~= "table" then error(where .. ": a table or a name expected, got " .. type(c), 2)
    else
      if type(c.name) == "string" then where = where .. " (" .. c.name .. ")" end
      for k, v in pairs(c) do
        if not UDEF_FIELDS[k] then error(string.format("%s: unknown field '%s' (name, kind, unit, help, per_process, elements)", where, tostring(k)), 2) end
        if type(v) ~= UDEF_FIELDS[k] then error(string.format("%s: field '%s' must be a %s, got %s", where, k, UDEF_FIELDS[k], type(v)), 2) end
      end
      if c.name == nil then error(where .. ": field 'name' is required", 2) end
      local kind = c.kind or "accum"
      if not ({ accum = 1, faccum = 1, busy = 1, queue = 1, qbusy = 1 })[kind] then
        error(string.format("%s: kind must be accum, faccum, busy, queue or qbusy, got '%s'", where, kind), 2)
      end
      if c.elements ~= nil and math.type(c.elements) ~= "integer" then error(where .. ": field 'elements' must be an integer", 2) end
      local h, code = sys:udef_install({ name = c.name, kind = kind, unit = c.unit, help = c.help, per_process = c.per_process, elements = c.elements })
      if not h then error(string.format("%s: %s", where, tostring(status(code))), 2) end
      out[h.name] = h
    end
  end
  udef_merge(sys)
  return out
end

-- Closes the session: everything it enabled is turned off.
function Session:close() self.s:close() end
Session.__close = Session.close

-- Advances a simulated system by ms of virtual time.
function Session:advance(ms)
  arg_check(math.type(ms) == "integer" and ms >= 0, 1, "advance", "milliseconds (an integer >= 0)", ms)
  self.sys:advance(ms)
end

-- Returns the system's description: cpus, processes, devices, ticks.
function Session:info() return self.sys:info() end

-- The domains, for error messages.
local DOMAINS = "global, process, io or processor"

-- Enables counters: domain "global"|"process"|"io"; items; opts {mapping=, pid=, ldev=}.
-- Returns a Status (with .items per-item statuses and .mapping); on failure (a negative status)
-- nil, that Status, so assert() works. A positive status (an item error: the valid items are on,
-- .items says which failed) is no failure: the Status comes back, its .ok false. The same holds
-- for off, get, config and time (#16.5); put writes all or nothing, so it fails on an item error too.
function Session:on(domain, items, opts)
  opts = opts_of(opts, 3, "on")
  opt_check(opts.pid == nil or math.type(opts.pid) == "integer", "pid", "on", "a pid (an integer) or nil", opts.pid)
  if domain ~= "global" and domain ~= "process" and domain ~= "io" then
    error("unknown domain '" .. tostring(domain) .. "' (global, process or io; processors follow global item 21164)", 2)
  end
  local map = M.mapping(opts.mapping or "small", 2)
  local nums, its = resolve(items, domain, "items", 2)
  local rc, st, m
  if (opts.include or opts.exclude) and (domain == "process" or domain == "io") then   -- a selection (mi_select.h)
    local ok, a, b, c = pcall(domain == "process" and core.proconsel or core.ioonsel, self.s, nums, map, opts.include, opts.exclude, 0)
    if not ok then error("bad selection: " .. tostring(a), 2) end
    rc, st, m = a, b, c
  elseif domain == "global" then rc, st, m = core.globon(self.s, nums, map, 0)
  elseif domain == "process" then rc, st, m = core.procon(self.s, nums, map, opts.pid, 0)
  elseif domain == "io" then rc, st, m = core.ioon(self.s, nums, map, ldev_of(opts.ldev, 2), 0)
  else error("unknown domain '" .. tostring(domain) .. "' (global, process or io; processors follow global item 21164)", 2) end
  local r = status(rc)
  r.items, r.item_nums, r.mapping = st, nums, MAP_NAMES[m]
  self.queries[domain] = nil
  if self.lists[domain] then self.lists[domain].q, self.lists[domain].tq = nil, nil end
  if domain == "global" then self.queries.processor = nil end
  if rc == 0 or rc > 0 then
    self.lists[domain] = self.lists[domain] or { nums = nums, its = its }
    self.map = m
    if domain == "global" then
      for _, n in ipairs(nums) do
        if n == 21164 and not self.cpus_on then   -- the host's processors past 8 count from here too
          self.cpus_on, self.cpu_base = true, self.sys.host_cpus and self.sys:host_cpus() or nil
        end
      end
    end
  end
  if r.code < 0 then return nil, r end
  return r
end

-- Disables counters of a domain ("global", "process" with opts.pid, "io" with opts.ldev).
-- Returns a Status, or nil, Status on failure.
function Session:off(domain, opts)
  opts = opts_of(opts, 2, "off")
  opt_check(opts.pid == nil or math.type(opts.pid) == "integer", "pid", "off", "a pid (an integer) or nil", opts.pid)
  local rc
  if domain == "global" then rc = core.globoff(self.s, 0); self.cpus_on, self.cpu_base = nil, nil
  elseif domain == "process" then rc = core.procoff(self.s, opts.pid, 0)
  elseif domain == "io" then rc = core.iooff(self.s, ldev_of(opts.ldev, 2), 0)
  else error("unknown domain '" .. tostring(domain) .. "' (global, process or io)", 2) end
  if rc == 0 and opts.pid == nil and opts.ldev == nil then self.lists[domain] = nil end
  self.queries[domain] = nil
  if self.lists[domain] then self.lists[domain].q, self.lists[domain].tq = nil, nil end
  if domain == "global" then self.queries.processor = nil end
  local r = status(rc)
  if r.code < 0 then return nil, r end
  return r
end

-- The item list a GET of a domain reads for a user's list: process records lead with the
-- pid, its state, user, program, start, job/session and type; I/O and processor records with
-- the ldev or processor id. Returns the numbers.
local PROC_FIXED = { 20001, 20002, 20003, 20004, 20005, 20011, 20012 }
-- A typed read of processes (opts.columns "typed") leads with its identity and state only (pid,
-- pid_state, start_ticks): the names are columns when the caller asks for them.
local TYPED_LEAD = { 20001, 20002, 20005 }
-- The query list of a read of nums: the domain's fixed items first (typed: a typed read's lead).
local function get_list(domain, nums, typed)
  local out, seen = {}, {}
  local lead = domain == "process" and (typed and TYPED_LEAD or PROC_FIXED) or domain == "io" and { 20020 }
    or domain == "processor" and { 20040 } or {}
  for _, n in ipairs(lead) do out[#out + 1] = n; seen[n] = true end
  for _, n in ipairs(nums) do if not seen[n] then out[#out + 1] = n end end
  return out
end

-- A GET's status and item statuses in the caller's list nums: the query put the fixed items of
-- the domain (pid, state, ... ; the LDEV; the CPU) first, so its "item k is the last that
-- failed" and its statuses count them; the caller's item k is nums[k].
local function in_callers_list(rc, st, nums, domain, typed)
  if domain == "global" then return rc, st end   -- nothing put first: the lists are the same
  local q = get_list(domain, nums, typed)
  if type(st) ~= "table" or #st ~= #q then return rc, st end
  local at, out, last = {}, {}, 0
  for i, n in ipairs(q) do at[n] = at[n] or i end
  for i, n in ipairs(nums) do out[i] = st[at[n]] or 0; if out[i] ~= 0 then last = i end end
  if rc > 0 and rc < 20000 and last > 0 then rc = last end
  return rc, out
end

-- The prepared query (core.query) of this session for a domain, item numbers and mapping:
-- made once and kept per list until an ON or OFF of the domain; the core re-resolves its
-- plan by itself when the store's layout or an enable set changes. typed: the list of a typed
-- read (get_list).
function Session:query(domain, nums, map, typed)
  arg_check(type(nums) == "table", 2, "query", "list of item numbers", nums)
  arg_check(math.type(map) == "integer", 3, "query", "mapping number (0-2)", map)
  local qs = self.queries[domain]
  if not qs then qs = {}; self.queries[domain] = qs end
  local key = (typed and "t" or "") .. map .. ":" .. self.sys:udef_count() .. ":" .. table.concat(nums, ",")   -- a counter installed since: a new query
  local q = qs[key]
  if not q then
    if (qs.n or 0) >= 64 then qs = {}; self.queries[domain] = qs end   -- many one-off lists: start afresh
    q = core.query(self.s, domain, get_list(domain, nums, typed), map)
    qs[key], qs.n = q, (qs.n or 0) + 1
  end
  return q
end

-- The host's processors past the MI's 8 (core/SOURCES.md, "Processors beyond 8"): appends to a
-- processor GET's data (records, or opts.columns' columns) one record per processor from 8 on
-- (only processor sel when sel >= 0) with the items nums, counted since this session's ON of
-- 21164 (sys:host_cpus()); items the host does not drive read 0. Returns data.
local function more_cpus(self, data, nums, sel, columns)
  local cur = self.cpu_base and self.sys:host_cpus()
  if not cur or #cur <= 8 or not data then return data end
  local base, meta = self.cpu_base, getmetatable(data[1] or {})
  for k = 9, #cur do
    if sel < 0 or sel == k - 1 then
      local rec, b = { processor_id = k - 1 }, base[k] or {}
      for _, n in ipairs(nums) do
        local it = BY_NUM[n]
        if it and it.name ~= "processor_id" then rec[it.name] = (cur[k][it.name] or 0) - (b[it.name] or 0) end
      end
      if columns then
        for key, col in pairs(data) do if type(col) == "table" then col[#col + 1] = rec[key] or 0 end end
      else data[#data + 1] = setmetatable(rec, meta) end
    end
  end
  return data
end

-- Raises the error of a session method called on something that is not a session: most often
-- s.get(...) written for s:get(...).
local function bad_self(name, self)
  error(string.format("bad self to '%s' (a session expected, got %s): call it as s:%s(...), with a colon",
    name, type(self), name), 3)
end

-- Reads counters. global: values keyed by name (item numbers read them too). process/io/processor: one
-- record per entity keyed the same way. Returns data, Status; on failure nil, Status in every domain.
function Session:get(domain, items, opts)
  if getmetatable(self) ~= Session then bad_self("get", self) end
  if domain ~= "global" and domain ~= "process" and domain ~= "io" and domain ~= "processor" then
    error("unknown domain '" .. tostring(domain) .. "' (" .. DOMAINS .. ")", 2)
  end
  local map = self.map
  local sel = -1
  arg_check(opts == nil or type(opts) == "table", 3, "get", "options table or nil", opts)
  if opts then
    if opts.mapping then map = M.mapping(opts.mapping, 2) end
    opt_check(opts.pid == nil or math.type(opts.pid) == "integer", "pid", "get", "a pid (an integer) or nil", opts.pid)
    opt_check(opts.cpu == nil or math.type(opts.cpu) == "integer", "cpu", "get", "a CPU id (an integer) or nil", opts.cpu)
    opt_check(opts.into == nil or type(opts.into) == "table", "into", "get", "a table to refill or nil", opts.into)
    opt_check(type(opts.columns) ~= "string" or opts.columns == "typed", "columns", "get", "true, 'typed' or nil", opts.columns)
    if opts.columns == "typed" and opts.into then
      error("bad option to 'get' (typed columns are refilled in place: into does not combine with them)", 2)
    end
    if (opts.into or opts.columns) and (opts.include or opts.exclude) then
      error("bad option to 'get' (into and columns do not combine with include or exclude)", 2)
    end
    if domain == "process" then sel = opts.pid or -1
    elseif domain == "io" then sel = ldev_of(opts.ldev, 2)
    elseif domain == "processor" then sel = opts.cpu or -1 end
  end
  if opts and (opts.include or opts.exclude) and (domain == "process" or domain == "io") then   -- narrowed: a read-active LIST
    local all, ctx, st = {}, nil, nil
    repeat
      local recs
      recs, ctx, st = self:read_active(domain, items, { include = opts.include, exclude = opts.exclude, mapping = opts.mapping, context = ctx, level = 3 })
      if not recs then return nil, st end
      for _, r in ipairs(recs) do all[#all + 1] = r end
    until not ctx
    if domain == "process" then READ_AT[all] = self.sys:now() end
    return all, st
  end
  local q, nums
  local list = not items and self.lists[domain]
  local typed = opts and opts.columns == "typed" and domain == "process"   -- (its own lead: get_list)
  if list then   -- the enabled list: its queries hang on it (per mapping; typed ones apart)
    local qk = typed and "tq" or "q"
    nums, q = list.nums, list[qk] and list[qk][map]
    if not q then
      list[qk] = list[qk] or {}
      q = self:query(domain, list.nums, map, typed)
      list[qk][map] = q
    end
  elseif items then nums = resolve(items, domain, "items", 2); q = self:query(domain, nums, map, typed)
  elseif domain == "processor" then nums = resolve("*", "processor", "items", 2); q = self:query(domain, nums, map, typed)
  else error("nothing enabled in domain '" .. tostring(domain) .. "' and no items given", 2) end
  -- opts.into: refill that table (records of the same entities reused, the rest removed);
  -- opts.columns: {[key] = {values...}}, the records' keys as columns (#31.1); "typed": the
  -- query's own typed columns ({[key] = column}, lua/mi_cols.c), refilled in place by its next read
  local rc, st, data
  local past8 = domain == "processor" and sel >= 8 and self.cpu_base   -- a host processor past the MI's 8
  local cpus = opts and opts.columns == "typed" and domain == "processor" and self.cpu_base and self.sys:host_cpus()
  if cpus and #cpus > 8 then
    error("bad option to 'get' (typed columns hold the MI's 8 processors; this host has " .. #cpus .. ": use columns = true)", 2)
  end
  if opts then rc, st, data = q:get(past8 and -1 or sel, 0, true, opts.into, opts.columns)
  else rc, st, data = q:get(sel, 0, true) end   -- (raises first on a closed session or system)
  if domain == "processor" and rc >= 0 and self.cpu_base then
    if past8 then   -- only that processor: the MI's rows are not it
      if opts.columns then for _, col in pairs(data) do if type(col) == "table" then for i = #col, 1, -1 do col[i] = nil end end end
      else for i = #data, 1, -1 do data[i] = nil end end
    end
    data = more_cpus(self, data, nums, sel, opts and opts.columns)
  end
  if domain == "process" and data then READ_AT[data] = self.sys:now() end
  rc, st = in_callers_list(rc, st, nums, domain, typed)
  local r = setmetatable({ code = rc, items = st, item_nums = nums }, Status)
  if rc < 0 then return nil, r end
  return data, r
end

-- Read-active's modes.
local RA_MODES = { list = true, exact = true, changed = true }
-- A read-active record's metatable: rec[25047] reads the value kept under the item's name.
-- Its domain is there too, as on s:get's records (mi.delta reads what each item is).
local function by_number(domain)
  return { domain = domain, __index = function(t, k) local it = math.type(k) == "integer" and BY_NUM[k]; if it then return rawget(t, it.name) end end }
end
local BY_NUMBER = { process = by_number("process"), io = by_number("io") }
-- Read-active (mi_select.h): the records of the active entities ("process", or "io"/"ldev") that the
-- caller measures and opts.include/opts.exclude select; opts.mode "list" (default), "exact" (one
-- match per call: the context steps to the next) or "changed" (each record's .changed says whether
-- it changed since this session's last read of it), opts.max records per call (default all),
-- opts.context to continue an iteration (only this session's, for this kind and selection: any
-- other is refused, BAD_CONTEXT). Returns records
-- (keyed by item name, process records with state "alive"/"dead"), the context to pass next (nil
-- when the iteration is complete) and a Status; records nil on an error status.
function Session:read_active(kind, items, opts)
  opts = opts_of(opts, 3, "read_active")
  local level = opts.level or 2
  local domain = (kind == "ldev" or kind == "io") and "io" or kind
  if domain ~= "process" and domain ~= "io" then error("bad entity kind '" .. tostring(kind) .. "' (process or ldev)", level) end
  opt_check(opts.mode == nil or RA_MODES[opts.mode], "mode", "read_active", "'list', 'exact' or 'changed'", opts.mode, level + 1)
  opt_check(opts.max == nil or math.type(opts.max) == "integer" and opts.max >= 1 and opts.max <= 2700, "max", "read_active",
    "records per call (an integer 1..2700) or nil", opts.max, level + 1)
  opt_check(opts.context == nil or math.type(opts.context) == "integer", "context", "read_active",
    "the context a read_active call returned, or nil", opts.context, level + 1)
  local nums
  if items then nums = resolve(items, domain, "items", level)
  elseif self.lists[domain] then nums = self.lists[domain].nums
  else error("nothing enabled in domain '" .. domain .. "' and no items given", level) end
  local asked = nums
  nums = get_list(domain, nums)
  local map = opts.mapping and M.mapping(opts.mapping, level) or self.map
  local ok, rc, st, raw, ctx, flags = pcall(core.readactive, self.s, domain == "io" and "ldev" or "process", nums, map,
    opts.mode or "list", opts.include, opts.exclude, opts.max, opts.context)
  if not ok then   -- a bad selection: the C layer's words, its argument numbers left out
    error("bad read_active: " .. tostring(rc):gsub("^bad argument #%d+ to '[%w%.]+' %((.*)%)$", "%1"), level)
  end
  rc, st = in_callers_list(rc, st, asked, domain)
  local status_ = setmetatable({ code = rc, items = st, item_nums = asked }, Status)
  if rc < 0 then return nil, nil, status_ end
  local names = {}
  for i, n in ipairs(nums) do local it = BY_NUM[n]; names[i] = it and it.name or n end
  local recs, changed = {}, opts.mode == "changed"
  local devices = domain == "io" and #raw > 0 and self.sys:info().devices
  for r, vals in ipairs(raw) do
    local rec = setmetatable({}, BY_NUMBER[domain])
    for i, v in ipairs(vals) do if rec[names[i]] == nil then rec[names[i]] = v end end
    if domain == "process" then rec.state = rec.pid_state == 1 and "dead" or "alive" end
    if devices then rec.type = devices[rec.ldev] end   -- as s:get("io") names the device type
    if changed then rec.changed = flags[r] end
    recs[r] = rec
  end
  if domain == "process" then READ_AT[recs] = self.sys:now() end
  return recs, ctx, status_
end

-- Iterates the records of read-active (opts as Session:read_active, paging opts.max or 64 at a
-- time): `for rec in s:active("process", items, {mode = "changed"}) do ... end`. Raises on an error status.
function Session:active(kind, items, opts)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.max, o.level = o.max or 64, 3
  local recs, i, done = {}, 0, false
  return function()
    while i >= #recs do
      if done then return nil end
      local st
      recs, o.context, st = self:read_active(kind, items, o)
      if not recs then error("read_active: " .. tostring(st), 2) end
      i, done = 0, o.context == nil
    end
    i = i + 1
    return recs[i]
  end
end

-- Reads configuration items by name or number; returns {NAME = value, [num] = value}, Status (nil, Status on failure).
function Session:config(...)
  local names = select("#", ...) > 0 and { ... } or nil
  local nums, cs = {}, {}
  for _, c in ipairs(CONFIG) do
    local want = not names
    for _, n in ipairs(names or {}) do if n == c.item or (type(n) == "string" and n:upper() == c.name) then want = true end end
    if want then nums[#nums + 1] = c.item; cs[#cs + 1] = c end
  end
  if names and #nums ~= #names then
    for _, n in ipairs(names) do
      if not (CONFIG_BY[n] or (type(n) == "string" and CONFIG_BY[n:upper()])) then
        error("bad argument to 'config': no configuration item " .. (type(n) == "string" and ("'" .. n .. "'") or tostring(n)) .. " (" .. CONFIG[1].item .. "-" .. CONFIG[#CONFIG].item .. " or their names, see mi.config_items)", 2)
      end
    end
    error("bad argument to 'config': a configuration item named twice", 2)
  end
  local rc, st, vals = core.scget(self.s, nums, 0)
  local out = {}
  for i, c in ipairs(cs) do out[c.name] = vals[i]; out[c.item] = vals[i] end
  local r = status(rc); r.items, r.item_nums = st, nums
  if r.code < 0 then return nil, r end
  return out, r
end

-- Turns a {NAME=value} table (or {[item]=value}) into parallel item/value arrays; masks from sets of names.
local function config_pairs(t, argname)
  if type(t) ~= "table" then error("bad argument '" .. argname .. "' (table of NAME = value expected)", 3) end
  local nums, vals, keys = {}, {}, {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local c = CONFIG_BY[k] or (type(k) == "string" and CONFIG_BY[k:upper()])
    if not c then error("bad argument '" .. argname .. "': no configuration item '" .. tostring(k) .. "'", 3) end
    nums[#nums + 1] = c.item
    vals[#vals + 1] = t[k]
  end
  return nums, vals
end

-- AIFSCPUT by name with optional verification: s:put({JOB_FENCE = 7}, {expect = {JOB_FENCE = 6}}).
-- Returns a Status with .items {NAME = Status} and .verify {NAME = Status}; nothing is written unless all
-- pass: any failure (a bad value of one item is one: nothing was written) is nil, that Status (#30).
function Session:put(values, opts)
  opts = opts or {}
  local nums, vals = config_pairs(values, "values")
  local vnums, vvals
  if opts.expect ~= nil then vnums, vvals = config_pairs(opts.expect, "expect") end
  local ok, rc, st, vst = pcall(core.scput, self.s, nums, vals, 0, vnums, vvals)
  if not ok then error((tostring(rc):gsub("^[^:\n]*:%d+: ", "")), 2) end   -- a bad value: at the caller's line
  local r = status(rc)
  r.items = {}
  for i, n in ipairs(nums) do
    local c, is = CONFIG_BY[n], status(st[i])
    if is.code == -20006 and not c.put then is.message = c.name .. " is read by AIFSCGET but never written (not PUT-able)" end
    r.items[c.name] = is
  end
  if vst then
    r.verify = {}
    for i, n in ipairs(vnums) do r.verify[CONFIG_BY[n].name] = status(vst[i]) end
  end
  if not r.ok then return nil, r end
  return r
end

-- AIFTIME: t = nil (now), {ticks = n} or {micro = n}; returns the time table (with .text) or nil, Status.
function Session:time(t)
  if t ~= nil and type(t) ~= "table" then error("bad argument #1 to 'time' (nil or {ticks=} / {micro=} expected)", 2) end
  if t then
    opt_check(t.ticks == nil or math.type(t.ticks) == "integer", "ticks", "time", "ticks (an integer) or nil", t.ticks)
    opt_check(t.micro == nil or math.type(t.micro) == "integer", "micro", "time", "microseconds (an integer) or nil", t.micro)
  end
  local rc, r = core.time(self.s, t, 0)
  if rc < 0 then return nil, status(rc) end
  if r then r.text = string.format("%s %s %02d %04d %02d:%02d:%02d.%d", r.weekday, r.month_name, r.day, r.year, r.hour, r.min, r.sec, r.tenths) end
  return r, status(rc)
end

-- Returns the per-process, per-device or per-CPU records of a domain as a list (alias of get).
function Session:records(domain, items, opts) return self:get(domain, items, opts) end

-- The rest of the facade lives in modules that add to M with these private
-- helpers (#28.5): mi.analysis (delta, rate, pct, label, sample, sleep, clock), mi.calls (the
-- literal layer, M.literal) and mi.records (OpenMetrics, recorders, replays, recording health).
local P = { BY_NAME = BY_NAME, BY_NUM = BY_NUM, READ_AT = READ_AT, Session = Session, arg_check = arg_check,
  bad_self = bad_self, core = core, opt_check = opt_check, source_options = source_options }
-- What a recording holds when no items are named: every global counter (gmc_pauses brings
-- the processor counters), ten process items and the disk items — what every script in
-- scripts/ and the manual's examples read — and every user-defined counter (#14.2).
M.RECORD_ITEMS = { "global:*", "processor:*", "userdef:*",
  "process:pmt_process_time", "process:pmt_ready_queue", "process:pmc_launch", "process:pmc_disc_read",
  "process:pmc_disc_write", "process:pmc_disc_read_size", "process:pmc_disc_write_size",
  "process:pmc_pg_fault_objcl_", "process:pmc_stop_disc_io", "process:pmc_stop_quantum_expiration",
  "io:imc_completed_read", "io:imc_completed_write", "io:imc_read_xfer_size", "io:imc_write_xfer_size",
  "io:imt_rd_round_trip_time", "io:imt_wt_round_trip_time", "io:imc_q_current", "io:imc_q_maximum",
  "io:imc_read_objcl_", 23009, 23010 }

-- What a sleep raises at the end of a replayed recording while M._end_raises is set (mi.cli's
-- loop sets it, to print the run's summary with the samples it had, #30.4).
M.REPLAY_END = setmetatable({}, { __tostring = function() return "the recording ended" end, __name = "mi.REPLAY_END" })

-- Loads a part of the facade (it adds to M through P).
local function load_part(name)
  package.loaded["mi._facade"] = { M = M, P = P }
  local ok, err = pcall(require, name)
  package.loaded["mi._facade"] = nil
  if not ok then error(err, 0) end
end
load_part("mi.analysis")
-- mi.records and mi.calls are read at their first use: a script or prompt that never records,
-- exports or calls the literal layer does not load them (start-up: 3.60 M instructions with them,
-- 3.15 M without). Until then M holds stubs of their functions (help and completion see them)
-- that load the part, which replaces them, and call the real function.
for _, name in ipairs({ "openmetrics", "record_items", "record", "replay", "replay_drive", "health_text", "recording_state" }) do
  local stub
  stub = function(...)
    if M[name] == stub then load_part("mi.records") end
    if M[name] == stub then error("mi.records did not define mi." .. name, 2) end
    return M[name](...)
  end
  M[name] = stub
end
-- mi.literal: a stand-in table until mi.calls replaces it; what it is asked goes to the real one.
local literal_proxy
local function literal()
  if M.literal == literal_proxy then load_part("mi.calls") end
  if M.literal == literal_proxy then error("mi.calls did not define mi.literal", 3) end
  return M.literal
end
literal_proxy = setmetatable({}, {
  __index = function(_, k) return literal()[k] end,
  __newindex = function(_, k, v) literal()[k] = v end,
  __pairs = function() return next, literal(), nil end,
})
M.literal = literal_proxy

return M
