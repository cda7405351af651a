-- helpers.lua: shared setup for the busted specs — a private registry file and
-- deterministic simulated systems in virtual time.
local tmp = os.tmpname()
os.remove(tmp)
-- every system in the specs reads and writes this registry, never the user's
require("mi.core") -- mi.core reads $MI_AIFKUF when opened and passes it to every system Lua creates
local H = {}
H.registry = tmp
-- Returns a session on a fresh, deterministic simulated system (virtual time).
function H.session(opts)
  local mi = require("mi")
  opts = opts or {}
  local sys = mi.system({ workload = opts.workload or "oltp", cpus = opts.cpus or 2, seed = opts.seed or 42 })
  return mi.open({ system = sys }), sys
end
-- Returns a fresh temporary path ending in "-" .. tag (nothing is created there).
function H.tmp_path(tag)
  local p = os.tmpname()
  os.remove(p)
  return p .. "-" .. tag
end
-- Runs a shell command; returns its output (stderr included) and whether it succeeded.
function H.run(cmd)
  local f = io.popen(cmd .. " 2>&1")
  local out = f:read("a")
  local ok = f:close()
  return out, ok
end
_G.H = H
return H
