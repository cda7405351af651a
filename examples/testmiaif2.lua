-- testmiaif2.lua: Appendix H's second example with the friendly layer — compare with
-- testmiaif2.c. Every disk's reads, writes and reads per object class (small map);
-- records come back keyed by name, so there is no record layout to declare.
--   mish examples/testmiaif2.lua [interval-seconds] [samples]
local mi = require("mi")
local wait, samples = tonumber(arg[1]) or 1, tonumber(arg[2]) or 40

local s = mi.open()
local st, err = s:on("io", { "imc_swaplist_read", "imc_swaplist_write", "imc_read_objcl_" }, { ldev = "disk", mapping = "small" })
if not st then error("can't get the aif: " .. tostring(err)) end
local names = mi.objcl_names("small")

s:sample(wait, samples, function() return { d = s:get("io"), ms = mi.clock() } end, function(delta, _)
  local read, write, by_class = 0, 0, {}
  for _, r in ipairs(delta.d) do
    read, write = read + r.imc_swaplist_read, write + r.imc_swaplist_write
    for c, v in ipairs(r.imc_read_objcl_) do by_class[c] = (by_class[c] or 0) + v end
  end
  local sec = delta.ms / 1000
  print(string.format("disk read: %3d write: %3d read rate %.1f write rate %.1f", read, write, read / sec, write / sec))
  for c, name in ipairs(names) do print(string.format("%-34s %d", name, by_class[c] or 0)) end
end)
s:close()
