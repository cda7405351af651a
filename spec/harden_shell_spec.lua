-- harden_shell_spec.lua: issue 11 "Harden the seams", the shell's part: mish runs Lua source
-- only (#11.15) and a C program written from Appendix B compiles against mi.h (#11.14).
-- The prompt's Ctrl-C, history and glance's signals need a terminal: spec/examples.sh.

-- Runs a shell command; returns its exit code and what it wrote to stderr.
local function run(cmd)
  local err = os.tmpname()
  local ok, how, code = os.execute(cmd .. " > /dev/null 2> " .. err)
  local f = assert(io.open(err))
  local text = f:read("a")
  f:close()
  os.remove(err)
  if how == "signal" then code = 128 + code end
  return ok and 0 or code, text
end

-- Writes bytes to a fresh temporary file; returns its name.
local function tmpfile(bytes, suffix)
  local path = os.tmpname() .. (suffix or "")
  local f = assert(io.open(path, "wb"))
  f:write(bytes)
  f:close()
  return path
end

describe("#11.15 mish loads Lua source only", function()
  -- a real precompiled chunk (it would run under stock lua) and a corrupted one (can crash it)
  local dumped = string.dump(function() print("precompiled code ran") end)
  local corrupted = "\27Lua" .. dumped:sub(5, 40) .. string.rep("\255", 64)

  for name, bytes in pairs({ precompiled = dumped, corrupted = corrupted }) do
    it("a " .. name .. " script file is refused with a clear error and status 1", function()
      local path = tmpfile(bytes, ".luac")
      local code, err = run("./lua/mish " .. path)
      os.remove(path)
      assert.equal(1, code)
      assert.matches("attempt to load a binary chunk", err, 1, true)
      assert.matches(path, err, 1, true)
      assert.not_matches("precompiled code ran", err, 1, true)
    end)

    it("a " .. name .. " chunk on standard input (- or no script) is refused", function()
      local path = tmpfile(bytes)
      for _, cmd in ipairs({ "./lua/mish - < ", "./lua/mish < " }) do
        local code, err = run(cmd .. path)
        assert.equal(1, code, cmd)
        assert.matches("stdin: attempt to load a binary chunk", err, 1, true)
      end
      os.remove(path)
    end)
  end

  it("a binary chunk given to -e is refused", function()
    local code, err = run("./lua/mish -e \"$(printf '\\033Lua')\"")
    assert.equal(1, code)
    assert.matches("attempt to load a binary chunk", err, 1, true)
  end)

  it("a precompiled workload file is refused", function()
    local path = tmpfile(string.dump(function() return { name = "x" } end), ".lua")
    local code, err = run("./lua/mish --workload " .. path .. " -e 'print(1)'")
    os.remove(path)
    assert.equal(2, code)   -- a bad option value (#16.3)
    assert.matches("attempt to load a binary chunk", err, 1, true)
  end)

  it("Lua source still runs from a file, stdin and -e", function()
    local path = tmpfile("assert(... == 'x')\n")
    assert.equal(0, (run("./lua/mish " .. path .. " x")))
    assert.equal(0, (run("./lua/mish - x < " .. path)))
    assert.equal(0, (run("./lua/mish -e 'assert(1 + 1 == 2)'")))
    os.remove(path)
  end)
end)

describe("#11.16 mish history", function()
  it("lines piped into the prompt (mish -i < file) leave no history file", function()
    local home = os.tmpname()
    os.remove(home)
    os.execute("mkdir " .. home)
    assert.equal(0, (run("printf 'x = 1\\nprint(x)\\n' | HOME=" .. home .. " ./lua/mish -i")))
    local f = io.open(home .. "/.mish_history")
    if f then f:close() end
    os.execute("rm -rf " .. home)
    assert.is_nil(f)
  end)
end)

describe("#11.14 status_type has the manual's field names", function()
  local program = [[
#include "mi.h"
int main(void) {
  status_type st;
  st.all = 0;
  st.info = -25;
  st.subsys = MI_SUBSYS;
  return st.s.info == -25 && st.s.subsys == 516 && st.all != 0 ? 0 : 1;
}
]]
  local cc = os.getenv("CC") or "cc"
  for _, std in ipairs({ "c11", "c17", "c99" }) do
    it("a program using st.info and st.subsys compiles with -std=" .. std .. " -pedantic -Werror and runs", function()
      local src = tmpfile(program, ".c")
      local exe = os.tmpname()
      local code, err = run(cc .. " -std=" .. std .. " -pedantic -Wall -Wextra -Werror -Icore " .. src .. " -o " .. exe)
      assert.equal(0, code, err)
      assert.equal(0, (run(exe)))
      os.remove(src)
      os.remove(exe)
    end)
  end
end)
