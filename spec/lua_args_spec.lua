-- lua_args_spec.lua: a wrong Lua argument is a clear error naming the argument, raised at the
-- caller's line: never an internal "attempt to ..." from inside mi (brief: bad input). A sweep
-- calls every function of mi and every method of a session with wrong arguments, then the
-- messages of a few are checked word for word.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = "lua/?.so;" .. package.cpath
local mi = require("mi")

-- arguments no function of mi takes in that place
local BAD = { {}, { 42 }, { true }, { {} }, { "zz" }, { function() end },
  { "process", 42 }, { "process", {} }, { "global", "gmt_idle", 42 }, { "global", { "zz" } }, { 1.5, 1.5 } }
-- these wait, serve or loop for as long as they are told: not called with arbitrary arguments
local SKIP = { serve = true, watch = true, repl = true, sleep = true, advance = true, close = true, record = true,
  __close = true, replay = true }

local function internal(f, ...)
  local ok, err = pcall(f, ...)
  if not ok and tostring(err):find("attempt to", 1, true) then return tostring(err) end
end

describe("a wrong Lua argument is never an internal error", function()
  it("every function of mi", function()
    local bad = {}
    for name, f in pairs(mi) do
      if type(f) == "function" and not SKIP[name] then
        for _, a in ipairs(BAD) do
          local e = internal(f, table.unpack(a, 1, 3))
          if e then bad[#bad + 1] = "mi." .. name .. ": " .. e; break end
        end
      end
    end
    assert.same({}, bad)
  end)
  it("every method of a session", function()
    local s = mi.open({ system = "sim", cpus = 1 })
    local bad, n = {}, 0
    for name, f in pairs(getmetatable(s).__index) do
      if type(f) == "function" and not SKIP[name] then
        n = n + 1
        for _, a in ipairs(BAD) do
          local e = internal(f, s, table.unpack(a, 1, 3))
          if e then bad[#bad + 1] = "s:" .. name .. ": " .. e; break end
        end
      end
    end
    assert.is_true(n >= 10, "methods swept: " .. n)
    assert.same({}, bad)
  end)
end)

describe("the message names the function and the argument, at the caller's line", function()
  local here = debug.getinfo(1, "S").short_src
  local cases = {
    { function() local r = mi.find(); return r end, "bad argument #1 to 'find' (name, word or pattern expected, got nil)" },
    { function() local r = mi.find("idle", "disk"); return r end, "bad argument #2 to 'find'" },
    { function() local r = mi.delta({}, 3); return r end, "bad argument #2 to 'delta' (record (as #1) expected, got 3)" },
    { function() local r = mi.rate(1); return r end, "bad argument #2 to 'rate' (milliseconds expected, got nil)" },
    { function() local r = mi.pct("a", 2); return r end, "bad argument #1 to 'pct'" },
    { function() local r = mi.label(nil); return r end, "bad argument #1 to 'label'" },
    { function() local r = mi.Status("ok"); return r end, "bad argument #1 to 'Status'" },
    { function() local r = mi.set_default(42); return r end, "bad argument #1 to 'set_default'" },
    { function() local r = mi.record_items(false); return r end, "bad argument #1 to 'record_items'" },
    { function() local s = mi.open({ system = "sim", cpus = 1 }); local r = s:on("global", "gmt_idle", 42); return r end,
      "bad argument #3 to 'on' (options table or nil expected, got 42)" },
    { function() local s = mi.open({ system = "sim", cpus = 1 }); local r = s:get("global", "gmt_idle", "x"); return r end,
      "bad argument #3 to 'get'" },
    { function() local s = mi.open({ system = "sim", cpus = 1 }); local r = s:sample(1, 2, nil); return r end,
      "bad argument #3 to 'sample'" },
    { function() local s = mi.open({ system = "sim", cpus = 1 }); local r = s:read_active("process", nil, 7); return r end,
      "bad argument #3 to 'read_active'" },
  }
  for i, c in ipairs(cases) do
    it(c[2], function()
      local ok, err = pcall(function() local r = c[1](); return r end)
      assert.is_false(ok)
      assert.truthy(tostring(err):find(c[2], 1, true), err)
      assert.equal(here, tostring(err):match("^(.-):%d+:"), "raised at the caller's line: " .. tostring(err))
    end)
  end
end)
