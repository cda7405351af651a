-- mi.shell: what the mish prompt adds to the mi module — the pretty printer,
-- help(), completion candidates and the banner.
local mi = require("mi")
local M = {}

local DOCS = {
  ["mi.open"] = "mi.open{system=, user_id=} -> session: a privileged, authorized MI caller",
  ["mi.system"] = "mi.system{workload='oltp'|'file.lua'|table, cpus=, seed=, sessions=, ..., realtime=false} -> a simulated system of your own",
  ["mi.item"] = "mi.item(number|name [, domain]) -> catalog entry {item,name,domain,kind,unit,reading,type,instrumented,description}",
  ["mi.find"] = "mi.find(pattern|word [, domain]) -> items whose name matches ('gmc_stop_*', a Lua pattern) or whose name or description holds a word ('idle')",
  ["mi.describe"] = "mi.describe(item|config item|status) -> one line about it",
  ["mi.status"] = "mi.status(code|name) -> {code, name, message}",
  ["mi.delta"] = "mi.delta(new, old) -> rollover-correct difference (numbers or tables of them; a record's levels keep their new values; lists of processes, devices, CPUs pair by identity: born/died)",
  ["mi.rate"] = "mi.rate(delta, interval_ms) -> per second (a number, or mi.delta's table: each total's rate)",
  ["mi.pct"] = "mi.pct(part, whole) -> percentage",
  ["mi.label"] = "mi.label(array [, 'semaphore'|mapping]) -> {class_name = value} for non-zero classes",
  ["mi.workloads"] = "mi.workloads() -> names of the built-in simulated workloads",
  ["mi.workload"] = "mi.workload(name | 'file.lua' | table) -> the workload's fields as a table",
  ["mi.workload_fields"] = "mi.workload_fields() -> {name=, min=, max=, about=} for each workload field",
  ["mi.default_system"] = "mi.default_system() -> the system the shell measures (--system, --workload, --cpus)",
  ["mi.userdef"] = "mi.userdef{system=, counters={{name=, kind='accum'|'faccum'|'busy'|'queue'|'qbusy', unit=, help=, per_process=, elements=}}} -> u; u.name:add(n [, pid]), :set(level), :value()",
  ["mi.literal"] = "mi.literal.MIGLOBON(s, {21176, 0}, 1) ... the manual's calls one to one",
  ["s:on"] = "s:on(domain, items [, {mapping=, pid=, ldev=}]) -> Status (.items per item), or nil, Status on failure; domain 'global'|'process'|'io'",
  ["s:get"] = "s:get(domain [, items, {pid=, ldev=, cpu=, mapping=, into=t, columns=true|'typed'}]) -> values (or records), Status, or nil, Status; domain also 'processor'; into refills t, columns gives {key = {values}}, 'typed' the query's own typed columns {key = column} (col[i], #col, col:sum(), :min(), :max(), :mean(), :totable(), :ipairs()), refilled by its next read",
  ["s:off"] = "s:off(domain [, {pid=, ldev=}]) -> Status, or nil, Status on failure",
  ["s:config"] = "s:config([names...]) -> {NAME = value}, Status from AIFSCGET (nil, Status on failure)",
  ["s:put"] = "s:put({NAME = value} [, {expect = {NAME = value}}]) -> Status with .items and .verify, or nil, Status (AIFSCPUT)",
  ["s:time"] = "s:time([{ticks=}|{micro=}]) -> {year,month,day,hour,min,sec,tenths,month_name,weekday,text}, Status (AIFTIME)",
  ["s:advance"] = "s:advance(ms): run a simulated system forward (virtual time)",
  ["s:info"] = "s:info() -> {cpus, processes, devices, ticks}",
  ["s:ms"] = "s:ms(mi_time) -> milliseconds, using items 3042/3043",
  ["s:sample"] = "s:sample(interval_s, count, sampler, fn(delta, i, ms)): a sampling loop",
  ["s:read_active"] = "s:read_active('process'|'ldev' [, items, {include=, exclude=, mode='list'|'exact'|'changed', max=, context=}]) -> records, context (nil when done), Status",
  ["s:active"] = "s:active('process'|'ldev' [, items, opts]) -> iterator over read-active records: for rec in s:active(...) do ... end",
  ["s:records"] = "s:records(domain [, items, opts]) -> the same as s:get (a list of records)",
  ["s:query"] = "s:query(domain, {item numbers}, mapping) -> q, a prepared read kept per list: q:get([sel [, uid [, quiet [, into [, columns]]]]]) -> overall, statuses (nil with quiet when all 0), data",
  ["s:close"] = "s:close(): ends the session; everything it enabled is turned off",
  ["mi.attach"] = "mi.attach(path [, {write = true, trust = true}]) -> the system another process shares at path (mish --share, mi.system{share=}), read-only unless write; mi.open{system = mi.attach(p)}",
  ["mi.open_system"] = "mi.open_system('sim'|'sim:WORKLOAD'|'host'|'host:/proc-root'|'replay:PATH' [, {<any source's option: workload=, cpus=, proc=, from=, to=, speed=>, age_ms=, virtual=, share=}]) -> a system",
  ["mi.set_default"] = "mi.set_default{system=, <any source's option>, replay=, share=, attach=} -> the system mi.open() and mi.default_system() then measure",
  ["mi.clock"] = "mi.clock() -> milliseconds of a monotonic clock (the recorded time when replaying)",
  ["mi.sleep"] = "mi.sleep(seconds): waits (fractions allowed; a replay steps its recording instead)",
  ["mi.mapping"] = "mi.mapping('large'|'small'|'standard'|0-2) -> the mapping number",
  ["mi.objcl_names"] = "mi.objcl_names(mapping) -> names of the object classes, index 1 = class 0",
  ["mi.semcl_names"] = "mi.semcl_names() -> names of the 256 semaphore classes, index 1 = class 0",
  ["mi.Status"] = "mi.Status(code) -> a Status {code, name, message, ok}; tostring names it",
  ["mi.openmetrics"] = "mi.openmetrics([session|system, {format='text', pids=N, mapping=, processes=false, io=false}]) -> an OpenMetrics exposition of the counters",
  ["mi.record"] = "mi.record{path=, system=, items=, fsync='none'|'interval'|'every', key_every=, mapping=} -> recorder: r:sample(), r:mark(text), r:stats(), r:close()",
  ["mi.record_items"] = "mi.record_items(list [, system]) -> item numbers from names, numbers, 'DOMAIN:*', 'DOMAIN:NAME', globs, 'userdef:*'",
  ["mi.replay"] = "mi.replay(path [, {from=, to=, speed=N|'max'}]) -> a system playing the recording back (times ISO 8601, a date, '10:51', '@ticks', '+10m' from the start or '-1m' from the end)",
  ["mi.replay_drive"] = "mi.replay_drive(system, speed): makes sleep and the clock step the recording (what mish --replay does for a script)",
  ["mi.recording_state"] = "mi.recording_state(path [, out]) -> the recording's verify code, having said on stderr what is wrong with it, if anything",
  ["mi.health_text"] = "mi.health_text(h) -> what recording:verify()'s table h says is wrong (damage, unreadable samples, gaps, torn tail), in every tool's words, or nil",
  ["mi.arg_check"] = "mi.arg_check(ok, n, fname, expected, value): unless ok, raises \"bad argument #n to 'fname' (expected expected, got ...)\" at your caller's line",
  ["mi.sync_items"] = "mi.sync_items([system]): merges the user-defined counters of the systems known here into mi.items",
}
M.DOCS = DOCS

