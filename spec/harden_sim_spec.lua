-- harden_sim_spec.lua: issue 11 defects 5 and 13 as the Lua side sees them — workloads are
-- checked against one table of ranges, and AIFTIME reads the measured system's clock now.
local mi = require("mi")

describe("#11.5 workload ranges", function()
  it("every built-in workload's own table makes a system (oltp had 40 terminals, past 1..20)", function()
    for _, name in ipairs(mi.workloads()) do
      local w = mi.workload(name)
      assert.is_true(w.terminals >= 1 and w.terminals <= 20, name)
      assert.truthy(mi.system({ workload = w }), name)
    end
  end)

  it("a field out of range names the field and its range", function()
    local ok, err = pcall(mi.system, { workload = "oltp", disks = 906 })
    assert.is_false(ok)
    assert.matches("workload field 'disks' must be an integer in 1..105, got 906", err, 1, true)
    ok, err = pcall(mi.system, { workload = "oltp", think_ms = 0 / 0 })
    assert.is_false(ok)
    assert.matches("workload field 'think_ms' must be a number", err, 1, true)
  end)
end)

describe("#11.13 AIFTIME", function()
  -- Tenths of a second since midnight of an AIFTIME table.
  local function tenths(t) return ((t.hour * 60 + t.min) * 60 + t.sec) * 10 + t.tenths end

  it("moves with the wall clock on a real-time system (two calls 1.1 s apart differ by about 1 s)", function()
    local s = mi.open({ system = mi.system({ workload = "idle", realtime = true }) })
    local t1 = assert(s:time())
    mi.sleep(1.1)
    local t2 = assert(s:time())
    local d = (tenths(t2) - tenths(t1)) % 864000
    assert.is_true(d >= 10 and d <= 16, "moved " .. d .. " tenths")
    s:close()
  end)
end)
