-- harden_cli_spec.lua: issue 16 "a newcomer's first hour", the shell's and the scripts' part:
-- options and their errors (#16.3), errors that name what the user typed (#16.4), the Lua
-- idioms of the friendly API (#16.5), the prompt's help and completion (#16.6, #16.8),
-- mish -l (#16.9) and what the scripts print (#16.10, #16.11). Terminal checks (glance at
-- 60x15, progress) are in spec/examples.sh.

-- Runs a shell command; returns its exit code, stdout and stderr.
local function run(cmd)
  local out, err = os.tmpname(), os.tmpname()
  local ok, how, code = os.execute("(" .. cmd .. ") > " .. out .. " 2> " .. err)
  local function slurp(f) local h = assert(io.open(f)); local t = h:read("a"); h:close(); os.remove(f); return t end
  if how == "signal" then code = 128 + code end
  return ok and 0 or code, slurp(out), slurp(err)
end

-- Runs mish with an environment prefix and arguments.
local function mish(env, args) return run(string.format("%s ./lua/mish %s", env or "", args)) end

describe("#16.3 every bad option or variable is an error naming it, exit 2", function()
  local cases = {
    { "", "--cpus 9", "'--cpus 9'" }, { "", "--cpus 0", "'--cpus 0'" }, { "", "--cpus -1", "'--cpus -1'" },
    { "", "--cpus abc", "'--cpus abc'" }, { "", "--cpus 2.5", "'--cpus 2.5'" },
    { "", "--workload", "--workload needs a value" }, { "", "--workload -e 1", "--workload needs a value" },
    { "", "--system", "--system needs a value" }, { "", "-e", "-e needs" },
    { "", "--system host --workload batch", "'--system host' and '--workload batch'" },
    { "", "--system host --cpus 2", "'--system host' and '--cpus 2'" },
    { "", "--system sim:batch --workload idle", "'--system sim:batch' and '--workload idle'" },
    { "", "--system nosuch", "'--system nosuch'" }, { "", "--workload nosuch", "'--workload nosuch'" },
    { "", "--proc /tmp", "'--proc /tmp'" }, { "", "--bogus", "unknown option '--bogus'" },
    { "", "--share /tmp/x --attach /tmp/y", "'--share /tmp/x' and '--attach /tmp/y'" },
    { "MISH_SYSTEM=nosuch", "", "'MISH_SYSTEM=nosuch'" }, { "MISH_CPUS=abc", "", "'MISH_CPUS=abc'" },
    { "MISH_CPUS=", "", "MISH_CPUS is empty" },
    { "MISH_SYSTEM=host MISH_WORKLOAD=batch", "", "'MISH_SYSTEM=host' and 'MISH_WORKLOAD=batch'" },
  }
  for _, c in ipairs(cases) do
    it(("%s mish %s: exit 2, one line naming it"):format(c[1], c[2]), function()
      local rc, out, err = mish(c[1], c[2] .. " -e 'print(1)'")
      if c[2] == "-e" then rc, out, err = mish(c[1], "-e") end
      assert.equal(2, rc, err)
      assert.equal("", out)
      assert.truthy(err:find(c[3], 1, true), err)
      assert.equal(1, select(2, err:gsub("\n", "")), err)
      assert.falsy(err:find("traceback", 1, true))
    end)
  end
  it("command-line options override the environment, and a conflicting variable gives way", function()
    for env, args in pairs({ ["MISH_SYSTEM=host"] = "--system sim --workload batch", ["MISH_SYSTEM=host "] = "--workload batch",
                             ["MISH_WORKLOAD=idle"] = "--workload batch", ["MISH_CPUS=4"] = "--cpus 3 --workload batch" }) do
      local rc, out, err = mish(env, args .. " -e 'print(s:info().source, s:info().workload.name, s:info().cpus)'")
      assert.equal(0, rc, err)
      assert.truthy(out:match("^sim\tbatch\t%d\n$"), out)
      if args:find("cpus 3") then assert.equal("sim\tbatch\t3\n", out) end
    end
    local rc, out = mish("MISH_WORKLOAD=batch MISH_CPUS=4", "--system host -e 'print(s:info().source)'")
    assert.equal(0, rc)
    assert.equal("host\n", out)
    rc, out = mish("", "--cpus=3 -e 'print(s:info().cpus)'")
    assert.equal(0, rc)
    assert.equal("3\n", out)
  end)
end)
