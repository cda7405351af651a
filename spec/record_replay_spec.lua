-- record_replay_spec.lua: issue #30 points 3-7 — replays that behave like the live system
-- (replay:FILE as a --system spec, --serve paced by the recording, windows by time of day, date
-- and offsets from either end, an empty window refused, a run cut short still summarized, a
-- sleep that lands on the sample it spans), births counted from birth by summary.lua, and one
-- reading of damaged files by verify, summary, export and replay. Each describe names its point.
local mi = require("mi")
local MISH = "./lua/mish"
local run = H.run_split   -- spec/helpers.lua: stdout, stderr, exit status

-- Records n samples of a fresh simulated system into path, each step ms of virtual time after the
-- one before (o.items: what is recorded; o.workload, o.seed).
local function record(path, n, step, o)
  o = o or {}
  local sys = mi.system({ workload = o.workload or "oltp", cpus = 2, seed = o.seed or 42 })
  local r = mi.record({ system = sys, path = path, fsync = "none", items = o.items or { "gmt_idle", "gmt_paused", "process:pmt_process_time" } })
  for _ = 2, n do sys:advance(step) assert(r:sample()) end
  r:close()
  sys:close()
end

describe("#30.3 replay:FILE as a system steps like --replay; --serve paces a replay by its own intervals", function()
  local file
  before_each(function() file = H.tmp_path("r3.mir") record(file, 6, 1000, { items = mi.RECORD_ITEMS }) end)

  it("--system replay:FILE and MISH_SYSTEM=replay:FILE: a sleep moves the recorded clock, as --replay does", function()
    local code = "-e 'local t = mi.clock() mi.sleep(2) print(mi.clock() - t)'"
    local o, e, c = run(MISH .. " --replay " .. file .. " " .. code)
    assert.equal(0, c, e)
    assert.equal("2000\n", o)
    o, e, c = run(MISH .. " --system replay:" .. file .. " " .. code)
    assert.equal(0, c, e)
    assert.equal("2000\n", o)
    o, e, c = run("MISH_SYSTEM=replay:" .. file .. " " .. MISH .. " " .. code)
    assert.equal(0, c, e)
    assert.equal("2000\n", o)
  end)

  it("a script on --system replay:FILE prints the recorded times and rates that moved, with its window", function()
    local o, e, c = run(MISH .. " --system replay:" .. file .. " --from +1s scripts/cpu.lua --count 2 --csv")
    assert.equal(0, c, e)
    local info = mi.core.rec_open(file):info()
    local first = info.first_time // info.tpm // 1000
    local times = {}
    for t in o:gmatch("\n(%d+%-%d+%-%d+T[%d:]+[^,]*),") do times[#times + 1] = t end
    assert.equal(6, #times, o)   -- 3 rows (2 CPUs and all) a sample
    assert.equal(os.date("%Y-%m-%dT%H:%M:%S", first + 2), times[1]:sub(1, 19), o)
    assert.equal(os.date("%Y-%m-%dT%H:%M:%S", first + 3), times[4]:sub(1, 19), o)
    assert.falsy(o:find("\n[^\n]*,all,0%.0,0%.0,0%.0,0%.0,0%.0,0%.0,0%.0,0%.0,0%.0,"), o)   -- not all-zero
  end)

  it("mish --replay FILE --serve: /metrics moves on with the recording without --speed", function()
    local errf, pidf = H.tmp_path("err"), H.tmp_path("pid")
    local pid
    finally(function() if pid then os.execute("kill " .. pid .. " 2>/dev/null") end end)
    local long = H.tmp_path("r3long.mir")   -- a minute: paced at speed 1, still moving when a loaded machine scrapes
    record(long, 60, 1000, { items = mi.RECORD_ITEMS })
    os.execute(MISH .. " --replay " .. long .. " --serve 127.0.0.1:0 2>" .. errf .. " & echo $! >" .. pidf)
    pid = io.open(pidf):read("l")
    local addr
    for _ = 1, 200 do   -- up to 20 s on a loaded machine
      local f = io.open(errf)
      addr = f and f:read("a"):match("http://(%S+)/metrics")
      if f then f:close() end
      if addr then break end
      os.execute("sleep 0.1")
    end
    assert.truthy(addr, "the server said where it listens")
    local function scrape()   -- the sample lines (the values the replay shows)
      -- curl without the ASan runtime that `make test SANITIZE=1` preloads into busted (and so into
      -- its children): a curl started with it hung in its own setlocale for 9 minutes
      local f = io.popen("env -u LD_PRELOAD curl -s http://" .. addr .. "/metrics")
      local t = f:read("a")
      f:close()
      return (t:gsub("#[^\n]*\n", ""))
    end
    local a = scrape()
    assert.truthy(a:find("\nmish_gmt_idle_seconds_total ", 1, true), a)
    local b
    for _ = 1, 60 do   -- the recording's next second, on the wall clock (paced at speed 1)
      os.execute("sleep 0.25")
      b = scrape()
      if b ~= a then break end
    end
    assert.is_true(b ~= a, "the served values moved on")
  end)
end)

describe("#30.7 a replay's sleep applies the recorded intervals it spans", function()
  it("mi.sleep(3) lands on the third sample though each sample was taken 4 ms late", function()
    local file = H.tmp_path("r7.mir")
    record(file, 20, 1004)
    local o, e, c = run(MISH .. " --replay " .. file .. " -e 'local t = mi.clock() for i = 1, 6 do mi.sleep(3) io.write(mi.clock() - t, \" \") t = mi.clock() end'")
    assert.equal(0, c, e)
    assert.equal("3012 3012 3012 3012 3012 3012 ", o)
    -- a sleep shorter than half an interval still moves to the next sample; 1.6 intervals make 2
    o, e, c = run(MISH .. " --replay " .. file .. " -e 'local t = mi.clock() mi.sleep(0.2) io.write(mi.clock() - t, \" \") t = mi.clock() mi.sleep(1.6) io.write(mi.clock() - t)'")
    assert.equal(0, c, e)
    assert.equal("1004 2008", o)
  end)
end)

describe("#30.4 recording windows: times of day, dates, offsets from either end; an empty window is an error", function()
  local file, info
  -- The recorded time at offset sec from the first sample, as UTC text in format fmt.
  local function at(sec, fmt) return os.date("!" .. fmt, info.first_time // info.tpm // 1000 + sec) end
  -- The first sample's clock of a replay of file with the window options w (ms), and its stderr and status.
  local function start(w)
    local o, e, c = run(MISH .. " --replay " .. file .. " " .. w .. " -e 'print(mi.clock())'")
    return tonumber(o), e, c
  end
  -- The number of samples summary.lua and export.lua see in the window w (both asserted to agree).
  local function samples(w)
    local o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " " .. w)
    assert.equal(0, c, e)
    local n = tonumber(o:match(": (%d+) samples,"))
    local x, e2, c2 = run(MISH .. " scripts/export.lua " .. file .. " " .. w)
    assert.equal(0, c2, e2)
    local seen, m = {}, 0
    for t in x:gmatch("\n[^,]+,(%d+),") do if not seen[t] then seen[t] = true; m = m + 1 end end
    assert.equal(n, m, "summary and export see as many samples")
    return n
  end
  before_each(function()
    file = H.tmp_path("r4.mir")
    record(file, 181, 1000)   -- three minutes, a sample a second
    local r = mi.core.rec_open(file)
    info = r:info()
    r:close()
  end)

  it("--from -1m is the last minute, --to -1m ends a minute before the end (replay, summary, export)", function()
    local last_ms = info.last_time // info.tpm
    assert.equal(last_ms - 60000, (start("--from -1m")))
    assert.equal(61, samples("--from -1m"))
    assert.equal(120, samples("--from +1m --to -1m") + 59)   -- 61 samples from +60 s to +120 s
    assert.equal(31, samples("--from -1m --to +30s"))
  end)

  it("--from takes a time of day (hh:mm, hh:mm:ss, a fraction, a zone) and a date", function()
    local first_ms = info.first_time // info.tpm
    local t = start("--from " .. at(90, "%H:%M:%S"))
    assert.is_true(t >= first_ms + 89000 and t <= first_ms + 90000, tostring(t))   -- the sample at or after it
    -- from just after the sample of that second (the first sample's milliseconds are below .999)
    assert.equal(10, samples("--from " .. at(90, "%H:%M:%S") .. ".999 --to +10s"))
    assert.equal(10, samples("--from " .. at(90, "%H:%M:%S") .. ".999Z --to " .. at(100, "%H:%M:%S") .. ".999"))
    assert.equal(181, samples("--from " .. at(0, "%Y-%m-%d")))
    local o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --from " .. at(-3600, "%H:%M"))   -- before the start: clamped
    assert.equal(0, c, e)
    assert.truthy(o:find(": 181 samples,", 1, true), o)
    -- the time of day nearest the base, across midnight both ways
    local core = mi.core
    local base = core.parse_time("2026-11-22T23:50:00Z", 0, 1000)
    assert.equal(core.parse_time("2026-11-23T00:10:00Z", 0, 1000), core.parse_time("00:10", base, 1000))
    base = core.parse_time("2026-11-23T00:05:00Z", 0, 1000)
    assert.equal(core.parse_time("2026-11-22T23:55:00Z", 0, 1000), core.parse_time("23:55", base, 1000))
    assert.equal(core.parse_time("2026-11-23T01:30:00+02:00", 0, 1000), core.parse_time("01:30+02:00", base, 1000))
    for _, bad in ipairs({ "10:5", "25:00", "10:61", "1:30", "10:30:", "10:30x" }) do assert.is_nil(core.parse_time(bad, base, 1000), bad) end
  end)

  it("a window that holds no sample is an error: exit 2, one line on stderr, nothing on stdout", function()
    local gap = H.tmp_path("gap.mir")
    record(gap, 3, 60000)   -- samples a minute apart
    local cases = {
      { file, "--from +10m", "holds no sample of the recording" },                 -- past the end
      { file, "--to -10m", "holds no sample of the recording" },                   -- before the start
      { file, "--from -1m --to " .. at(60, "%H:%M:%S"), "ends .* before it starts" },
      { file, "--from " .. at(0, "%Y-%m-%d") .. "T00:00:00Z --to +1s", "holds no sample" },
      { gap, "--from +10s --to +20s", "holds no sample of the recording" },        -- between two samples
    }
    for _, k in ipairs(cases) do
      for _, cmd in ipairs({ MISH .. " --replay " .. k[1] .. " " .. k[2] .. " -e 'print(1)'",
                             MISH .. " scripts/summary.lua " .. k[1] .. " " .. k[2],
                             MISH .. " scripts/export.lua " .. k[1] .. " " .. k[2],
                             MISH .. " scripts/export.lua --openmetrics " .. k[1] .. " " .. k[2] }) do
        local o, e, c = run(cmd)
        assert.equal(2, c, cmd .. "\n" .. e)
        assert.equal("", o, cmd)
        assert.matches(k[3], e, 1, false, cmd)
        assert.equal(1, select(2, e:gsub("\n", "")), cmd .. "\n" .. e)
      end
    end
  end)

  it("a script cut short by the end of the recording prints its Average of the samples it had and says so", function()
    local short = H.tmp_path("short.mir")
    record(short, 4, 1000, { items = mi.RECORD_ITEMS })
    local o, e, c = run(MISH .. " --replay " .. short .. " scripts/cpu.lua --count 10")
    assert.equal(0, c, e)
    assert.truthy(o:find("\nAverage of 3 samples,", 1, true), o)
    assert.truthy(e:find("the recording ended after 3 samples of the 10 asked for", 1, true), e)
    o, e, c = run(MISH .. " --replay " .. short .. " scripts/top.lua --count 10")
    assert.equal(0, c, e)
    assert.truthy(o:find("\nAverage of 3 samples,", 1, true), o)
    o, e, c = run(MISH .. " --replay " .. short .. " scripts/cpu.lua --count 10 --csv")
    assert.equal(0, c, e)
    assert.equal(10, select(2, o:gsub("\n", "")), o)   -- a header and 3 samples of 3 rows
    assert.truthy(e:find("after 3 samples", 1, true), e)
  end)
end)

describe("#30.5 summary.lua counts a process born during the recording from its birth", function()
  it("the CPU time of every process, born before or during the recording, adds up to what the recording holds", function()
    local file = H.tmp_path("r5.mir")
    -- batch jobs that end and log on again every few hundred ms of CPU: births between samples
    local sys = mi.system({ workload = "batch", seed = 7, job_ms = 300, jobs = 12, cpus = 2 })
    local rc = mi.record({ system = sys, path = file, fsync = "none", items = { "gmt_idle", "process:pmt_process_time" } })
    for _ = 2, 30 do sys:advance(1000) assert(rc:sample()) end
    rc:close()
    sys:close()
    -- what the recording holds: per process (slot, pid, start), the CPU it had at its last sample, less
    -- what it had at its first unless it was born after the sample before that one
    local r = mi.core.rec_open(file)
    local info = r:info()
    local tps = info.tpm * 1000
    local procs, prev, births, truth = {}, nil, 0, 0
    local col
    require("mi.recording").walk(r, info.first_time, info.last_time, function(ev)
      if not col then for i, it in ipairs(r:layout("process")) do if it.name == "pmt_process_time" then col = i end end end
      for _, row in ipairs(r:rows("process")) do
        local id = row.key .. "/" .. row.pid .. "/" .. row.start
        local p = procs[id]
        if not p then
          p = { first = row[col], born = prev ~= nil and row.start >= prev and row.start < ev.time }
          procs[id] = p
          if p.born then births = births + 1 end
        end
        p.last = row[col]
      end
      prev = ev.time
    end)
    r:close()
    for _, p in pairs(procs) do truth = truth + (p.last - (p.born and 0 or p.first)) / tps end
    assert.is_true(births >= 5, "processes born during the recording: " .. births)
    -- summary's processes view and its per-item table give the same total
    local o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --view processes --csv")
    assert.equal(0, c, e)
    local sum, rows, cpu, fig = 0, 0, nil, nil   -- one row a figure (#30): the cpu rows' totals, in seconds
    for line in o:gmatch("[^\n]+") do
      local f = {}
      for x in (line .. ","):gmatch("([^,]*),") do f[#f + 1] = x end
      if not cpu then for i, x in ipairs(f) do if x == "total" then cpu = i elseif x == "figure" then fig = i end end
      elseif f[fig] == "cpu" and tonumber(f[cpu]) then sum = sum + tonumber(f[cpu]); rows = rows + 1 end
    end
    assert.is_true(rows >= 12, o)
    assert.near(truth, sum, 0.005 * rows)   -- each figure printed to 2 decimals
    o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --items pmt_process_time --all --json")
    assert.equal(0, c, e)
    sum = 0
    for v in o:gmatch('"total":([%d.e+-]+)') do sum = sum + tonumber(v) end
    assert.near(truth, sum, 1e-6 * truth)
  end)
end)

describe("#30.6 one reading of a damaged file: verify, summary, export and replay agree", function()
  it("16 damaged bytes: the same samples, regions and bytes skipped everywhere, said in the same words", function()
    local file = H.tmp_path("r6.mir")
    record(file, 180, 1000)
    local f = io.open(file, "r+b")
    local size = f:seek("end")
    f:seek("set", size // 3)
    local b = f:read(16)
    f:seek("set", size // 3)
    f:write((b:gsub(".", function(c) return string.char(c:byte() ~ 0x5a) end)))
    f:close()
    -- verify
    local o, e, c = run(MISH .. " scripts/verify.lua " .. file .. " --json")
    assert.equal(2, c, e)
    local h = {}
    for k, v in o:gmatch('"([%w_]+)":(%-?%d+)') do h[k] = tonumber(v) end
    assert.equal(1, h.damaged_regions, o)
    assert.is_true(h.unreadable >= 1, o)   -- the samples after the damage up to the next key
    assert.is_true(h.samples + h.unreadable < 180, o)   -- the damaged record itself is gone
    local text = run(MISH .. " scripts/verify.lua " .. file)
    local line = text:match("\n(" .. file:gsub("%p", "%%%0") .. ": %d+ damaged region[^\n]*)\n")
    assert.truthy(line, text)
    assert.truthy(line:find(h.samples .. " sample(s) readable", 1, true), line)
    assert.truthy(line:find(h.damaged_bytes .. " bytes skipped", 1, true), line)
    assert.truthy(line:find(h.unreadable .. " whole sample(s) unreadable", 1, true), line)
    -- summary: the same samples, coverage below 100 (the unreadable ones were taken), the same line on stderr
    o, e, c = run(MISH .. " scripts/summary.lua " .. file)
    assert.equal(0, c, e)
    assert.truthy(o:find(": " .. h.samples .. " samples (" .. h.unreadable .. " more unreadable after damage)", 1, true), o)
    assert.truthy(e:find(line, 1, true), e)
    local cover = tonumber(o:match("\nglobal +%- +gmt_idle +%S+ +%d+ +(%d+)"))
    assert.equal(math.floor(100 * h.samples / (h.samples + h.unreadable) + 0.5), cover, o)
    assert.is_true(cover < 100)
    o = run(MISH .. " scripts/summary.lua " .. file .. " --json")
    assert.matches('"window_samples":' .. h.samples, o)
    assert.matches('"segments":' .. h.segments, o)
    -- export: the same samples
    o, e, c = run(MISH .. " scripts/export.lua " .. file)
    assert.equal(0, c, e)
    local seen, n = {}, 0
    for t in o:gmatch("\n[^,]+,(%d+),") do if not seen[t] then seen[t] = true; n = n + 1 end end
    assert.equal(h.samples, n)
    assert.truthy(e:find(line, 1, true), e)
    assert.truthy(e:find(h.samples .. " samples (" .. h.unreadable .. " more unreadable", 1, true), e)
    -- a replay: the same samples applied, the same words at its end
    o, e, c = run(MISH .. " -e 'local sys = mi.replay(\"" .. file .. "\") while mi.core.replay_step(sys, 1) == 1 do end " ..
      "print(mi.core.replay_samples(sys)) print(select(2, mi.core.replay_state(sys)))'")
    assert.equal(0, c, e)
    assert.equal(h.samples .. "\n" .. line:gsub("^.-: ", ""):gsub("; %d+ sample%(s%) readable$", "") .. "\n", o)
    o, e, c = run(MISH .. " --replay " .. file .. " scripts/cpu.lua --count 0 --csv")
    assert.equal(0, c, e)
    assert.truthy(e:find(line, 1, true), e)   -- said when it opens
  end)
end)
