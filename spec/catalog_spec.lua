-- catalog_spec.lua: the catalog at the prompt — lookup, search, describe, statuses.
local mi = require("mi")

describe("mi.item", function()
  it("finds an item by number and by name", function()
    assert.equal("gmt_idle", mi.item(21177).name)
    assert.equal(21176, mi.item("GMT_PAUSED").item)
  end)
  it("keeps names unique within a domain", function()
    assert.equal(27026, mi.item("gmt_cm_time", "processor").item)
    assert.equal(21317, mi.item("gmt_cm_time", "global").item)
  end)
  it("returns nil for unknown items and wrong types", function()
    assert.is_nil(mi.item(21500))
    assert.is_nil(mi.item("no_such_counter"))
    assert.is_nil(mi.item({}))
  end)
  it("says what a value reads as: a total, a level or a watermark (the catalog's reading column)", function()
    assert.equal("total", mi.item("gmt_idle").reading)
    assert.equal("level", mi.item("gmc_cur_ready_queue").reading)
    assert.equal("watermark", mi.item("gmc_max_ready_queue").reading)
    assert.equal("level", mi.item("pid").reading)
    assert.equal("total", mi.item("pmc_process_priority").reading)   -- counts adjustments, whatever its name says
    assert.truthy(mi.describe("gmc_sm_lru_depth"):find("a level (its value now)", 1, true))
    assert.truthy(mi.describe(21177):find("a total", 1, true))
  end)
  -- The column was first derived from the names, then read against the manual's sentences;
  -- these hold names, descriptions and column together so that a new row cannot contradict them.
  it("keeps the reading column consistent with names and descriptions", function()
    local bad = {}
    for _, it in ipairs(mi.items) do
      if it and not it.userdef then
        local d, n, r = it.description, it.name, it.reading
        local why
        if it.kind ~= "simple" and it.kind ~= "pseudo" and r ~= "total" and not n:find("_cur_") then why = "a class histogram is a total"
        elseif it.kind == "pseudo" and r ~= "level" then why = "a pseudo-item is a level"
        elseif (d:find("^Times ") or d:find("^Time [a-z ]*spent") or d:find("^Summed ")) and r ~= "total" then why = "its description counts"
        elseif n:find("_cur_") and r ~= "level" then why = "a cur item is a level"
        elseif (d:find("^Moment ") or d:find("^When ")) and r ~= "level" then why = "a time of day is a level"
        elseif (d:find("right now") or d:find(" now$") or d:find(" now ")) and not d:find("not files open now") and r ~= "level" then why = "its description says now"
        elseif (d:find("^Longest ") or d:find("^Shortest ") or d:find("^Deepest ") or d:find("^Most ")
          or d:find("^Slowest ") or d:find("^Quickest ") or d:find("high%-water")) and r ~= "watermark" then why = "its description names an extreme"
        end
        if why then bad[#bad + 1] = string.format("%d %s (%s): %s", it.item, n, r, why) end
      end
    end
    assert.same({}, bad)
  end)
  it("covers the example programs' items with their names", function()
    local names = { [21176] = "gmt_paused", [21181] = "gmt_disp_act", [21233] = "gmc_stop_priority_preemption",
      [21306] = "gmc_mem_clock_cycles", [21317] = "gmt_cm_time", [23050] = "imc_read_objcl_" }
    for n, name in pairs(names) do assert.equal(name, mi.item(n).name) end
  end)
end)

describe("mi.find", function()
  it("matches globs", function()
    local f = mi.find("gmc_stop_*", "global")
    assert.is_true(#f >= 50)
    for _, it in ipairs(f) do assert.truthy(it.name:match("^gmc_stop_")) end
  end)
  it("matches Lua patterns", function()
    assert.equal(10, #mi.find("^gmc_response_"))
  end)
end)

describe("mi.describe", function()
  it("says when a counter is not instrumented", function()
    assert.truthy(mi.describe(21118):find("not instrumented"))
    assert.truthy(mi.describe(21034):find("not incremented"))
  end)
  it("describes configuration items and statuses", function()
    assert.truthy(mi.describe("JOB_FENCE"):find("0..14"))
    assert.truthy(mi.describe(-20006):find("BAD_ITEM"))
    assert.is_nil(mi.describe("nothing at all"))
  end)
end)

describe("statuses as data", function()
  local cases = {
    { 0, "OK" }, { -25, "CAPABILITY" }, { -26, "NO_SUCH_USER_ID" }, { -3014, "TIME_INVALID" },
    { -20001, "ALREADY_ENABLED" }, { -20008, "BUFFER_TOO_SMALL" }, { 20002, "MAPPING_NOT_GIVEN" },
  }
  for _, c in ipairs(cases) do
    it("names status " .. c[1], function()
      local s = mi.status(c[1])
      assert.equal(c[2], s.name)
      assert.equal(c[1], mi.status(c[2]).code)
      assert.is_string(s.message)
    end)
  end
  it("explains a positive item index", function()
    assert.equal("ITEM_ERROR", mi.status(3).name)
  end)
  it("has every Appendix A code", function()
    for _, code in ipairs({ -1, -8, -20, -24, -60, -100, -115, -129, -20021, 20001 }) do
      assert.is_table(mi.status(code))
    end
  end)
end)

describe("object and semaphore classes", function()
  it("has the three maps and 256 semaphore classes", function()
    assert.equal(720, #mi.objcl_names("large"))
    assert.equal(33, #mi.objcl_names("small"))
    assert.equal(10, #mi.objcl_names(2))
    assert.equal(256, #mi.semcl_names())
  end)
  it("rejects a bad mapping", function()
    assert.has_error(function() mi.objcl_names("huge") end)
  end)
  it("labels arrays with class names", function()
    local arr = {}
    for i = 1, 10 do arr[i] = 0 end
    arr[8] = 4
    assert.same({ objcl_file_object = 4 }, mi.label(arr))
  end)
end)
