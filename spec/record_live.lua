-- record_live.lua: runs a script on a deterministic simulated system in virtual time while
-- recording it (for spec/record_spec.lua): each sleep of the script advances the model and
-- takes a sample, and mi.clock() reads the model's clock, as a replay's reads the recorded one.
--   lua5.4 spec/record_live.lua OUT.mir script.lua [args...]
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = "lua/?.so;" .. package.cpath
local mi = require("mi")
local out, script = arg[1], arg[2]
local sys = mi.open_system("sim", { virtual = true, cpus = 2 })
mi.core.set_default(sys)
os.remove(out)
local rec = mi.record({ path = out, fsync = "none", key_every = 7 })
local tpm = mi.open():config(3043)[3043]
mi._clock = function() return sys:info().ticks // tpm end
mi._sleep = function(sec)
  sys:advance(math.floor(sec * 1000 + 0.5))
  assert(rec:sample())
  return true
end
local args = {}
for i = 3, #arg do args[#args + 1] = arg[i] end
_G.arg = { [0] = script, table.unpack(args) }
local ok, err = pcall(dofile, script)
rec:close()
if not ok and not tostring(err):find("exit") then error(err) end
