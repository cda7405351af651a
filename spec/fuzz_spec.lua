-- fuzz_spec.lua: random calls with random arguments never crash the process.
local mi = require("mi")
local core = require("mi.core")

describe("random calls", function()
  it("survive a few thousand iterations", function()
    math.randomseed(12345)
    local sys = core.system({ workload = "oltp", seed = 3 })
    local sessions = { core.session(sys), core.session(sys) }
    local values = { 0, -1, 1, 2, 3, 7, -20006, 21176, 21164, 25047, 23048, 27006, 20001, 20020, 3001, 3015,
      2 ^ 31, -2 ^ 31, 1e300, "x", "", {}, { 21176, 0 }, { 25047 }, { 23050, 20020 }, { 3001 }, { 3015 },
      { "a" }, { 1.5 }, true, false, nil, function() end }
    local fns = {}
    for k, f in pairs(core) do if type(f) == "function" and k ~= "system" and k ~= "sleep" then fns[#fns + 1] = f end end
    local friendly = { "on", "off", "get", "config", "put", "time" }
    local S = mi.open({ system = sys })
    local domains = { "global", "process", "io", "processor", "x", 5 }
    for i = 1, 4000 do
      local args = {}
      local n = math.random(0, 6)
      if math.random() < 0.8 then args[1] = sessions[math.random(#sessions)] end
      for k = #args + 1, n do args[k] = values[math.random(#values)] end
      pcall(fns[math.random(#fns)], table.unpack(args, 1, n))
      if i % 3 == 0 then
        local m = friendly[math.random(#friendly)]
        pcall(S[m], S, domains[math.random(#domains)], values[math.random(#values)], values[math.random(#values)])
      end
      if i % 500 == 0 then sys:advance(100) end
      if i % 997 == 0 then sessions[1]:close(); sessions[1] = core.session(sys) end
    end
    for _, s in ipairs(sessions) do s:close() end
    S:close()
    assert.is_true(true)
  end)
end)
