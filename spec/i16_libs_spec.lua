-- i16_libs_spec.lua: #16.17 — why mi.cli keeps its own JSON encoder (lua/README.md): exact 64-bit
-- integers and keys in the same order on every run.
local cli = require("mi.cli")

describe("#16.17 cli.json", function()
  it("writes a 64-bit integer exactly (cjson rounds it to 14 digits)", function()
    assert.equal('{"start_ticks":1763791800123456789}', cli.json({ start_ticks = 1763791800123456789 }))
  end)
  it("writes keys sorted, the same on every run", function()
    assert.equal('{"a":1,"b":[1,2],"z":"x"}', cli.json({ z = "x", a = 1, b = { 1, 2 } }))
  end)
end)
