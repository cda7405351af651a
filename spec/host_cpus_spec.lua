-- host_cpus_spec.lua: a host with more CPUs than the MI's 8 processors (#32): the friendly
-- layer's processor GET shows every CPU, the literal MIPRCSRGET the first 8, on a 64-CPU
-- fixture (spec/fixtures/host_cpu64, copied to a temporary directory and removed in `finally`).
local mi = require("mi")

local put = H.put_file   -- writes a fixture file (spec/helpers.lua)
local N = 64

-- A temporary copy of the 64-CPU fixture, removed when the test ends (H.fixture_copy); returns
-- its proc root and its directory.
local function copy(fin)
  local dir = H.fixture_copy("host_cpu64", fin)
  return dir .. "/proc", dir
end

-- The second reading: CPU k ran k + 1 more jiffies of user time, 2 of system, 1 of nice, 1 of
-- softirq and 100 - (k + 5) idle; took k + 3 more interrupts and k more timeslices. early:
-- the reading before the counting starts instead (every CPU 500 jiffies of user time more than
-- the fixture's), which the final reading includes too.
local function second_reading(root, early)
  local all, lines, hdr, row = { 0, 0, 0, 0, 0, 0, 0, 0 }, {}, { "     " }, { "LOC:" }
  local sched = { "version 15\ntimestamp 4295000100\n" }
  for k = 0, N - 1 do
    local v = early and { 1500 + k, 10, 500, 80000, 20, 5, 5, 0 } or { 1500 + k + (k + 1), 11, 502, 80000 + 100 - (k + 5), 20, 5, 6, 0 }
    for i = 1, 8 do all[i] = all[i] + v[i] end
    lines[#lines + 1] = string.format("cpu%d %d %d %d %d %d %d %d %d 0 0\n", k, table.unpack(v))
    hdr[#hdr + 1] = string.format("  CPU%-5d", k)
    row[#row + 1] = string.format(" %9d", 100 * k + 7 + (early and 0 or k + 3))
    sched[#sched + 1] = string.format("cpu%d 0 0 0 0 0 0 0 0 %d\n", k, 1000 + k + 9 + (early and 0 or k))
  end
  put(root, "stat", string.format("cpu  %d %d %d %d %d %d %d %d 0 0\n", table.unpack(all)) .. table.concat(lines) ..
    "intr 1\nctxt 5000\nbtime 1700000000\nprocesses 900\nprocs_running 3\nprocs_blocked 0\n")
  put(root, "interrupts", table.concat(hdr) .. "\n" .. table.concat(row) .. "   Local timer interrupts\nERR:          0\n")
  put(root, "schedstat", table.concat(sched))
end

-- MI ticks per jiffy on this machine (8 ticks per ms).
local function tick()
  local p = io.popen("getconf CLK_TCK")
  local hz = math.tointeger(tonumber(p:read("l")))
  p:close()
  return 8 * 1000 // hz
end

local ITEMS = { "gmc_pauses", "gmt_idle" }   -- 21164 turns the processors on

-- A session on a fresh copy of the 64-CPU fixture (removed when the test ends), its processor
-- counters on and two readings taken.
local function open64()
  local root, dir = copy(finally)
  local s = mi.open({ system = mi.system({ host = true, proc = root, age_ms = 0 }) })
  second_reading(root, true)
  assert(s:on("global", ITEMS))
  second_reading(root)
  return s
end

describe("a host with 64 CPUs", function()
  it("shows every CPU in the friendly processor GET, each one's states partitioning its time", function()
    local s = open64()
    local recs = assert(s:get("processor"))
    assert.equal(N, #recs)
    local t = tick()
    for k = 0, N - 1 do
      local r = recs[k + 1]
      assert.equal(k, r.processor_id)
      assert.equal((k + 1) * t, r.gmt_cs_process)
      assert.same({ 2 * t, t, t }, { r.gmt_bs_process, r.gmt_ds_process, r.gmt_external_ics })
      -- each CPU ran 100 jiffies: its states add up to them
      assert.equal(100 * t, r.gmt_idle + r.gmt_external_ics + r.gmt_bs_process + r.gmt_cs_process + r.gmt_ds_process,
        "cpu " .. k)
      assert.equal(k + 3, r.gmc_interrupt_handler, "cpu " .. k)
      assert.equal(k, r.gmc_launches, "cpu " .. k)
      assert.equal(0, r.gmc_stop_disc_io)   -- an item the host does not drive
    end
    -- one CPU past the eighth on its own, and an item list
    local one = assert(s:get("processor", { "gmt_cs_process" }, { cpu = 40 }))
    assert.equal(1, #one)
    assert.same({ 40, 41 * t }, { one[1].processor_id, one[1].gmt_cs_process })
    -- as columns
    local cols = assert(s:get("processor", { "gmt_cs_process" }, { columns = {} }))
    assert.equal(N, #cols.gmt_cs_process)
    assert.equal(64 * t, cols.gmt_cs_process[64])
    s:close()
  end)

  it("gives the literal MIPRCSRGET the first 8 processors (the MI's limit) with warning 32701", function()
    local s = open64()
    local t = tick()
    local rc, st, recs = mi.literal.MIPRCSRGET(s, { 20040, 27023, 0 }, 0, -1)
    assert.equal(32701, rc, "more processors exist than the call returns")
    assert.same({ 0, 0 }, st, "every item read")
    assert.equal(8, #recs)
    for k = 0, 7 do   -- the 8 records are usable: processor k's user time of the fixture's interval
      assert.same({ k, (k + 1) * t }, { recs[k + 1][1], recs[k + 1][2] }, "processor " .. k)
    end
    local w = mi.status(32701)
    assert.equal("PROCESSORS_BEYOND_MI", w.name)
    assert.truthy(w.message:find("more processors than the MI's 8", 1, true), w.message)
    rc, st, recs = mi.literal.MIPRCSRGET(s, { 27023, 0 }, 0, 3)
    assert.equal(0, rc, "one processor asked for: no warning")
    assert.equal(1, #recs)
    assert.equal(8, s:info().cpus)
    assert.equal(N, #s.sys:host_cpus())
    -- the friendly layer is not touched by the warning: every CPU, no status
    local all, err = s:get("processor", { "gmt_cs_process" })
    assert.is_table(all, tostring(err))
    assert.equal(N, #all)
    s:close()
  end)

  it("glance draws a bar for every CPU, paired by processor_id, several a line past 8", function()
    -- the fixture's early reading, then glance's first sleep brings the second (a copy from next/)
    local function run(flags)
      local root, dir = copy(finally)
      second_reading(root, true)
      assert(os.execute("mkdir '" .. dir .. "/next'"))
      second_reading(dir .. "/next")
      local hook = "local mi = require('mi'); local sleep = mi.sleep; mi.sleep = function(...) " ..
        "os.execute([[cp '" .. dir .. "/next/'* '" .. root .. "']]); return sleep(...) end"
      -- (an interval longer than the host's 100 ms refresh age: the second sample reads the files again)
      local p = io.popen("./lua/mish --system host --proc '" .. root .. "' -e \"" .. hook .. "\" scripts/glance.lua --count 1 " ..
        "--interval 0.2 " .. flags .. " 2>&1")
      local out = p:read("a")
      p:close()
      return out
    end
    -- CPU k: 100 jiffies, of them k + 1 user and 1 nice (user k + 2 %), 2 system and 1 softirq
    -- (system 3 %), idle 100 - (k + 5): busy k + 5 %
    local out = run("")
    assert.truthy(out:find("64 CPUs", 1, true), out)
    local lines = 0
    for line in out:gmatch("[^\n]+") do if line:find("^ ?%d+ %[") then lines = lines + 1 end end
    assert.is_true(lines >= 2 and lines <= 16, "several CPUs a line: " .. lines .. " lines\n" .. out)
    for k = 0, N - 1 do
      local bar = string.rep("#", math.floor((k + 2) * 8 / 100 + 0.5)) .. string.rep("=", math.floor(3 * 8 / 100 + 0.5))
      local cell = string.format("%2d [%s%s] %3d%%", k, bar, string.rep(".", 8 - #bar), k + 5)
      assert.truthy(out:find(cell, 1, true), "CPU " .. k .. ": " .. cell .. "\n" .. out)
    end
    local json = run("--json")
    local cpus = {}
    for rec in json:gmatch('{"busy":[^}]*}') do
      local b, c, sy, u = rec:match('"busy":([%d.]+),"cpu":(%d+),"system":([%d.]+),"user":([%d.]+)')
      assert.truthy(b, rec)
      cpus[tonumber(c)] = { tonumber(b), tonumber(u), tonumber(sy) }
    end
    for k = 0, N - 1 do
      assert.is_table(cpus[k], "CPU " .. k .. " in the --json record\n" .. json)
      assert.near(k + 5, cpus[k][1], 1e-9, "busy, CPU " .. k)
      assert.near(k + 2, cpus[k][2], 1e-9, "user, CPU " .. k)
      assert.near(3, cpus[k][3], 1e-9, "system, CPU " .. k)
    end
  end)

  it("exports every CPU's series, each counting from the exporter's start", function()
    local root, dir = copy(finally)
    local sys = mi.system({ host = true, proc = root, age_ms = 0 })
    second_reading(root, true)
    mi.openmetrics(sys, { processes = false, io = false })   -- the exporter starts counting
    second_reading(root)
    local text = mi.openmetrics(sys, { processes = false, io = false })
    local t, n = tick(), 0
    for cpu, v in text:gmatch('mish_cpu_gmt_cs_process_seconds_total{cpu="(%d+)"} (%S+)') do
      n = n + 1
      assert.near((tonumber(cpu) + 1) * t / 8000, tonumber(v), 1e-9, "cpu " .. cpu)
    end
    assert.equal(N, n)
    assert.truthy(text:find('mish_cpu_gmc_interrupt_handler_total{cpu="63"} 66\n', 1, true))
    sys:close()
  end)
end)
