-- catalog_words_spec.lua: #16.7 — every catalog item says what it measures, in our own words,
-- and a plain word finds items by name or description.
local mi = require("mi")
local sh = require("mi.shell")

-- The manual's OCR text: $MISH_MANUAL, else the copy the project was built from (absent on CI).
local MANUAL = os.getenv("MISH_MANUAL") or "/work/shared/seeds/003_6044362a555e29e2.txt"

-- Returns the lower-case words of a text.
local function words(s)
  local w = {}
  for x in s:lower():gmatch("[%a%d]+") do w[#w + 1] = x end
  return w
end

describe("#16.7 catalog descriptions", function()
  it("every item has a description that is more than its name", function()
    local bad = {}
    for _, it in ipairs(mi.items) do
      local d = it.description or ""
      if d == "" or d:lower() == it.name:lower() or d:lower() == it.name:lower():gsub("_", " ") then
        bad[#bad + 1] = it.item
      end
    end
    assert.same({}, bad)
    assert.equal(1165, #mi.items)
  end)

  it("every configuration item has a description", function()
    assert.equal(46, #mi.config_items)   -- 3001-3046
    for _, c in ipairs(mi.config_items) do
      assert.is_true(#(c.description or "") > #c.label, c.name)
    end
  end)

  it("no description repeats an 8-word run of the manual", function()
    local f = io.open(MANUAL, "r")
    if not f then pending("manual text not found at " .. MANUAL .. " (set MISH_MANUAL)") return end
    local w = words(f:read("a"))
    f:close()
    local runs = {}
    for i = 1, #w - 7 do runs[table.concat(w, " ", i, i + 7)] = true end
    local copied = {}
    local function check(id, text)
      local dw = words(text)
      for i = 1, #dw - 7 do
        if runs[table.concat(dw, " ", i, i + 7)] then copied[#copied + 1] = id .. ": " .. text break end
      end
    end
    for _, it in ipairs(mi.items) do check(it.item, it.description) end
    for _, c in ipairs(mi.config_items) do check(c.item, c.description) end
    assert.same({}, copied)
  end)

  it("mi.describe and help(item) show the description", function()
    local d = mi.item(21177).description
    assert.truthy(mi.describe(21177):find(d, 1, true))
    assert.truthy(mi.describe("JOB_FENCE"):find(mi.config_items[1].description, 1, true))
    local out = {}
    local saved = _G.print
    _G.print = function(...) out[#out + 1] = table.concat({ ... }, "\t") end
    local ok, err = pcall(sh.help, 21177)
    _G.print = saved
    assert.is_true(ok, err)
    assert.truthy(table.concat(out, "\n"):find(d, 1, true))
  end)
end)

describe("#16.7 mi.find with a plain word", function()
  -- Returns the set of item numbers of a find result.
  local function nums(list)
    local s = {}
    for _, it in ipairs(list) do s[it.item] = true end
    return s
  end

  it("matches names and descriptions as a case-insensitive substring", function()
    local f = nums(mi.find("idle"))
    assert.is_true(f[21177] and f[21165] and f[27006] and true)      -- by name
    assert.is_true(f[21292] and true)                               -- by description only
    assert.same(f, nums(mi.find("IDLE")))
    assert.is_true(#mi.find("page fault") > 20)
  end)

  it("keeps globs and Lua patterns on names only", function()
    assert.equal(2, #mi.find("^gmt_idle$"))
    assert.equal(2, #mi.find("gmt_idl*"))
    assert.equal(0, #mi.find("idle*"))
    assert.equal(1, #mi.find("idle", "processor") - #mi.find("gmt_idle", "processor"))
  end)

  it("a plain word matching nothing returns an empty list", function()
    assert.same({}, mi.find("no such words here"))
  end)
end)

describe("#16.7 completion listing", function()
  it("shows each item's description beside the candidate", function()
    local text = sh.listing({ "gmt_idle", "gmt_paused", "JOB_FENCE" })
    assert.truthy(text:find("gmt_idle%s+" .. mi.item("gmt_idle").description:gsub("%p", "%%%0")))
    assert.truthy(text:find(mi.config_items[1].description, 1, true))
  end)
  it("leaves lists without items to readline", function()
    assert.is_nil(sh.listing({ "mi.find", "mi.item" }))
  end)
  it("cuts long lists at 40 lines", function()
    local c = {}
    for _, it in ipairs(mi.find("gmc_stop_*", "global")) do c[#c + 1] = it.name end
    local text = sh.listing(c)
    local n = select(2, text:gsub("\n", ""))
    assert.equal(41, n)
    assert.truthy(text:find("and " .. (#c - 40) .. " more", 1, true))
  end)
end)
