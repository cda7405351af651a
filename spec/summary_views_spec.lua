-- summary_views_spec.lua: issue #30, MONITOR's class views complete — `summary.lua --view NAME`
-- gives current, average, minimum and maximum for every figure of MODES, PROCESSES, PAGE and DISK;
-- checked against the recording's own samples, read here; figures not recorded or not measured
-- (a host recording) are missing and said so.
local mi = require("mi")
local MISH = "./lua/mish"
local run = H.run_split   -- spec/helpers.lua: stdout, stderr, exit status

-- The rows of a view's JSON output: a list of {field = text} (numbers as numbers, null as nil).
local function view_rows(json)
  local rows = {}
  for obj in json:match('"rows":%[(.*)%]'):gmatch("{[^{}]*}") do
    local r = {}
    for k, v in obj:gmatch('"([%w_]+)":([^,}"]+)') do r[k] = v ~= "null" and tonumber(v) or nil end
    for k, v in obj:gmatch('"([%w_]+)":"([^"]*)"') do r[k] = v end
    rows[#rows + 1] = r
  end
  return rows
end

-- Each sample of file as {t = seconds, [domain] = {entity key -> {item name -> value}}}.
local function samples(file)
  local r = mi.core.rec_open(file)
  local info = r:info()
  local tps = info.tpm * 1000
  local out = {}
  require("mi.recording").walk(r, info.first_time, info.last_time, function(ev)
    local s = { t = ev.time / tps }
    for _, d in ipairs({ "global", "process", "io", "processor" }) do
      local lay, by = r:layout(d), {}
      for _, row in ipairs(r:rows(d)) do
        local e = {}
        for i, it in ipairs(lay) do if it.name then e[it.name] = it.unit == "mi_time" and row[i] / tps or row[i] end end
        e.pid, e.start = row.pid, row.start
        by[row.key] = e
      end
      s[d] = by
    end
    out[#out + 1] = s
  end)
  r:close()
  return out
end

-- The row of rows with entity and figure.
local function find(rows, entity, figure)
  for _, r in ipairs(rows) do if tostring(r.entity) == tostring(entity) and r.figure == figure then return r end end
end

-- Asserts a == b to the 6 significant digits the JSON carries.
local function near(a, b, what)
  assert(type(a) == "number" and type(b) == "number", what .. ": " .. tostring(a) .. " vs " .. tostring(b))
  assert(math.abs(a - b) <= 1e-5 * math.max(1, math.abs(a), math.abs(b)), what .. ": " .. a .. " vs " .. b)
end

describe("#30 summary --view: MONITOR's class views with cur, avg, min and max of every figure", function()
  local file, S
  setup(function()
    file = H.tmp_path("views.mir")
    local _, e, c = run("lua5.4 spec/record_live.lua " .. file .. " scripts/top.lua --count 6 --csv")
    assert(c == 0, e)
    S = samples(file)
  end)
  teardown(function() os.remove(file) end)

  -- Runs the view; returns its rows and stderr.
  local function view(name)
    local o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --view " .. name .. " --json")
    assert.equal(0, c, e)
    return view_rows(o), e
  end

  it("DISK: operations, reads, writes, KB and queue per disk only; the statistics are the samples' own", function()
    local rows = view("disk")
    assert.is_true(#S >= 6)
    local ldevs = {}
    for _, r in ipairs(rows) do ldevs[r.entity] = true end
    assert.same({ [1] = true, [2] = true, [3] = true, [4] = true }, ldevs)   -- the simulator's disks, no terminal
    for l = 1, 4 do
      local rates, total, secs = {}, 0, 0
      for i = 2, #S do
        local a, b = S[i - 1].io[l], S[i].io[l]
        local dt = S[i].t - S[i - 1].t
        local n = b.imc_completed_read - a.imc_completed_read
        rates[#rates + 1] = n / dt
        total, secs = total + n, secs + dt
      end
      local r = find(rows, l, "reads")
      near(math.max(table.unpack(rates)), r.max, "ldev " .. l .. " max reads/s")
      near(math.min(table.unpack(rates)), r.min, "ldev " .. l .. " min reads/s")
      near(rates[#rates], r.cur, "ldev " .. l .. " cur reads/s")
      near(total / secs, r.avg, "ldev " .. l .. " avg reads/s")
      near(total, r.total, "ldev " .. l .. " reads")
      local q = {}
      for i = 1, #S do q[i] = S[i].io[l].imc_q_current end
      local qr = find(rows, l, "queue length")
      near(math.max(table.unpack(q)), qr.max, "ldev " .. l .. " max queue")
      near(q[#q], qr.cur, "ldev " .. l .. " current queue")
      local ops = find(rows, l, "operations")
      near(r.total + find(rows, l, "writes").total, ops.total, "operations = reads + writes")
    end
  end)

  it("MODES: every mode per CPU, compatibility mode included, as shares of the counted time that add to 100", function()
    local rows = view("modes")
    local part = { "idle", "interrupts (external ICS)", "dispatcher ICS", "memory manager: replenish critical pool",
      "memory manager: system fetch", "memory manager: swap in", "memory manager: TOS trap", "AS queue", "BS queue", "CS queue",
      "DS queue", "ES queue" }
    local items = { "gmt_idle", "gmt_external_ics", "gmt_dispatcher_ics", "gmt_mem_mgr_replenish_critical_pool_ics",
      "gmt_mem_mgr_sys_fetch_ics", "gmt_mem_mgr_swapin_ics", "gmt_mem_mgr_tos_trap_ics", "gmt_as_process", "gmt_bs_process",
      "gmt_cs_process", "gmt_ds_process", "gmt_es_process" }
    for cpu = 0, 1 do
      local sum = 0
      for _, f in ipairs(part) do sum = sum + assert(find(rows, cpu, f), f).avg end
      assert.near(100, sum, 0.01)
      assert.is_number(find(rows, cpu, "compatibility mode (within the queues)").avg)
      -- the DS queue's largest share of an interval, from the samples
      local best = 0
      for i = 2, #S do
        local a, b = S[i - 1].processor[cpu], S[i].processor[cpu]
        local den = 0
        for _, n in ipairs(items) do den = den + b[n] - a[n] end
        best = math.max(best, 100 * (b.gmt_ds_process - a.gmt_ds_process) / den)
      end
      near(best, find(rows, cpu, "DS queue").max, "cpu " .. cpu .. " max DS share")
    end
  end)

  it("PAGE: faults by kind, reads and writes with their I/Os, free and modified pages", function()
    local rows = view("page")
    for _, f in ipairs({ "page faults", "faults on virgin pages (demand zero)", "page reads from disc", "page read I/Os",
      "page writes (dirty overlay candidates)", "page write I/Os", "free pages", "recoverable overlay candidates (modified list)" }) do
      assert.is_number(assert(find(rows, "system", f), f).avg, f)
    end
    local free = {}
    for i = 1, #S do free[i] = S[i].global[0].gmc_cur_free_main_mem_pg end
    local r = find(rows, "system", "free pages")
    near(math.max(table.unpack(free)), r.max, "max free pages")
    near(math.min(table.unpack(free)), r.min, "min free pages")
    near(free[#free], r.cur, "current free pages")
  end)

  it("PROCESSES: state, CPU, I/O counts, faults; priority and pages, not recorded, are missing and said", function()
    local rows, err = view("processes")
    local n, cpu = 0, 0
    for _, r in ipairs(rows) do
      if r.figure == "cpu" then n = n + 1; cpu = cpu + r.total; assert.truthy(r.state == "alive" or r.state == "gone", r.state) end
      if r.figure == "pages in memory" or r.figure == "priority changes" then
        assert.is_nil(r.cur); assert.is_nil(r.avg); assert.is_nil(r.max)
      end
    end
    assert.is_true(n > 5)
    assert.truthy(err:find("pages in memory (pmc_cur_main_mem_pg_objcl_: not in the recording)", 1, true), err)
    -- the processes' CPU seconds are the per-item table's (births counted from birth, #30.5)
    local o = run(MISH .. " scripts/summary.lua " .. file .. " --items pmt_process_time --all --json")
    local sum = 0
    for v in o:gmatch('"total":([%d.e+-]+)') do sum = sum + tonumber(v) end
    assert.near(sum, cpu, 1e-4 * sum + 1e-9)
  end)

  it("on a host recording: what the host never measures is missing, said on stderr, and I/O is read/write calls", function()
    local root = H.tmp_path("proc")
    H.put_file(root, "stat", "cpu  300 10 80 1500 60 15 15 20 0 0\ncpu0 300 10 80 1500 60 15 15 20 0 0\nbtime 1700000000\n")
    H.put_file(root, "1/stat", "1 (init) S 0 1 1 0 -1 0 100 0 0 0 40 5 0 0 20 0 1 0 500 1000 10 0\n")
    H.put_file(root, "1/status", "Name:\tinit\nUid:\t0\t0\t0\t0\n")
    local hf = H.tmp_path("host.mir")
    local _, e, c = run(MISH .. " --system host --proc " .. root .. " scripts/record.lua -o " .. hf .. " --count 3 --interval 0.05 --fsync none")
    assert.equal(0, c, e)
    local o
    o, e, c = run(MISH .. " scripts/summary.lua " .. hf .. " --view modes --json")
    assert.equal(0, c, e)
    local rows = view_rows(o)
    local r = assert(find(rows, 0, "dispatcher ICS"))
    assert.is_nil(r.cur); assert.is_nil(r.avg); assert.is_nil(r.min); assert.is_nil(r.max)
    assert.truthy(e:find("dispatcher ICS (gmt_dispatcher_ics: not measured by the host source)", 1, true), e)
    assert.is_not_nil(find(rows, 0, "idle"))
    o, e, c = run(MISH .. " scripts/summary.lua " .. hf .. " --view processes")
    assert.equal(0, c, e)
    assert.truthy(o:find("RW calls/s", 1, true), o)
    o, e, c = run(MISH .. " scripts/summary.lua " .. hf .. " --view disk --json")   -- no diskstats: no disk, said
    assert.equal(0, c, e)
    assert.equal(0, #view_rows(o))
    assert.truthy(e:find("no disk device in the window's samples", 1, true), e)
  end)
end)
