-- shell_spec.lua: what the mish prompt shows and completes (mi.shell).
local sh = require("mi.shell")

describe("mi.shell", function()
  it("help(mi) has a line for every function of mi and every method of a session", function()
    local mi = require("mi")
    local missing = {}
    for k, v in pairs(mi) do
      if type(v) == "function" and not sh.DOCS["mi." .. k] then missing[#missing + 1] = "mi." .. k end
    end
    local s = mi.open({ system = mi.system({ workload = "idle" }) })
    for k, v in pairs(getmetatable(s).__index) do
      if type(v) == "function" and not k:find("^__") and not sh.DOCS["s:" .. k] then missing[#missing + 1] = "s:" .. k end
    end
    s:close()
    table.sort(missing)
    assert.same({}, missing)
    for k, line in pairs(sh.DOCS) do assert.truthy(line:find(k, 1, true) == 1, k .. ": " .. line) end
  end)

  it("prints values the way they are typed", function()
    assert.equal('"a\\"b"', sh.pretty('a"b'))
    assert.equal("42", sh.pretty(42))
    assert.equal("{1, 2, 3}", sh.pretty({ 1, 2, 3 }))
    assert.equal("{\n  a = 1,\n  b = {2}\n}", sh.pretty({ b = { 2 }, a = 1 }))   -- nested: one key a line
    -- values come by name and by number: a counter is shown once, by name
    assert.equal("{gmt_idle = 5}", sh.pretty({ gmt_idle = 5, [21177] = 5 }))
    assert.equal("{[21177] = 5}", sh.pretty({ [21177] = 5 }))
  end)

  it("survives cycles, long tables and stray extra arguments", function()
    local t = { name = "loop" }
    t.self = t
    assert.matches("<cycle>", sh.pretty(t))
    local long = {}
    for i = 1, 60 do long["item_" .. i] = i end
    assert.matches("\n", sh.pretty(long), 1, true)
    -- s:get returns values and a Status: pretty(s:get(...)) must not trip on the second value
    assert.equal("{1}", sh.pretty({ 1 }, { ok = true }))
    assert.equal("{1}", sh.pretty({ 1 }, 7, "x"))
  end)

  it("shows a Status in words", function()
    local s = H.session()
    local _, st = s:get("global", { "gmt_idle" })
    assert.matches("NOT_ENABLED", sh.pretty(st))
    s:close()
  end)

  it("completes Lua names, methods and counter names", function()
    local env = { mi = require("mi"), s = H.session() }
    assert.same({ "mi" }, sh.complete("m", env))
    assert.is_true(#sh.complete("gmt_idl", env) >= 1)
    assert.equal("gmt_idle", sh.complete("gmt_idl", env)[1])
    local methods = sh.complete("s:o", env)
    assert.is_true(#methods >= 1)
    for _, m in ipairs(methods) do assert.matches("^s:o", m) end
    assert.same({ 'x = "JOB_FENCE' }, (function()
      local r = {}
      for _, c in ipairs(sh.complete('x = "JOB_FEN', env)) do r[#r + 1] = c end
      return r
    end)())
    env.s:close()
  end)
end)
