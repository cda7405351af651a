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

-- Calls every function of tbl (but those in skip) with each BAD argument list (after self, if
-- given); returns the internal errors met, labelled prefix .. name, and how many were swept.
local function sweep(tbl, prefix, skip, self)
  local bad, n = {}, 0
  for name, f in pairs(tbl) do
    if type(f) == "function" and not (skip and skip[name]) then
      n = n + 1
      for _, a in ipairs(BAD) do
        local e
        if self ~= nil then e = internal(f, self, table.unpack(a, 1, 3)) else e = internal(f, table.unpack(a, 1, 4)) end
        if e then bad[#bad + 1] = prefix .. name .. ": " .. e; break end
      end
    end
  end
  return bad, n
end

describe("a wrong Lua argument is never an internal error", function()
  it("every function of mi", function()
    assert.same({}, (sweep(mi, "mi.", SKIP)))
  end)
  it("every call of mi.literal (the manual's calls one to one)", function()
    local bad, n = sweep(mi.literal, "mi.literal.")
    assert.is_true(n >= 19, "calls swept: " .. n)
    assert.same({}, bad)
    local ok, err = pcall(function() local r = mi.literal.MIGLOBGET(mi.literal.session(), 5, 1); return r end)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #2 to 'MIGLOBGET' (array of item numbers ending in 0 expected, got number)", 1, true), err)
    assert.equal(debug.getinfo(1, "S").short_src, err:match("^(.-):%d+:"), "raised at the caller's line: " .. err)
  end)
  it("every function of mi.cli and mi.recording (the scripts' libraries)", function()
    -- recording.open and .window end the program with a message by design (script helpers)
    local skip = { open = true, window = true }
    local bad1, n1 = sweep(require("mi.cli"), "cli.", skip)
    local bad2, n2 = sweep(require("mi.recording"), "recording.", skip)
    assert.is_true(n1 + n2 >= 15, "functions swept: " .. n1 + n2)
    assert.same({}, bad1)
    assert.same({}, bad2)
  end)
  it("every method of a session", function()
    local s = mi.open({ system = "sim", cpus = 1 })
    local bad, n = sweep(getmetatable(s).__index, "s:", SKIP, s)
    assert.is_true(n >= 10, "methods swept: " .. n)
    assert.same({}, bad)
    -- called with a dot (s.get("global")) or on something else: the method says so
    local dot = sweep(getmetatable(s).__index, "s.", SKIP)
    assert.same({}, dot)
    local ok, err = pcall(function() local r = s.get("global"); return r end)
    assert.is_false(ok)
    assert.truthy(err:find("bad self to 'get' (a session expected, got string): call it as s:get(...), with a colon", 1, true), err)
    ok, err = pcall(function() local r = s.config(); return r end)
    assert.truthy(err:find("bad self to 'config' (a session expected, got nil)", 1, true), err)
    assert.equal(debug.getinfo(1, "S").short_src, err:match("^(.-):%d+:"), "raised at the caller's line: " .. err)
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
    { function() local s = mi.open({ system = "sim", cpus = 1 }); local r = s:put({ JOB_FENCE = "x" }); return r end,
      "value: item 3001 (JOB_FENCE) needs a 32-bit integer" },
    { function() local s = mi.open({ system = "sim", cpus = 1 }); local r = s:put({ JOB_FENCE = 7 }, { expect = { JOB_FENCE = {} } }); return r end,
      "expected value: item 3001 (JOB_FENCE) needs a 32-bit integer" },
    { function() local s = mi.open({ system = "sim", cpus = 1 }); local r = s:config("JOB_FENCE", 1); return r end,
      "bad argument to 'config': no configuration item 1 (3001-3046" },
    { function() local s = mi.open({ system = "sim", cpus = 1 }); local r = s:config("nope"); return r end,
      "no configuration item 'nope'" },
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

-- A Status printed at the prompt or in a message names the items it blames, counted in the
-- caller's list (not the query's, which puts pid, state ... first).
describe("a status names the items that failed", function()
  local function sess() return mi.open({ system = "sim", cpus = 1 }) end
  it("an ON or GET with a bad item: the item, its number and its status", function()
    local s = sess()
    local st = s:on("global", { 21177, 99999 })
    assert.equal(2, st.code)
    assert.equal("2 ITEM_ERROR: item 2 (1-based) is the last that failed [item 2 (99999): -20006 BAD_ITEM: " ..
      "unknown item number, or an item of another kind of counter]", tostring(st))
    local st2 = s:on("process", { "pmt_process_time", 99999, "pmc_disc_read" })
    assert.truthy(tostring(st2):find("item 2 (99999): -20006", 1, true), tostring(st2))
    assert.falsy(tostring(st2):find("item 1 ", 1, true), tostring(st2))
  end)
  it("a process, I/O or read-active GET counts the caller's items, not the fixed ones before them", function()
    local s = sess()
    assert(s:on("process", { 25047, 99999 }))
    local recs, st = s:get("process", { 25047, 99999 })
    assert.truthy(#recs > 0)
    assert.equal(2, st.code)
    assert.same({ 0, -20006 }, st.items)
    assert.truthy(tostring(st):find("[item 2 (99999): -20006", 1, true), tostring(st))
    local _, st2 = s:get("process", { 99999, 25047 })
    assert.equal(1, st2.code)
    assert.same({ -20006, 0 }, st2.items)
    local _, _, st3 = s:read_active("process", { 25047, 99999 })
    assert.equal(2, st3.code)
    assert.same({ 0, -20006 }, st3.items)
    assert(s:on("io", { 23009, 99999 }))
    local _, st4 = s:get("io", { 23009, 99999 })
    assert.equal(2, st4.code)
    assert.same({ 0, -20006 }, st4.items)
  end)
  it("a failed ON's item statuses are zero, never what the call's buffer held", function()
    local s = sess()
    assert(s:on("global", { 21177 }))
    for _ = 1, 3 do
      local r, st = s:on("global", { 21177, 21176, 21178 })
      assert.is_nil(r)
      assert.equal(-20001, st.code)
      assert.same({ 0, 0, 0 }, st.items)
      assert.equal("-20001 ALREADY_ENABLED: counters already enabled by this user (or a different set was asked for)", tostring(st))
    end
  end)
  it("a PUT names each item that failed and why, a read-only item as such, a failed verification", function()
    local s = sess()
    local none, st = s:put({ JOB_FENCE = 99, JOB_COUNT = -1 })
    assert.is_nil(none)
    assert.equal(2, st.code)
    assert.truthy(tostring(st):find("JOB_COUNT: -20006 BAD_ITEM: JOB_COUNT is read by AIFSCGET but never written", 1, true), tostring(st))
    assert.truthy(tostring(st):find("JOB_FENCE: -3005 JOB_FENCE_RANGE", 1, true), tostring(st))
    local fence = s:config("JOB_FENCE").JOB_FENCE
    local r, vst = s:put({ JOB_FENCE = 3 }, { expect = { JOB_FENCE = fence + 1 } })
    assert.is_nil(r)
    assert.truthy(tostring(vst):find("[expect JOB_FENCE: -7 ", 1, true), tostring(vst))
    assert.equal(fence, s:config("JOB_FENCE").JOB_FENCE)
    assert.equal("ok", tostring((s:put({ JOB_FENCE = fence }))))
  end)
end)
