-- mi.analysis: the analysis helpers: deltas and rates paired by identity, percentages, labels, sampling loops, sleep and clock.
-- Part of the mi facade: loaded by lua/mi/init.lua, it adds to M using the facade's private helpers P.
local F = package.loaded["mi._facade"]   -- set by lua/mi/init.lua while it loads its parts
  or error("mi.analysis is a part of the mi facade: require('mi')", 2)
local M, P = F.M, F.P
local BY_NAME, READ_AT, Session, arg_check, bad_self, core = P.BY_NAME, P.READ_AT, P.Session, P.arg_check, P.bad_self, P.core
-- ---------------------------------------------------------------- analysis helpers
local MAXINT, MININT = 2147483647, -2147483648

-- The domain of a record: its metatable's (records of s:get and s:read_active), or nil.
local function rec_domain(r)
  local mt = getmetatable(r)
  return type(mt) == "table" and rawget(mt, "domain") or nil
end
-- The identity of an entity's record (#30): a process is its pid and its start time (a pid is
-- reused), a device its LDEV, a processor its CPU id; nil for anything else (a global record, a
-- plain table). A table without a record's metatable but with those fields has them too.
local function identity(r)
  if type(r) ~= "table" then return nil end
  local d = rec_domain(r)
  if d == "global" then return nil end
  if (d == nil or d == "process") and r.pid ~= nil then return "p" .. tostring(r.pid) .. "@" .. tostring(r.start_ticks) end
  if (d == nil or d == "io") and r.ldev ~= nil then return "l" .. tostring(r.ldev) end
  if (d == nil or d == "processor") and r.processor_id ~= nil then return "c" .. tostring(r.processor_id) end
  return nil
end
-- Whether t is a list of entity records (every element has an identity; at least one element).
local function entity_list(t)
  if type(t) ~= "table" or rec_domain(t) or t[1] == nil then return false end
  for _, r in ipairs(t) do if identity(r) == nil then return false end end
  return true
end
-- Whether key k of a record of names (the catalog names of its domain, or nil) is a total:
-- an item the catalog calls one, or a number no item names (a plain table's, a user's).
local function is_total(names, k, v)
  local it = names and names[k]
  if it then return it.reading == "total" end
  return type(v) == "number" or type(v) == "table"
