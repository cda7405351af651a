-- mi.calls: the literal layer: the manual's calls one to one (mi.literal).
-- Part of the mi facade: loaded by lua/mi/init.lua, it adds to M using the facade's private helpers P.
local F = package.loaded["mi._facade"]   -- set by lua/mi/init.lua while it loads its parts
  or error("mi.calls is a part of the mi facade: require('mi')", 2)
local M, P = F.M, F.P
local core = P.core
-- ---------------------------------------------------------------- the literal layer
-- The manual's calls one to one on a raw session: item-number arrays in, overall status
-- code, item status array and values out. Example: mi.literal.MIGLOBON(s, {21176, 0}, 1).
local L = {}
-- The item-number array of the literal call fn (argument #2) up to its terminating 0.
local function strip0(items, fn, argn)
  if type(items) ~= "table" then
    error(string.format("bad argument #%d to '%s' (array of item numbers ending in 0 expected, got %s)", argn or 2, fn, type(items)), 3)
  end
  local t = {}
  for _, v in ipairs(items) do if v == 0 then break end t[#t + 1] = v end
  return t
end
-- The raw session of s (a session of mi.open, or mi.literal.session's) for literal call fn.
local function raw(s, fn)
  local r = type(s) == "table" and rawget(s, "s") or s
  if type(r) ~= "userdata" then
    error(string.format("bad argument #1 to '%s' (session expected, got %s)", fn, type(s)), 3)
  end
  return r
end
function L.GETPRIVMODE(s) raw(s, "GETPRIVMODE"):priv(true) end
function L.GETUSERMODE(s) raw(s, "GETUSERMODE"):priv(false) end
function L.AIFACCESSON(s, uid) return core.accesson(raw(s, "AIFACCESSON"), uid) end
function L.AIFACCESSOFF(s, uid) return core.accessoff(raw(s, "AIFACCESSOFF"), uid) end
function L.AIFGLOBINSTALL(s, uid) return core.globinstall(raw(s, "AIFGLOBINSTALL"), uid) end
function L.AIFSCGET(s, items, uid) return core.scget(raw(s, "AIFSCGET"), strip0(items, "AIFSCGET"), uid) end
function L.AIFSCPUT(s, items, vals, uid, vitems, vvals)
  return core.scput(raw(s, "AIFSCPUT"), strip0(items, "AIFSCPUT"), vals, uid, vitems and strip0(vitems, "AIFSCPUT", 5), vvals)
end
function L.AIFTIME(s, t, uid) return core.time(raw(s, "AIFTIME"), t, uid) end
function L.MIGLOBON(s, items, mapping, uid) return core.globon(raw(s, "MIGLOBON"), strip0(items, "MIGLOBON"), mapping, uid) end
function L.MIGLOBGET(s, items, mapping, uid) return core.globget(raw(s, "MIGLOBGET"), strip0(items, "MIGLOBGET"), mapping, uid) end
function L.MIGLOBOFF(s, uid) return core.globoff(raw(s, "MIGLOBOFF"), uid) end
function L.MIPROCON(s, items, mapping, pid, uid) return core.procon(raw(s, "MIPROCON"), strip0(items, "MIPROCON"), mapping, pid, uid) end
function L.MIPROCGET(s, items, mapping, pid, uid) return core.procget(raw(s, "MIPROCGET"), strip0(items, "MIPROCGET"), mapping, pid, uid) end
function L.MIPROCOFF(s, pid, uid) return core.procoff(raw(s, "MIPROCOFF"), pid, uid) end
function L.MIIOON(s, items, mapping, ldev, uid) return core.ioon(raw(s, "MIIOON"), strip0(items, "MIIOON"), mapping, ldev, uid) end
function L.MIIOGET(s, items, mapping, ldev, uid) return core.ioget(raw(s, "MIIOGET"), strip0(items, "MIIOGET"), mapping, ldev, uid) end
function L.MIIOOFF(s, ldev, uid) return core.iooff(raw(s, "MIIOOFF"), ldev, uid) end
function L.MIPRCSRGET(s, items, mapping, id, uid) return core.prcsrget(raw(s, "MIPRCSRGET"), strip0(items, "MIPRCSRGET"), mapping, id, uid) end
-- Returns a raw session (user mode, no access) on a system, for the literal calls.
function L.session(sys) return core.session(sys or core.system("default")) end
M.literal = L
