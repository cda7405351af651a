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

-- true if a process whose command line holds text is running (read from /proc: no ps, which
-- can hang with the sanitizer's runtime preloaded into it).
local function running(text)
  local f = io.popen("ls /proc")
  local found = false
  for pid in f:lines() do
    local c = pid:match("^%d+$") and io.open("/proc/" .. pid .. "/cmdline")
    if c then
      local line = (c:read("a") or ""):gsub("%z", " ")
      c:close()
      if line:find(text, 1, true) then found = true end
    end
  end
  f:close()
  return found
end

-- A private TMPDIR for one run (where --record makes the shell's store file), and whether it
-- is empty again.
local function tmpdir()
  local d = tmp_path("tmpdir")
  os.execute("mkdir -p '" .. d .. "'")
  return d
end
local function empty(d)
  local f = io.popen("ls -A '" .. d .. "'")
  local out = f:read("a")
  f:close()
  os.execute("rmdir '" .. d .. "' 2>/dev/null")
  return out == ""
end

describe("#13 mish --record", function()
  it("records the shell's simulated system while a command runs, a sample a second and one at exit", function()
    local path = tmp_path("rec.mir")
    local td = tmpdir()
    local out, ok = run("TMPDIR=" .. td .. " " .. MISH .. " --record " .. path .. " -e 'mi.sleep(2.3) print(\"done\")'")
    assert.is_true(ok, out)
    assert.equal("done\n", out)
    local h, raw = verify(path)
    assert.equal("clean", h.state, raw)
    assert.is_true(h.samples >= 3, raw)   -- at the open, each second, and at exit
    assert.equal("attached:sim", h.source, raw)
    assert.is_false(running(path), "the recorder process ended with mish")
    assert.is_true(empty(td), "the shell's store file for the recorder is removed at exit")
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

  it("a command that ends at once still gets its first and its last sample, each time", function()
    -- mish runs its command once the recorder says it is sampling, not once it holds the file:
    -- a SIGINT inside the open lost the recorder before it took its last sample (7 samples in 6
    -- runs of 12 on a quiet machine with the lock as the signal)
    local path = tmp_path("rec5.mir")
    for k = 1, 6 do
      local out, ok = run(MISH .. " --record " .. path .. " -e ''")
      assert.is_true(ok, "run " .. k .. ": " .. out)
    end
    local h, raw = verify(path)
    assert.equal("clean", h.state, raw)
    assert.equal(6, h.segments, raw)
    assert.equal(12, h.samples, raw)
    os.remove(path)
  end)

  it("a mish ended by SIGTERM leaves a whole recording and no recorder behind", function()
    local path = tmp_path("rec3.mir")
    local td = tmpdir()
    local out = run("(TMPDIR=" .. td .. " " .. MISH .. " --record " .. path .. " -e 'mi.sleep(30)' & pid=$!; sleep 1.5; kill -TERM $pid; wait $pid; echo status $?)")
    assert.matches("status 143", out)
    local h, raw = verify(path)
    assert.equal("clean", h.state, raw)
    assert.is_true(h.samples >= 2, raw)
    assert.is_false(running(path), "the recorder process ended with mish")
    assert.is_true(empty(td), "the shell's store file for the recorder is removed")
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

  it("writes its readiness byte only to a pipe: a stray MISH_RECORD_READY leaves others' files alone", function()
    -- the variable is mish --record's readiness pipe; a descriptor on someone's file (or a
    -- terminal, or 0-2) is not one, and record.lua must not open it for writing (which truncated it)
    local victim, path = tmp_path("victim.txt"), tmp_path("ready.mir")
    local f = assert(io.open(victim, "w")) f:write("keep me\n") f:close()
    for _, v in ipairs({ "3", "1", "x", "99999999999" }) do
      local out, ok = run("MISH_RECORD_READY=" .. v .. " " .. MISH .. " scripts/record.lua -o " .. path ..
        " --count 1 --interval 0.01 --quiet 3>>" .. victim)
      assert.is_true(ok, out)
      assert.equal("", out, "nothing on stdout or stderr with MISH_RECORD_READY=" .. v)
      f = assert(io.open(victim)) local text = f:read("a") f:close()
      assert.equal("keep me\n", text, "the file behind descriptor 3 is untouched (MISH_RECORD_READY=" .. v .. ")")
      os.remove(path)
    end
    os.remove(victim)
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