end
-- A copy of array-or-number v (a total's value since birth).
local function copy_value(v)
  if type(v) ~= "table" then return v end
  local c = {}
  for i, x in pairs(v) do c[i] = x end
  return c
end
-- The delta record of an entity seen on one side only (#30): r's levels and identity, flag =
-- true ("born" or "died"), and its totals only when with_totals (a process born inside the
-- interval: its counters started at zero then, so its values are those since birth) — never a
-- difference from another entity's values.
local function one_side(r, flag, with_totals)
  local mt = getmetatable(r)
  local d = rec_domain(r) or (r.pid ~= nil and "process") or (r.ldev ~= nil and "io") or (r.processor_id ~= nil and "processor")
  local names = d and BY_NAME[d]
  local out = {}
  for k, v in pairs(r) do
    if not is_total(names, k, v) or with_totals then out[k] = copy_value(v) end
  end
  out[flag] = true
  return setmetatable(out, mt)
end

-- Rollover-correct difference of two I32 counter samples (chapter 2's formula); of two records
-- (or tables of them), each total's difference, while a record's levels and watermarks (queue
-- lengths, maxima, the pid, the program: what mi.item(name).reading does not call a total) keep
-- their new values — a difference of a level means nothing, and one that went down would wrap.
-- Two lists of entity records (s:get("process"|"io"|"processor")) pair by identity, never by
-- position: pid and start time, LDEV, CPU id. The result lists new's entities in new's order,
-- then those only the old list has. An entity only in new has born = true, with its values since
-- birth when it started after the old list was read (a process of a list read by s:get), else
-- with its levels only; one only in old has died = true and its levels only; a process whose
-- new record is its death report (state "dead") has died = true and its delta (an old death
-- report not in new is left out: that death was the older interval's).
function M.delta(new, old)
  arg_check(type(new) == "table" or type(new) == "number", 1, "delta", "number or record", new)
  arg_check(type(old) == type(new), 2, "delta", type(new) == "table" and "record (as #1)" or "number (as #1)", old)
  if type(new) == "table" then
    if entity_list(new) and (old[1] == nil or entity_list(old)) or new[1] == nil and entity_list(old) then
      local pending, out, old_at = {}, {}, READ_AT[old]
      for i, r in ipairs(old) do
        local id = identity(r)
        local q = pending[id]
        if not q then q = {}; pending[id] = q end
        q[#q + 1] = i
      end
      local used = {}
      for _, r in ipairs(new) do
        local q = pending[identity(r)]
        local i = q and table.remove(q, 1)
        if i then
          used[i] = true
          local d = M.delta(r, old[i])
          if r.state == "dead" then d.died = true end
          out[#out + 1] = d
        else
          local st = rec_domain(r) == "process" and math.type(r.start_ticks) == "integer" and r.start_ticks
          out[#out + 1] = one_side(r, "born", st and old_at ~= nil and st >= old_at)
        end
      end
      for i, r in ipairs(old) do   -- (an old death report: that death was the older interval's)
        if not used[i] and r.state ~= "dead" then out[#out + 1] = one_side(r, "died", false) end
      end
      return out
    end
    local d, mt = {}, getmetatable(new)
    local names = type(mt) == "table" and rawget(mt, "domain") and BY_NAME[rawget(mt, "domain")]
    for k, v in pairs(new) do
      local it = names and names[k]
      if it and it.reading ~= "total" then d[k] = v
      elseif type(v) == "number" and type(old[k]) == "number" then d[k] = M.delta(v, old[k])
      elseif type(v) == "table" and type(old[k]) == "table" then d[k] = M.delta(v, old[k])
      elseif type(v) == "string" or type(v) == "boolean" then d[k] = v end   -- a record's state, a device's type
    end
    return setmetatable(d, mt)   -- a record's numbers still reach named values
  end
  if new >= old then return new - old end
  return new - MININT + MAXINT + 1 - old
end

-- Converts MI_Time units to milliseconds using the system's items 3042/3043.
function Session:ms(mi_time)
  arg_check(type(mi_time) == "number", 1, "ms", "MI_Time units (a number)", mi_time)
  if not self.factors then
    local c = self:config(3042, 3043)
    self.factors = { round = c[3042], tpm = c[3043] }
  end
  return mi_time * self.factors.round / self.factors.tpm
end

-- Returns a rate per second of a delta over an interval in milliseconds: of a number, or of
-- mi.delta's table (a record, a list of entities paired by identity), each total's rate, with
-- levels, identities and the born/died flags as they are (a total a one-sided entity lacks stays absent).
function M.rate(delta, interval_ms)
  arg_check(type(delta) == "number" or type(delta) == "table", 1, "rate", "number or delta (mi.delta's)", delta)
  arg_check(type(interval_ms) == "number", 2, "rate", "milliseconds", interval_ms)
  if type(delta) == "number" then return interval_ms > 0 and delta * 1000 / interval_ms or 0 end
  local mt = getmetatable(delta)
  local d = rec_domain(delta)
  local names = d and BY_NAME[d]
  local out = {}
  for k, v in pairs(delta) do
    if (type(v) == "number" or type(v) == "table") and is_total(names, k, v) then out[k] = M.rate(v, interval_ms)
    else out[k] = v end
  end
  return setmetatable(out, mt)
end

-- Returns a percentage of part in whole (0 when whole is 0).
function M.pct(part, whole)
  arg_check(type(part) == "number", 1, "pct", "number", part)
  arg_check(type(whole) == "number", 2, "pct", "number", whole)
  return whole ~= 0 and 100 * part / whole or 0
end

-- Labels an object- or semaphore-class array: returns {name = value} for non-zero classes.
function M.label(arr, kind)
  arg_check(type(arr) == "table", 1, "label", "class array (a table)", arr)
  local names = kind == "semaphore" and M.semcl_names() or M.objcl_names(kind or (#arr == 720 and 0 or #arr == 33 and 1 or 2))
  local out = {}
  for i, v in ipairs(arr) do if v ~= 0 then out[names[i]] = v end end
  return out
end

-- Sampling loop: every interval (seconds) for count samples, calls fn(delta, sample, elapsed_ms).
-- sample() returns a table of cumulative values; on a simulated system in virtual time the clock is advanced.
function Session:sample(interval, count, sample, fn)
  arg_check(type(interval) == "number" and interval >= 0, 1, "sample", "seconds >= 0", interval)
  arg_check(math.type(count) == "integer" and count >= 0, 2, "sample", "count (an integer >= 0)", count)
  arg_check(type(sample) == "function", 3, "sample", "function returning the cumulative values", sample)
  arg_check(type(fn) == "function", 4, "sample", "function(delta, i, elapsed_ms)", fn)
  local prev = sample()
  for i = 1, count do
    if self.virtual then self:advance(math.floor(interval * 1000)) else M.sleep(interval) end
    local cur = sample()
    fn(M.delta(cur, prev), i, interval * 1000)
    prev = cur
  end
end

-- Every method but get (the hot path, which checks for itself) checks its self first.
for name, f in pairs(Session) do
  if type(f) == "function" and not name:find("^__") and name ~= "get" then
    Session[name] = function(self, ...)
      if getmetatable(self) ~= Session then bad_self(name, self) end
      return f(self, ...)
    end
  end
end
Session.__close = Session.close

-- Sleeps for sec seconds (fractions allowed).
function M.sleep(sec)
  if M._sleep then return M._sleep(sec) end
  if type(sec) ~= "number" or not (sec >= 0 and sec <= 1e7) then
    error("bad argument #1 to 'sleep' (seconds 0..1e7 expected, got " .. tostring(sec) .. ")", 2)
  end
  return core.sleep(sec)
end

-- Milliseconds of a monotonic clock (of the recorded time when replaying: M._clock).
function M.clock()
  if M._clock then return M._clock() end
  return core.clock()
end
