-- record_spec.lua: recordings (#13) — record, replay any script unchanged, verify, summary,
-- export; the file's state is always said. Scripts run live on a deterministic virtual-time
-- simulator while being recorded (spec/record_live.lua) and again on the replay.
local MISH = "./lua/mish"

local run = H.run_split   -- spec/helpers.lua: stdout, stderr, exit status

-- Copies the first n bytes of src to dst, with byte at (1-based) `flip` xored by 0x10 if given.
local function cut(src, dst, n, flip)
  local f = io.open(src, "rb") local b = f:read("a") f:close()
  if flip then b = b:sub(1, flip - 1) .. string.char(b:byte(flip) ~ 0x10) .. b:sub(flip + 1) end
  f = io.open(dst, "wb") f:write(b:sub(1, n or #b)) f:close()
  return #b
end

describe("#13 recordings", function()
  local file = os.tmpname() .. ".mir"

  for _, script in ipairs({ "scripts/top.lua --count 3 --csv", "scripts/cpu.lua --count 3 --csv",
                            "scripts/disk.lua --count 3 --csv", "examples/testmiaif1.lua 1 3",
                            "scripts/top.lua --count 2 --interval 2 --json" }) do
    it("#13: " .. script .. " prints the same rows live and replayed", function()
      local live, e1, c1 = run("lua5.4 spec/record_live.lua " .. file .. " " .. script)
      assert.equal(0, c1, e1)
      local rep, e2, c2 = run(MISH .. " --replay " .. file .. " " .. script)
      assert.equal(0, c2, e2)
      assert.equal("", e2)   -- a whole recording: nothing to say
      assert.is_true(#live > 100)
      assert.equal(live, rep)
    end)
  end

  it("#13: scripts' CSV and JSON carry a wall-clock timestamp: now live, the recorded time replayed", function()
    local o, e, c = run(MISH .. " scripts/cpu.lua --count 1 --interval 0.1 --csv")
    assert.equal(0, c, e)
    local y = os.date("%Y")
    assert.matches("^time,interval_ms,sample,cpu", o)
    assert.matches("\n" .. y .. "%-%d%d%-%d%dT%d%d:%d%d:%d%d[+-]%d%d%d%d,", o)
    run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 2 --csv")
    local r = require("mi").core.rec_open(file)
    local first = r:info().first_time // r:info().tpm
    r:close()
    o = run(MISH .. " --replay " .. file .. " scripts/top.lua --count 1 --json")
    local want = os.date("%Y-%m-%dT%H:%M:%S", (first + 1000) // 1000)
    assert.matches('"time":"' .. want:gsub("%-", "%%-"), o)
  end)

  it("#13: verify says clean (0), torn tail with its offset (1), damaged regions (2), not a recording (3)", function()
    run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 4 --csv")
    local o, _, c = run(MISH .. " scripts/verify.lua " .. file)
    assert.equal(0, c)
    assert.matches(": clean", o)
    local size = cut(file, file .. ".t", nil)
    cut(file, file .. ".t", size - 3)
    o, _, c = run(MISH .. " scripts/verify.lua " .. file .. ".t --json")
    assert.equal(1, c)
    assert.matches('"state":"torn"', o)
    assert.matches('"torn_at":%d+', o)
    cut(file, file .. ".d", nil, size - 500)
    o, _, c = run(MISH .. " scripts/verify.lua " .. file .. ".d")
    assert.equal(2, c)
    assert.matches("damaged: %d+ bytes at offset %d+ skipped", o)
    o, _, c = run(MISH .. " scripts/verify.lua spec/record_spec.lua")
    assert.equal(3, c)
    os.remove(file .. ".t") os.remove(file .. ".d")
  end)

  it("#13: a replay of a damaged or torn recording says so on stderr, and still runs", function()
    run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 6 --csv")
    local size = cut(file, file .. ".t", nil)
    cut(file, file .. ".t", size - 3, size * 4 // 5)   -- a delta sample late in the file (not the key sample)
    local o, e, c = run(MISH .. " --replay " .. file .. ".t scripts/cpu.lua --count 2 --csv")
    assert.equal(0, c, e)
    assert.matches("torn tail at offset", e)
    assert.matches("damaged region", e)
    assert.matches("cpu,", o)
    os.remove(file .. ".t")
  end)

  it("#13: the C examples replay a recording (MISH_REPLAY) and say when it is torn", function()
    run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 4 --csv")
    -- speed 5: the 3 s recording lasts 0.6 s of wall time (at 20, 150 ms, which a loaded machine can spend
    -- starting the example: no interval printed, once in make test)
    local o, e, c = run("MISH_REPLAY=" .. file .. " MISH_SPEED=5 examples/testmiaif1 0.1 2")
    assert.equal(0, c, e)
    assert.matches("delta time", o)
    assert.equal("", e)
    local size = cut(file, file .. ".t", nil)
    cut(file, file .. ".t", size - 3)
    o, e, c = run("MISH_REPLAY=" .. file .. ".t MISH_SPEED=20 examples/testmiaif1 0.1 1")
    assert.equal(0, c, e)
    assert.matches("torn tail yes", e)
    os.remove(file .. ".t")
  end)

  it("#13: record.lua records the sim, appends after a torn tail with a mark, prints no progress off a terminal", function()
    os.remove(file)
    local _, e, c = run(MISH .. " scripts/record.lua -o " .. file .. " --interval 0.05 --count 3 --items gmt_idle,gmt_paused,process:pmt_process_time")
    assert.equal(0, c, e)
    assert.equal("", e)
    local size = cut(file, file, nil)
    cut(file, file, size - 7)
    _, e, c = run(MISH .. " scripts/record.lua -o " .. file .. " --interval 0.05 --count 2 --items gmt_idle")
    assert.equal(0, c, e)
    local o, _, v = run(MISH .. " scripts/verify.lua " .. file .. " --json")
    assert.equal(0, v)
    assert.matches('"segments":2', o)
    assert.matches('"samples":5', o)
    o = run(MISH .. " scripts/export.lua " .. file .. " --json")
    assert.matches('"timestamp":"%d%d%d%d%-%d%d%-%d%dT', o)
    _, e, c = run(MISH .. " scripts/record.lua -o " .. file .. " --items nosuchitem")
    assert.equal(1, c)
    assert.matches("no such item", e)
  end)

  it("#13: summary gives per item and entity rates with times (--csv, --json); export takes one format", function()
    run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 4 --csv")
    local o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --items pmt_process_time --csv")
    assert.equal(0, c, e)
    assert.matches("domain,entity,item,kind,samples,coverage", o)
    assert.matches("process,%d+ %u+,pmt_process_time,counter,5,100", o)
    o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --from +1s --to +2s --items gmt_idle --json")
    assert.equal(0, c, e)
    assert.matches('"window_samples":3', o)
    o, e, c = run(MISH .. " scripts/export.lua " .. file .. " --csv --to +0s")
    assert.equal(0, c, e)
    assert.matches("^timestamp,time_ms,domain,entity,pid,program,item,value\n", o)
    _, e, c = run(MISH .. " scripts/export.lua " .. file .. " --openmetrics --csv")
    assert.equal(2, c)
    assert.matches("choose one", e)
  end)

  it("#13: summary's MONITOR-style views: MODES per CPU add to 100%, PROCESSES, DISK and PAGE run", function()
    run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 4 --csv")
    local o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --view modes --csv")
    assert.equal(0, c, e)
    local sums, col = {}, nil   -- per CPU, the average shares of the modes that partition its time (#30: one row a figure)
    for line in o:gmatch("[^\n]+") do
      local f = {}
      for x in (line .. ","):gmatch("([^,]*),") do f[#f + 1] = x end
      if not col then for i, x in ipairs(f) do col = col or (x == "avg" and i) end
      elseif not f[6]:find("compatibility", 1, true) then sums[f[5]] = (sums[f[5]] or 0) + tonumber(f[col]) end
    end
    local n = 0
    for _, sum in pairs(sums) do assert.is_true(math.abs(sum - 100) < 0.1, sum) n = n + 1 end
    assert.equal(2, n)
    for _, v in ipairs({ "processes", "disk", "page" }) do
      o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --view " .. v)
      assert.equal(0, c, e)
      assert.matches(v .. ", 5 samples", o)
    end
    _, _, c = run(MISH .. " scripts/summary.lua " .. file .. " --view nonsense")
    assert.equal(2, c)
  end)

  it("#13: mish --replay clamps the window to the file and refuses what makes no sense", function()
    run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 3 --csv")
    local o, e, c = run(MISH .. " --replay " .. file .. " --from 1990-01-01T00:00:00Z --to 2100-01-01 -e 'print(s:time().year >= 2020)'")
    assert.equal(0, c, e)
    assert.equal("true\n", o)   -- AIFTIME shows the recorded time, inside the file's span
    _, e, c = run(MISH .. " --replay " .. file .. " --from 1990-01-01T00:00:00Z --to +100d -e 'print(1)'")
    assert.equal(2, c)   -- a window wholly before the file holds no sample: refused, not clamped (#30.4)
    assert.matches("holds no sample", e)
    -- speed 5: the 3 s recording lasts 0.6 s of wall time (at 50 it lasted 60 ms, which a loaded machine
    -- spent starting mish: the replay had ended before the script's first sample)
    o, e, c = run(MISH .. " --replay " .. file .. " --speed 5 scripts/cpu.lua --count 0 --interval 0.5 --csv")
    assert.equal(0, c, e)   -- a paced replay ends with its recording too
    assert.matches("all,", o)
    _, e, c = run(MISH .. " --from +1m -e 'print(1)'")
    assert.equal(2, c)   -- option errors are exit 2 (#16.3)
    assert.matches("go with %-%-replay", e)
    _, e, c = run(MISH .. " --replay /nonexistent.mir -e 'print(1)'")
    assert.equal(2, c)
    assert.matches("/nonexistent.mir': No such file", e)
    _, e, c = run(MISH .. " --replay " .. file .. " --from yesterday -e 'print(1)'")
    assert.equal(2, c)
    assert.matches("bad time", e)
    os.remove(file)
  end)
  it("#13 #15: export --openmetrics is loaded by Prometheus's own promtool (tsdb create-blocks-from openmetrics)", function()
    run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 4 --csv")
    local om = file .. ".om"
    finally(function() os.remove(om) end)
    local text, e, c = run(MISH .. " scripts/export.lua " .. file .. " --openmetrics")
    assert.equal(0, c, e)
    local f = io.open(om, "w") f:write(text) f:close()
    assert.matches("\n# EOF\n$", text)
    assert.matches("\nmish_gmt_idle_seconds_total [%d.e+-]+ %d+%.%d%d%d\n", text)   -- every sample has its recorded time
    if os.execute("command -v promtool > /dev/null 2>&1") ~= true then
      pending("promtool is not installed (Debian package prometheus), the export not loaded") return
    end
    local dir = os.tmpname()   -- removed with the test (spec/helpers.lua), whatever promtool left in it
    os.remove(dir)
    local out, e2, c2 = run("promtool tsdb create-blocks-from openmetrics " .. om .. " " .. dir)
    assert.equal(0, c2, e2 .. out)
    assert.matches("NUM SAMPLES", out)
    local series = tonumber(out:match("\n%S+%s+%d+%s+%d+%s+%S+%s+%d+%s+%d+%s+(%d+)"))
    assert.truthy(series and series > 100, out)
  end)
end)
