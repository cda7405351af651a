-- export_items_spec.lua — mi.openmetrics{items = ...}: an exposition of chosen catalog items only
-- (a simulated system); bad lists are refused with the reason.
local mi = require("mi")

-- The family names (# TYPE lines) of an exposition, as a set.
local function families(text)
  local set = {}
  for name in text:gmatch("# TYPE ([%w_:]+)") do set[name] = true end
  return set
end

describe("mi.openmetrics with items", function()
  it("exports the listed items (by number or name) and nothing else of the catalog", function()
    local sys = mi.system({ workload = "oltp" })
    mi.openmetrics(sys, { items = { 21177, "pmt_process_time" } })
    sys:advance(500)
    local text = mi.openmetrics(sys, { items = { 21177, "pmt_process_time" } })
    local f = families(text)
    assert.is_true(f.mish_pmt_process_time_seconds, "the listed process item: " .. text:sub(1, 400))
    assert.truthy(text:find('\nmish_pmt_process_time_seconds_total{program="', 1, true) or text:find('\nmish_pmt_process_time_seconds{', 1, true),
      "with samples of the simulated processes")
    local all = families(mi.openmetrics(sys))
    local n, m = 0, 0
    for _ in pairs(f) do n = n + 1 end
    for _ in pairs(all) do m = m + 1 end
    assert.is_true(n < 20 and m > 300, ("a short exposition: %d families of the catalog's %d"):format(n, m))
    for name in pairs(f) do assert.is_true(all[name], name .. " is a family of the full exposition too") end
    assert.is_nil(f.mish_pmc_disc_write_total, "an item not listed is left out")
    sys:close()
  end)

  it("refuses a pseudo-item, an unknown item and an empty list, naming the item", function()
    local ok, err = pcall(mi.openmetrics, nil, { items = { 20001 } })
    assert.is_false(ok)
    assert.matches("item 20001 cannot be exported: a pseudo%-item", err)
    assert.is_nil(err:find("mi/[%w_]+%.lua:%d+"), "no position inside mi: " .. err)
    ok, err = pcall(mi.openmetrics, nil, { items = { "no_such_item" } })
    assert.is_false(ok)
    assert.matches("no_such_item", err)
    ok, err = pcall(mi.openmetrics, nil, { items = {} })
    assert.is_false(ok)
    assert.matches("items", err)
  end)
end)
