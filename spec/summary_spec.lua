-- summary_spec.lua: #28.7 — spec/summary.lua, the count `make test` ends with: a skipped check is
-- counted skipped, never passed; a crash or a part that did not finish is a failure.
local run, tmp_path = H.run, H.tmp_path

-- Writes text to a fresh temporary file; returns its path.
local function file(text)
  local p = tmp_path("out")
  local f = assert(io.open(p, "w"))
  f:write(text)
  f:close()
  return p
end

-- Runs spec/summary.lua with the arguments; returns its output and whether it exited 0.
local function summary(...)
  local out, ok = run("lua5.4 spec/summary.lua " .. table.concat({ ... }, " "))
  return out, ok == true
end

local TAP = "ok 1 - a\nok 2 - # SKIP spec/x_spec.lua:3: gnuplot is not installed\nnot ok 3 - b\n# Failure message: x\nok 4 - c\n1..4\n"

describe("#28.7 spec/summary.lua", function()
  it("counts busted's pending specs as skipped, not passed; a failure makes it exit non-zero", function()
    local out, ok = summary("part busted", file(TAP))
    assert.equal("Lua specs: 2 passed, 1 failed, 1 skipped\n", out)
    assert.is_false(ok)
    out, ok = summary("part busted", file("ok 1 - a\nok 2 - # SKIP no python3\n1..2\n"))
    assert.equal("Lua specs: 1 passed, 0 failed, 1 skipped\n", out)
    assert.is_true(ok)
  end)

  it("says nothing of skips when none were skipped", function()
    local out, ok = summary("part busted", file("ok 1 - a\nok 2 - b\n1..2\n"))
    assert.equal("Lua specs: 2 passed, 0 failed\n", out)
    assert.is_true(ok)
  end)

  it("counts a busted run without its plan, or short of it, as failed", function()
    assert.equal("Lua specs: 1 passed, 1 failed\n", (summary("part busted", file("ok 1 - a\n"))))
    assert.equal("Lua specs: 1 passed, 2 failed\n", (summary("part busted", file("ok 1 - a\n1..3\n"))))
  end)

  it("checks each file's own plan in a parallel run's output (spec/busted_par.sh's '# file:' parts)", function()
    local two = "# file: spec/a_spec.lua\nok 1 - a\nok 2 - b\n1..2\n# file: spec/b_spec.lua\nok 1 - c\n1..1\n"
    assert.equal("Lua specs: 3 passed, 0 failed\n", (summary("part busted", file(two))))
    -- a file whose busted died before its plan is one failure, though the other file's plan holds
    local died = "# file: spec/a_spec.lua\nok 1 - a\n# file: spec/b_spec.lua\nok 1 - c\n1..1\n"
    local out, ok = summary("part busted", file(died))
    assert.equal("Lua specs: 2 passed, 1 failed\n", out)
    assert.is_false(ok)
    -- a file short of its plan, and a file with no output at all
    assert.equal("Lua specs: 1 passed, 3 failed\n",
      (summary("part busted", file("# file: spec/a_spec.lua\nok 1 - a\n1..3\n# file: spec/b_spec.lua\n"))))
  end)

  it("takes test_core's count; a crash (exit not 0, no failure counted) is one failure", function()
    local c = file("C core: 7 passed, 0 failed\n7 passed, 0 failed\n")
    assert.equal("C core: 7 passed, 0 failed\n", (summary("part c", c, 0)))
    assert.equal("C core: 7 passed, 1 failed\n", (summary("part c", c, 139)))
    assert.equal("C core: 0 passed, 2 failed\n", (summary("part c", file("FAIL a\nFAIL b\n"), 134)))
    assert.equal("C core: 3 passed, 0 failed, 2 skipped\n", (summary("part c", file("3 passed, 0 failed, 2 skipped\n"), 0)))
  end)

  it("counts the skip lines of examples.sh and fuzz/run.sh; a script without its count line died", function()
    local ex = file("ok - a\n# skip: gnuplot is not installed\nnot ok - b\n#   why\nok - c\nexamples: 2 passed, 1 failed, 1 skipped\n")
    assert.equal("examples: 2 passed, 1 failed, 1 skipped\n", (summary("part examples", ex)))
    assert.equal("examples: 1 passed, 1 failed\n", (summary("part examples", file("ok - a\n"))))
    local fz = file("# skip fuzz aif: clang not installed\n# skip fuzz proc: clang not installed\nfuzz: 0 passed, 0 failed, 2 skipped\n")
    local out, ok = summary("part fuzz", fz)
    assert.equal("fuzz: 0 passed, 0 failed, 2 skipped\n", out)
    assert.is_true(ok)
  end)

  it("ends with the total of the four parts as its last line", function()
    local c = file("5 passed, 0 failed\n")
    local ex = file("ok - a\n# skip: no pseudo-terminal\nexamples: 1 passed, 0 failed, 1 skipped\n")
    local fz = file("ok 1 - fuzz aif\nfuzz: 1 passed, 0 failed\n")
    local out, ok = summary("total", c, 0, file(TAP), ex, fz)
    assert.equal("9 passed, 1 failed, 2 skipped\n", out)
    assert.is_false(ok)
    out, ok = summary("total", c, 0, file("ok 1 - a\n1..1\n"), file("ok - a\nexamples: 1 passed, 0 failed\n"), fz)
    assert.equal("8 passed, 0 failed\n", out)
    assert.is_true(ok)
  end)

  it("refuses a call it does not know, exit 2", function()
    local out, ok = summary("part nosuch", file(""))
    assert.is_false(ok)
    assert.truthy(out:find("unknown part 'nosuch'", 1, true), out)
    out = summary("")
    assert.truthy(out:find("^usage: "), out)
  end)
end)
