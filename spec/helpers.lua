-- helpers.lua: shared setup for the busted specs — a private registry file and
-- deterministic simulated systems in virtual time.
local tmp = os.tmpname()
os.remove(tmp)
-- every system in the specs reads and writes this registry, never the user's
require("mi.core") -- loaded before MI_AIFKUF matters: the C side reads the environment itself
local H = {}
H.registry = tmp
-- Returns a session on a fresh, deterministic simulated system (virtual time).
function H.session(opts)
  local mi = require("mi")
  opts = opts or {}
  local sys = mi.system({ workload = opts.workload or "oltp", cpus = opts.cpus or 2, seed = opts.seed or 42 })
  return mi.open({ system = sys }), sys
end
_G.H = H
return H
