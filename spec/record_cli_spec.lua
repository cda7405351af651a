-- record_cli_spec.lua: mish --record FILE records the shell's system while mish runs
-- (scripts/record.lua in a process of its own, attached to the shell's store), with a last
-- sample at exit; bad uses are one line and exit status 2 (options) or 1 (the recorder).
local tmp_path, run = H.tmp_path, H.run   -- spec/helpers.lua
local MISH = "./lua/mish"

-- verify.lua's JSON fields of a recording (a flat table of strings and numbers).
local function verify(path)
  local out = run(MISH .. " scripts/verify.lua " .. path .. " --json")
  local t = {}
  for k, v in out:gmatch('"([%w_]+)":("?[^,"}]*"?)') do t[k] = tonumber(v) or v:gsub('"', "") end
  return t, out
end

-- 1 if a process whose command line holds text is running.
local function running(text)
  local f = io.popen("ps -eo args")
  local found = false
  for line in f:lines() do if line:find(text, 1, true) and not line:find("ps -eo", 1, true) then found = true end end
  f:close()
  return found
end

-- The shell store files --record made that are still there.
local function stores()
  local f = io.popen("ls " .. (os.getenv("TMPDIR") or "/tmp") .. " | grep -c '^mish-record-.*[.]store$'")
  local n = f:read("a")
  f:close()
  return tonumber(n)
end

describe("#13 mish --record", function()
  it("records the shell's simulated system while a command runs, a sample a second and one at exit", function()
    local path = tmp_path("rec.mir")
    local stores_before = stores()
    local out, ok = run(MISH .. " --record " .. path .. " -e 'mi.sleep(2.3) print(\"done\")'")
    assert.is_true(ok, out)
    assert.equal("done\n", out)
    local h, raw = verify(path)
    assert.equal("clean", h.state, raw)
    assert.is_true(h.samples >= 3, raw)   -- at the open, each second, and at exit
    assert.equal("attached:sim", h.source, raw)
    assert.is_false(running(path), "the recorder process ended with mish")
    assert.equal(stores_before, stores(), "the shell's store file for the recorder is removed at exit")
    -- the recording replays: the simulated processes are there
    out, ok = run(MISH .. " --replay " .. path .. " -e 'print(s:info().processes > 10)'")
    assert.is_true(ok, out)
    assert.equal("true\n", out)
    os.remove(path)
  end)

  it("--record-interval sets the pace; an existing recording is appended to", function()
    local path = tmp_path("rec2.mir")
    local out, ok = run(MISH .. " --record " .. path .. " --record-interval 0.2 -e 'mi.sleep(1.1)'")
    assert.is_true(ok, out)
    local h1 = verify(path)
    assert.is_true(h1.samples >= 5, "samples " .. tostring(h1.samples))
    out, ok = run(MISH .. " --record " .. path .. " -e 'mi.sleep(0.1)'")
    assert.is_true(ok, out)
    local h2, raw = verify(path)
    assert.equal("clean", h2.state, raw)
    assert.equal(2, h2.segments, raw)
    assert.is_true(h2.samples >= h1.samples + 2, raw)
    os.remove(path)
  end)

  it("a mish ended by SIGTERM leaves a whole recording and no recorder behind", function()
    local path = tmp_path("rec3.mir")
    local out = run("(" .. MISH .. " --record " .. path .. " -e 'mi.sleep(30)' & pid=$!; sleep 1.5; kill -TERM $pid; wait $pid; echo status $?)")
    assert.matches("status 143", out)
    local h, raw = verify(path)
    assert.equal("clean", h.state, raw)
    assert.is_true(h.samples >= 2, raw)
    assert.is_false(running(path), "the recorder process ended with mish")
    os.remove(path)
  end)

  it("records a store another mish shares (--attach)", function()
    local store, path = tmp_path("store"), tmp_path("rec4.mir")
    local out = run("(" .. MISH .. " --share " .. store .. " -e 'mi.sleep(4)' & sleep 1; " .. MISH .. " --attach " .. store ..
      " --record " .. path .. " -e 'mi.sleep(1.1)'; echo status $?; wait)")
    assert.matches("status 0", out)
    local h, raw = verify(path)
    assert.equal("clean", h.state, raw)
    assert.equal("attached:sim", h.source, raw)
    os.remove(path)
  end)

  it("refuses what cannot work, saying why", function()
    local out, ok = run(MISH .. " --record /nonexistent-dir/x.mir -e 'print(1)'")
    assert.is_falsy(ok)
    assert.matches("cannot open '/nonexistent%-dir/x.mir'", out)
    assert.matches("the recorder stopped", out)
    assert.is_nil(out:match("\n1\n"), "the command did not run")
    out, ok = run(MISH .. " --record-interval 2 -e ''")
    assert.is_falsy(ok)
    assert.matches("%-%-record%-interval goes with %-%-record FILE", out)
    out, ok = run(MISH .. " --record " .. tmp_path("x.mir") .. " --record-interval 0 -e ''")
    assert.is_falsy(ok)
    assert.matches("the interval is seconds, 0.01%-3600", out)
    local rec = tmp_path("r.mir")
    run(MISH .. " --record " .. rec .. " -e ''")
    out, ok = run(MISH .. " --replay " .. rec .. " --record " .. tmp_path("y.mir") .. " -e ''")
    assert.is_falsy(ok)
    assert.matches("do not go together", out)
    os.remove(rec)
  end)
end)