-- Prints help for a function name, an item, a configuration item or a status.
function M.help(x)
  if x == nil then
    print([[mish — the MPE/iX Measurement Interface at a prompt. `s` is a session on the measured system.
Each line below, typed as shown (in this order), prints what it says:
  s:on("global", {"gmt_paused", "gmt_idle", "gmc_pauses"})   enable counters (names, numbers, "gmt_*")
  s:get("global")                          read them: values by name (r[21177] works too), Status
  s:get("processor")                       one record per CPU (global item 21164 gmc_pauses is on)
  s:on("process", "pmt_process_time"); s:get("process")   one record per process
  s:on("io", {"imc_completed_read", "imc_read_objcl_"}, {ldev = "disk"}); s:get("io")   one per disk
  s:config("JOB_FENCE", "JOB_COUNT")       configuration items (AIFSCGET)
  s:put({JOB_FENCE = 7}, {expect = {JOB_FENCE = 6}})   AIFSCPUT: written only if the fence is 6
  s:time()                                 AIFTIME now ({ticks = 0}: the time base)
  mi.find("gmc_stop_*")                    items by pattern
  mi.describe(21177)                       one item in a line
  help(-20006)                             a status; help("s:get"), help(mi): the functions
A failure is nil and a Status, so assert(s:on(...)) stops at it. Tab completes names; Ctrl-C stops a
running loop or drops the line being typed; traceback() shows where the last error came from; lines
are kept in ~/.mish_history as they are entered; Ctrl-D leaves.]])
    return
  end
  if x == mi then
    local keys = {}
    for k in pairs(DOCS) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do print(DOCS[k]) end
    return
  end
  if type(x) == "function" then
    for k, f in pairs(mi) do if f == x then print(DOCS["mi." .. k] or ("mi." .. k)) return end end
    print("a function (no help for it)")
    return
  end
  if DOCS[x] or DOCS["mi." .. tostring(x)] or DOCS["s:" .. tostring(x)] then
    print(DOCS[x] or DOCS["mi." .. x] or DOCS["s:" .. x]); return
  end
  local d = mi.describe(x)
  if d then print(d) return end
  if type(x) == "string" then
    local found = mi.find(x)
    if #found > 0 then
      for i, it in ipairs(found) do if i <= 40 then print(mi.describe(it.item)) end end
      if #found > 40 then print(("... and %d more"):format(#found - 40)) end
      return
    end
  end
  print("no help for " .. tostring(x))
