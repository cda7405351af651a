-- startup_bytecode_spec.lua: #17.3, mish loads a module from the bytecode `make` compiled beside
-- its source (NAME.luac) only when that file is at least as new as the source; an edited
-- source, a damaged or missing bytecode file, and other modules load from source as before.

local function run(cmd)
  local out = os.tmpname()
  local ok = os.execute("(" .. cmd .. ") > " .. out .. " 2>&1")
  local h = assert(io.open(out)); local t = h:read("a"); h:close(); os.remove(out)
  return ok, t
end

local dir
local function write(name, text)
  local f = assert(io.open(dir .. "/" .. name, "wb")); f:write(text); f:close()
end
-- what `make` does: lua/bytecode.lua SRC OUT, here from a source that says "bytecode"
local function compile()
  write("mx_bc.lua", 'return { from = "bytecode" }\n')
  assert(run(string.format("lua5.4 lua/bytecode.lua %s/mx_bc.lua %s/mx.luac", dir, dir)))
end
-- mish requiring mx from dir: what it printed
local function from()
  local ok, out = run(string.format("./lua/mish -e 'package.path = %q .. \"/?.lua;\" .. package.path; print(require(\"mx\").from)'", dir))
  assert.is_true(ok, out)
  return out:match("^(%S+)")
end

describe("#17.3 mish loads a module's bytecode when it is as new as the source", function()
  before_each(function()
    dir = os.tmpname(); os.remove(dir); assert(os.execute("mkdir " .. dir))
    write("mx.lua", 'return { from = "source" }\n')
  end)
  after_each(function() os.execute("rm -rf " .. dir) end)

  it("no bytecode beside the source: the source", function() assert.equal("source", from()) end)
  it("bytecode newer than the source: the bytecode", function()
    compile(); os.execute("touch -d 2020-01-01 " .. dir .. "/mx.lua")
    assert.equal("bytecode", from())
  end)
  it("the source edited after the bytecode was made: the source", function()
    compile(); os.execute("touch -d 2020-01-01 " .. dir .. "/mx.luac")
    assert.equal("source", from())
  end)
  it("bytecode that is not bytecode (or another Lua's): the source", function()
    write("mx.luac", "garbage, not a Lua chunk\n"); os.execute("touch -d 2020-01-01 " .. dir .. "/mx.lua")
    assert.equal("source", from())
  end)
  it("a module nobody has: Lua's own 'not found' message, unchanged", function()
    local ok, out = run("./lua/mish -e 'require(\"no_such_module_mx\")'")
    assert.is_false(not not ok)
    assert.truthy(out:find("module 'no_such_module_mx' not found", 1, true), out)
    assert.truthy(out:find("no file", 1, true), out)
    assert.falsy(out:find("\n\t\n", 1, true), "no empty line in the message: " .. out)
  end)
  it("the shell's own modules have bytecode that mish loads (make built it)", function()
    for _, m in ipairs({ "init", "shell", "cli", "recording" }) do
      local f = io.open("lua/mi/" .. m .. ".luac", "rb")
      assert.truthy(f, "lua/mi/" .. m .. ".luac"); f:close()
    end
    local ok, out = run("./lua/mish -e 'print(mi.describe(21177) ~= nil)'")
    assert.is_true(ok, out); assert.equal("true\n", out)
  end)
end)

-- #28 (start-up within 5% of 079cae2): mi.records and mi.calls are read at their first use.
describe("#28 mi loads its recording and literal parts at their first use", function()
  local function mish(code)
    local ok, out = run(string.format("./lua/mish -e %q", code))
    assert.is_true(ok, out)
    return out
  end
  it("start-up reads neither", function()
    assert.equal("nil\tnil\n", mish('print(package.loaded["mi.records"], package.loaded["mi.calls"])'))
  end)
  it("a stub of mi.records loads it and answers as the real function (its errors name it)", function()
    local out = mish([[local mi = require("mi"); local f = mi.record_items
      print(#mi.record_items({"global:gmt_idle"}), package.loaded["mi.records"] ~= nil, mi.record_items ~= f)
      print(#f({"global:gmt_idle", "global:gmt_paused"}))
      print(select(2, pcall(mi.health_text, 5)))]])
    assert.equal("1\ttrue\ttrue\n2\n", out:sub(1, 14), out)
    assert.truthy(out:find("bad argument #1 to 'health_text'", 1, true), out)
  end)
  it("mi.literal loads mi.calls when first asked, pairs over it included", function()
    local out = mish([[local mi = require("mi"); local n = 0
      for k in pairs(mi.literal) do n = n + 1 end
      print(n > 15, package.loaded["mi.calls"] ~= nil, type(mi.literal.MIGLOBGET), mi.REPLAY_END ~= nil, #mi.RECORD_ITEMS > 3)]])
    assert.equal("true\ttrue\tfunction\ttrue\ttrue\n", out)
  end)
  it("help(mi) lists the recording functions before they are loaded", function()
    local out = mish('help(mi)')
    assert.truthy(out:find("mi.record_items", 1, true) and out:find("mi.replay", 1, true), out)
  end)
end)