end

-- Formats a value for the prompt: tables pretty-printed, statuses in words.
-- (indent and seen are for its own recursion; anything else passed there is ignored,
-- so pretty(s:get(...)) works although get returns a second value.)
function M.pretty(v, indent, seen)
  if type(indent) ~= "string" then indent = "" end
  if type(seen) ~= "table" or getmetatable(seen) then seen = {} end
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) ~= "table" then return tostring(v) end
  local mt = getmetatable(v)
  if mt and mt.__tostring then return tostring(v) end
  if seen[v] then return "<cycle>" end
  seen[v] = true
  local keys, n = {}, #v
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) and not (math.type(k) == "integer" and mi.item(k) and v[mi.item(k).name] ~= nil) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b)
    if type(a) == type(b) and (type(a) == "string" or type(a) == "number") then return a < b end
    return type(a) < type(b)
  end)
  local parts, flat = {}, true
  for i = 1, n do parts[#parts + 1] = M.pretty(v[i], indent .. "  ", seen); if type(v[i]) == "table" then flat = false end end
  if n > 0 and flat and #keys == 0 then
    local line = "{" .. table.concat(parts, ", ") .. "}"
    if #line <= 100 then return line end
  end
  for _, k in ipairs(keys) do
    local key = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or ("[" .. M.pretty(k) .. "]")
    parts[#parts + 1] = key .. " = " .. M.pretty(v[k], indent .. "  ", seen)
    if type(v[k]) == "table" then flat = false end
  end
  if #parts == 0 then return "{}" end
  local line = "{" .. table.concat(parts, ", ") .. "}"
  if flat and #line <= 100 then return line end
  return "{\n" .. indent .. "  " .. table.concat(parts, ",\n" .. indent .. "  ") .. "\n" .. indent .. "}"
end

-- What a string argument of a method is: the domains each method takes (#16.8).
local ARG_DOMAINS = {
  on = { "global", "process", "io" }, off = { "global", "process", "io" },
  get = { "global", "process", "io", "processor" }, records = { "global", "process", "io", "processor" },
}

-- Names completion keeps to itself: mish's options table, the session's query cache.
local HIDDEN = { mish_options = true, query = true }

-- Returns completion candidates for the word being typed; before is the line up to the word
-- (optional). A method's or field's candidates leave out internals (names with '_' first, an
-- object's own fields); a domain argument (s:get("pro) offers domains, an item argument of a
-- domain (s:on("io", "imc_) that domain's items, s:config("/s:put{ configuration names.
function M.complete(word, env, before)
  local out = {}
  before = before or ""
  local function offer(list, pre)
    for _, n in ipairs(list) do if n:sub(1, #word) == word then out[#out + 1] = (pre or "") .. n end end
    table.sort(out)
    return out
  end
  local method = before:match("[%w_]+[:.]([%w_]+)%(%s*[\"']$")
  if method and ARG_DOMAINS[method] then return offer(ARG_DOMAINS[method]) end
  local domain = before:match("[%w_]+:[%w_]+%(%s*[\"'](%a+)[\"']%s*,[^)]*[\"']$")
  if domain == "global" or domain == "process" or domain == "io" or domain == "processor" then
    local names = {}
    for _, it in ipairs(mi.items) do if it.domain == domain then names[#names + 1] = it.name end end
    return offer(names)
  end
  if before:match("[%w_]+:config%([^)]*[\"']$") or before:match("[%w_]+:put%(%s*{[^}]*$") then
    local names = {}
    for _, c in ipairs(mi.config_items) do names[#names + 1] = c.name end
    return offer(names)
  end
  local base, sep, part = word:match("^(.-)([%.:])([%w_]*)$")
  if base and base ~= "" then
    local t = env
    for name in base:gmatch("[^%.:]+") do t = type(t) == "table" and t[name] or nil end
    local mt = type(t) == "table" and getmetatable(t)
    local methods = mt and type(mt.__index) == "table" and mt.__index
    local function add(tab)
      if type(tab) ~= "table" then return end
      for k, v in pairs(tab) do
        if type(k) == "string" and k:sub(1, #part) == part and k:sub(1, 1) ~= "_" and not HIDDEN[k]
           and (sep == "." or type(v) == "function") then
          out[#out + 1] = base .. sep .. k
        end
      end
    end
    if methods then add(methods) else add(t) end   -- an object: its methods, not its own fields
  else
    local prefix = word:match("([%w_]*)$") or ""
    local head = word:sub(1, #word - #prefix)
    for k in pairs(env) do
      if type(k) == "string" and k:sub(1, #prefix) == prefix and not HIDDEN[k] and (k:sub(1, 1) ~= "_" or prefix:sub(1, 1) == "_") then
        out[#out + 1] = head .. k
      end
    end
    if #prefix >= 2 then
      mi.sync_items()   -- user-defined counters (#14.2) installed meanwhile
      for _, it in ipairs(mi.items) do if it.name:sub(1, #prefix) == prefix then out[#out + 1] = head .. it.name end end
      for _, c in ipairs(mi.config_items) do if c.name:sub(1, #prefix) == prefix then out[#out + 1] = head .. c.name end end
    end
  end
  table.sort(out)
  return out
end

-- Returns the completion listing with each item's or configuration item's description beside it
-- ("gmt_idle   Time the CPUs were idle..."), at most 40 lines; nil when no candidate names one.
function M.listing(cands)
  local lines, width, any = {}, 0, false
  for _, c in ipairs(cands) do width = math.max(width, #c) end
  for i, c in ipairs(cands) do
    local name = c:match("([%w_]+)$") or c
    local it, d = mi.item(name), nil
    if it then d = it.description end
    for _, cfg in ipairs(mi.config_items) do if not d and cfg.name == name then d = cfg.description end end
    any = any or d ~= nil
    if i <= 40 then lines[#lines + 1] = d and string.format("%-" .. width .. "s  %s", c, d) or c end
  end
  if not any then return nil end
  if #cands > 40 then lines[#lines + 1] = string.format("... and %d more", #cands - 40) end
  return table.concat(lines, "\n") .. "\n"
end

-- Returns the scripts in dir, sorted: {name=, path=, about=} (about: the first sentence of the
-- header comment, "-- NAME.lua: what it does. ...").
function M.scripts(dir)
  local list = {}
  local p = io.popen("ls -1 '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null")
  for f in p:lines() do
    local name = f:match("^([%w_%-]+)%.lua$")
    local h = name and io.open(dir .. "/" .. f)
    if h then
      local head = {}
      for l in h:lines() do
        local c = l:match("^%-%-%s?(.*)$")
        if not c then break end
        head[#head + 1] = c
      end
      h:close()
      local text = table.concat(head, " "):gsub("^[%w_%-]+%.lua:%s*", "")
      list[#list + 1] = { name = name, path = dir .. "/" .. f, about = text:match("^(.-%.)%s") or text:match("^(.-%.)$") or text }
    end
  end
  p:close()
  table.sort(list, function(a, b) return a.name < b.name end)
  return list
end

-- mish -l [NAME]: prints the scripts in dir with one line each, or runs NAME's --help.
function M.list_scripts(dir, name)
  if not dir or dir == "" then error("no scripts next to mish (looked for ../scripts and ../share/mish[/scripts])", 0) end
  local list = M.scripts(dir)
  if name then
    for _, sc in ipairs(list) do
      if sc.name == name or sc.name .. ".lua" == name then
        _G.arg = { [0] = sc.path, "--help" }
        return dofile(sc.path)
      end
    end
    error("no script '" .. name .. "' in " .. tostring(dir) .. " (mish -l lists them)", 0)
  end
  if #list == 0 then error("no scripts found (looked in " .. tostring(dir) .. ")", 0) end
  print("scripts in " .. dir .. " (run one: mish NAME [options]; its options: mish -l NAME):")
  for _, sc in ipairs(list) do print(string.format("  %-10s %s", sc.name, sc.about)) end
end

M.banner = "mish %s — HP MPE/iX Measurement Interface shell, measuring %s.\n" ..
  "Try:  s:on(\"global\", \"gmt_*\")   then   s:get(\"global\")      help() for more, Ctrl-D to leave."

return M
