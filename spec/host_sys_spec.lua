-- host_sys_spec.lua: the host source's system-wide families (core/sources/linux_sys.c) on
-- fixture /proc trees written here: /proc/schedstat (arrivals, run-queue area, launches),
-- /proc/vmstat and meminfo (the memory manager), every /proc/diskstats field, the ready-queue
-- and disk-queue watermarks, and a 64-CPU machine. Each fixture is removed in `finally`.
local mi = require("mi")

local put = H.put_file   -- writes a fixture file (spec/helpers.lua)

-- A /proc/stat of n CPUs: cpu i has the 8 figures cpus[i + 1] (user nice system idle iowait
-- irq softirq steal); the "cpu" line is their sum.
local function stat_text(cpus, extra)
  local all = { 0, 0, 0, 0, 0, 0, 0, 0 }
  local lines = {}
  for i, t in ipairs(cpus) do
    for k = 1, 8 do all[k] = all[k] + t[k] end
    lines[#lines + 1] = string.format("cpu%d %d %d %d %d %d %d %d %d 0 0\n", i - 1, table.unpack(t))
  end
  return string.format("cpu  %d %d %d %d %d %d %d %d 0 0\n", table.unpack(all)) .. table.concat(lines) ..
    "intr 1\nctxt 5000\nbtime 1700000000\n" .. (extra or "processes 900\nprocs_running 3\nprocs_blocked 1\n")
end

-- A fresh fixture root with the files every reading needs (2 CPUs, meminfo, vmstat, one disk);
-- `files` replaces or adds files ({rel = text}).
local function fixture(files)
  local root = os.tmpname()
  os.remove(root)
  os.execute("mkdir -p '" .. root .. "'")
  local base = {
    stat = stat_text({ { 100, 10, 50, 800, 20, 5, 5, 10 }, { 200, 0, 30, 700, 40, 10, 10, 10 } }),
    interrupts = "           CPU0       CPU1       \nLOC:       10       20   Local timer interrupts\n",
    meminfo = "MemTotal:        8000000 kB\nMemFree:         2000000 kB\n",
    vmstat = "pgfault 123\npgmajfault 40\n",
    diskstats = "   8       0 sda 1000 10 64000 500 300 5 24000 900 2 1000 2000\n",
  }
  for rel, text in pairs(files or {}) do base[rel] = text end
  for rel, text in pairs(base) do put(root, rel, text) end
  return root
end

-- A session on the host source reading root (every call re-reads).
local function host(root)
  local sys = mi.system({ host = true, proc = root, age_ms = 0 })
  return mi.open({ system = sys }), sys
end

local function remove(root) os.execute("rm -rf '" .. root .. "'") end

-- 2 KB pages per kernel page on this machine (the host converts pages to the MI's 2 KB).
local page_2k = H.page_2k   -- spec/helpers.lua

local MS = 8   -- MI_Time units per millisecond (8000 ticks/ms, round factor 1000)

-- schedstat version 15: cpuN yld 0 sched_count goidle ttwu ttwu_local rq_cpu_time run_delay pcount
local function schedstat(rows)
  local t = { "version 15\ntimestamp 4295000000\n" }
  for i, r in ipairs(rows) do
    t[#t + 1] = string.format("cpu%d 0 0 %d %d %d %d %d %d %d\n", i - 1, r.sched or 0, r.goidle or 0, r.ttwu, r.local_ or 0,
      r.cputime or 0, r.delay, r.pcount)
    t[#t + 1] = "domain0 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
  end
  return table.concat(t)
end

describe("/proc/schedstat on the host", function()
  it("gives arrivals (wake-ups + forks), the run-queue area and launches per processor", function()
    local root = fixture({ schedstat = schedstat({ { ttwu = 1000, delay = 5000000000, pcount = 700 },
      { ttwu = 2000, delay = 1000000000, pcount = 900 } }) })
    finally(function() remove(root) end)
    local s = host(root)
    s:on("global", { "gmc_cum_ready_queue", "gmt_cum_request_secs", "gmc_pauses" })
    -- wake-ups +30 and +12, forks +5; run delay +50 ms and +25.5 ms; timeslices +40 and +7
    put(root, "schedstat", schedstat({ { ttwu = 1030, delay = 5050000000, pcount = 740 },
      { ttwu = 2012, delay = 1025500000, pcount = 907 } }))
    put(root, "stat", stat_text({ { 100, 10, 50, 800, 20, 5, 5, 10 }, { 200, 0, 30, 700, 40, 10, 10, 10 } },
      "processes 905\nprocs_running 3\nprocs_blocked 1\n"))
    local g = s:get("global")
    assert.equal(30 + 12 + 5, g.gmc_cum_ready_queue)
    assert.equal(50 * MS + 25 * MS + MS // 2, g.gmt_cum_request_secs)
    local cpu = s:get("processor", { "gmc_launches" })
    assert.same({ 40, 7 }, { cpu[1].gmc_launches, cpu[2].gmc_launches })
    s:close()
  end)

  it("is optional: without the file its items stay 0 and nothing counts as a failed read", function()
    local root = fixture()
    finally(function() remove(root) end)
    local s = host(root)
    s:on("global", { "gmc_cum_ready_queue", "gmt_cum_request_secs", "gmc_pauses" })
    put(root, "stat", stat_text({ { 100, 10, 50, 800, 20, 5, 5, 10 }, { 200, 0, 30, 700, 40, 10, 10, 10 } },
      "processes 999\nprocs_running 3\nprocs_blocked 1\n"))
    local g = s:get("global")
    assert.same({ 0, 0 }, { g.gmc_cum_ready_queue, g.gmt_cum_request_secs })
    assert.equal(0, s:info().host.failed_reads)
    assert.equal(0, s:info().host.malformed)
    s:close()
  end)

  it("rejects a garbled reading whole (nothing added, counted as malformed)", function()
    local root = fixture({ schedstat = schedstat({ { ttwu = 1000, delay = 0, pcount = 7 } }) })
    finally(function() remove(root) end)
    local s = host(root)
    s:on("global", { "gmc_cum_ready_queue", "gmc_pauses" })
    put(root, "schedstat", "version 15\ncpu0 0 0 1 2 x\n")
    assert.equal(0, s:get("global").gmc_cum_ready_queue)
    assert.is_true(s:info().host.malformed > 0)
    s:close()
  end)
end)

describe("the ready-queue and disk-queue watermarks on the host", function()
  it("are never below their levels and keep the highest reading", function()
    local root = fixture()
    finally(function() remove(root) end)
    local s = host(root)
    s:on("global", { "gmc_cur_ready_queue", "gmc_max_ready_queue" })
    s:on("io", { "imc_q_current", "imc_q_maximum" }, { ldev = "disk" })
    local seen = {}
    for _, n in ipairs({ 3, 7, 2, 5 }) do
      put(root, "stat", stat_text({ { 100, 10, 50, 800, 20, 5, 5, 10 }, { 200, 0, 30, 700, 40, 10, 10, 10 } },
        "processes 900\nprocs_running " .. n .. "\nprocs_blocked 1\n"))
      put(root, "diskstats", string.format("   8       0 sda 1000 10 64000 500 300 5 24000 900 %d 1000 2000\n", n * 2))
      local g, d = s:get("global"), s:get("io")[1]
      seen[#seen + 1] = g.gmc_cur_ready_queue
      assert.is_true(g.gmc_max_ready_queue >= g.gmc_cur_ready_queue, "ready queue watermark below its level")
      assert.is_true(d.imc_q_maximum >= d.imc_q_current, "disk queue watermark below its level")
    end
    assert.same({ 3, 7, 2, 5 }, seen)
    assert.equal(7, s:get("global").gmc_max_ready_queue)
    assert.equal(14, s:get("io")[1].imc_q_maximum)
    s:close()
  end)
end)

describe("the memory manager on the host (/proc/vmstat, /proc/meminfo)", function()
  local vm0 = "pgpgin 10\npswpin 100\npswpout 200\npgalloc_dma 5\npgalloc_normal 1000\npgalloc_movable 0\n" ..
    "allocstall_normal 3\nallocstall_movable 1\npgfree 2000\npgdeactivate 50\npgfault 123\npgmajfault 40\n" ..
    "pgsteal_kswapd 90\npgsteal_direct 10\npgscan_kswapd 300\npgscan_direct 30\npgscan_direct_throttle 9\n" ..
    "pgscan_anon 200\npgscan_file 130\npgsteal_anon 40\npgsteal_file 60\npageoutrun 4\nnr_vmscan_write 250\n"
  local vm1 = "pgpgin 10\npswpin 103\npswpout 210\npgalloc_dma 6\npgalloc_normal 1100\npgalloc_movable 0\n" ..
    "allocstall_normal 5\nallocstall_movable 1\npgfree 2150\npgdeactivate 58\npgfault 200\npgmajfault 44\n" ..
    "pgsteal_kswapd 110\npgsteal_direct 15\npgscan_kswapd 340\npgscan_direct 35\npgscan_direct_throttle 99\n" ..
    "pgscan_anon 220\npgscan_file 155\npgsteal_anon 48\npgsteal_file 77\npageoutrun 5\nnr_vmscan_write 270\n"

  it("maps allocations, frees, scans, steals, page-outs, swap-ins and pressure exactly", function()
    local root = fixture({ vmstat = vm0 })
    finally(function() remove(root) end)
    local s = host(root)
    local items = { "gmc_cum_alloc_main_mem", "gmc_cum_alloc_free_main_mem", "gmc_mem_pressure",
      "gmc_mem_swappable_pages_examined", "gmc_overlay_oc_objcl_", "gmc_make_oc_io_pages_objcl_",
      "gmc_page_flt_io_pages_objcl_", "gmc_make_oc_lru_objcl_", "gmc_page_flt_count_objcl_" }
    s:on("global", items, { mapping = "standard" })
    put(root, "vmstat", vm1)
    local g, pg = s:get("global"), page_2k()
    assert.is_true(pg >= 1)
    assert.equal(101 * pg, g.gmc_cum_alloc_main_mem)            -- pgalloc_* summed
    assert.equal(150 * pg, g.gmc_cum_alloc_free_main_mem)       -- pgfree
    assert.equal(2 + 1, g.gmc_mem_pressure)                     -- allocstall_* + pageoutrun
    assert.equal((40 + 5) * pg, g.gmc_mem_swappable_pages_examined)   -- kswapd + direct, not throttle nor anon/file
    local names = mi.objcl_names("standard")
    assert.equal("objcl_transient_data", names[1])
    assert.equal("objcl_file_object", names[8])
    assert.same({ 8 * pg, 17 * pg }, { g.gmc_overlay_oc_objcl_[1], g.gmc_overlay_oc_objcl_[8] })
    -- swap-outs are anonymous page-outs; the rest of reclaim's writes are file pages
    assert.same({ 10 * pg, 10 * pg }, { g.gmc_make_oc_io_pages_objcl_[1], g.gmc_make_oc_io_pages_objcl_[8] })
    assert.equal(3 * pg, g.gmc_page_flt_io_pages_objcl_[1])
    assert.equal(8 * pg, g.gmc_make_oc_lru_objcl_[1])
    assert.equal(4, g.gmc_page_flt_count_objcl_[1])
    for _, it in ipairs(items) do
      local v = g[it]
      local sum = 0
      if type(v) == "table" then for _, x in pairs(v) do sum = sum + x end else sum = v end
      assert.is_true(sum > 0, it .. " was not driven")
    end
    s:close()
  end)

  it("leaves a figure the kernel lacks at 0 (no pgsteal_anon/file before Linux 5.8)", function()
    local old = vm0:gsub("pgsteal_anon %d+\n", ""):gsub("pgsteal_file %d+\n", "")
    local root = fixture({ vmstat = old })
    finally(function() remove(root) end)
    local s = host(root)
    s:on("global", { "gmc_overlay_oc_objcl_", "gmc_cum_alloc_main_mem" }, { mapping = "standard" })
    put(root, "vmstat", (vm1:gsub("pgsteal_anon %d+\n", ""):gsub("pgsteal_file %d+\n", "")))
    local g = s:get("global")
    for _, x in pairs(g.gmc_overlay_oc_objcl_) do assert.equal(0, x) end
    assert.is_true(g.gmc_cum_alloc_main_mem > 0)
    s:close()
  end)

  it("does not add what happened while nobody counted", function()
    local root = fixture({ vmstat = vm0 })
    finally(function() remove(root) end)
    local s = host(root)
    s:on("global", { "gmc_cum_alloc_free_main_mem" })
    s:off("global")
    put(root, "vmstat", vm1)           -- happens while nobody counts
    s:get("processor")                 -- a refresh that does not read vmstat
    s:on("global", { "gmc_cum_alloc_free_main_mem" })
    assert.equal(0, s:get("global").gmc_cum_alloc_free_main_mem)
    s:close()
  end)

  it("reads the inactive lists as the overlay-candidate level (21310)", function()
    local root = fixture({ meminfo = "MemTotal:        8000000 kB\nMemFree:         2000000 kB\n" ..
      "Inactive(anon):   170704 kB\nInactive(file):   222064 kB\n" })
    finally(function() remove(root) end)
    local s = host(root)
    s:on("global", { "gmc_cur_roc_pages", "gmc_cur_free_main_mem_pg" })
    local g = s:get("global")
    assert.equal((170704 + 222064) // 2, g.gmc_cur_roc_pages)
    assert.equal(1000000, g.gmc_cur_free_main_mem_pg)
    s:close()
  end)
end)

describe("every /proc/diskstats field on the host", function()
  it("maps busy time, weighted time and control requests (17 fields) exactly", function()
    local root = fixture({ diskstats = "   8       0 sda 1000 10 64000 500 300 5 24000 900 2 1000 2000 7 0 56 3 40 9\n" })
    finally(function() remove(root) end)
    local s = host(root)
    s:on("io", { "imt_service_time", "imt_request_secs", "imc_control", "imc_completed_io", "imc_q_current" }, { ldev = "disk" })
    -- +20 reads, +10 writes, +150 ms busy, +400 weighted ms, +2 discards, +5 flushes
    put(root, "diskstats", "   8       0 sda 1020 10 64160 530 310 5 24080 960 4 1150 2400 9 0 72 4 45 11\n")
    local d = s:get("io")[1]
    assert.equal(150 * MS, d.imt_service_time)
    assert.equal(400 * MS, d.imt_request_secs)
    assert.equal(2 + 5, d.imc_control)
    assert.equal(30, d.imc_completed_io)
    assert.equal(4, d.imc_q_current)
    -- the busy time can never exceed the time requests were in the device (one at a time at least)
    assert.is_true(d.imt_service_time <= d.imt_request_secs)
    s:close()
  end)

  it("reads an 11-field line (kernels before 4.18) with no control requests", function()
    local root = fixture()
    finally(function() remove(root) end)
    local s = host(root)
    s:on("io", { "imt_service_time", "imc_control" }, { ldev = "disk" })
    put(root, "diskstats", "   8       0 sda 1020 10 64160 530 310 5 24080 960 4 1100 2100\n")
    local d = s:get("io")[1]
    assert.same({ 100 * MS, 0 }, { d.imt_service_time, d.imc_control })
    s:close()
  end)
end)

describe("a host with 64 CPUs", function()
  -- cpu i: user i, nice 1, system 2i, idle 1000 + i, iowait 3, irq 1, softirq 1, steal 0
  local function cpus(step)
    local t = {}
    for i = 0, 63 do t[i + 1] = { i * step, step, 2 * i * step, 1000 + i + 10 * step, 3, 1, 1, 0 } end
    return t
  end
  local function interrupts(step)
    local head, row = { "    " }, { "LOC:" }
    for i = 0, 63 do head[#head + 1] = string.format("%11s", "CPU" .. i) row[#row + 1] = string.format("%11d", 100 * i * step) end
    return table.concat(head) .. "\n" .. table.concat(row) .. "   Local timer interrupts\n"
  end

  it("shows CPU k as processor k, each its own (never folded; the MI's rows are 0-7), and all 64 in the global figures", function()
    local root = fixture({ stat = stat_text(cpus(1)), interrupts = interrupts(1) })
    finally(function() remove(root) end)
    local s = host(root)
    assert.equal(8, s:info().cpus)
    s:on("global", { "gmt_idle", "gmt_cs_process", "gmc_pauses" })
    put(root, "stat", stat_text(cpus(2)))
    put(root, "interrupts", interrupts(2))
    local g = s:get("global")
    local user, idle = 0, 0
    for i = 0, 63 do user = user + i idle = idle + 10 end
    assert.equal(user * 80, g.gmt_cs_process)    -- every CPU's user time: +i jiffies each
    assert.equal(idle * 80, g.gmt_idle)
    local p = s:get("processor", { "gmt_idle", "gmt_external_ics", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process",
      "gmc_interrupt_handler" })
    assert.equal(64, #p)   -- the friendly layer shows the processors past the MI's 8 too
    for i = 0, 63 do
      local r = p[i + 1]
      assert.equal(i, r.processor_id)
      assert.equal(i * 80, r.gmt_cs_process, "processor " .. i .. " holds only CPU " .. i)
      assert.equal(2 * i * 80, r.gmt_bs_process)
      assert.equal(80, r.gmt_ds_process)
      assert.equal(10 * 80, r.gmt_idle)
      assert.equal(100 * i, r.gmc_interrupt_handler)
      -- the processor's states partition its time: the jiffies its line grew by, every one in one state
      assert.equal((i + 1 + 2 * i + 10) * 80,
        r.gmt_idle + r.gmt_external_ics + r.gmt_bs_process + r.gmt_cs_process + r.gmt_ds_process)
    end
    s:close()
  end)
end)

describe("a host inside a container (cgroup v2 limits)", function()
  -- the fixture's proc root is <dir>/proc, its cgroup root <dir>/sys/fs/cgroup (as ../etc for users)
  local function container(files)
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p '" .. dir .. "'")
    local cpus = {}
    for i = 0, 7 do cpus[i + 1] = { 10 * i, 0, i, 1000, 0, 0, 0, 0 } end
    local root = fixture({ stat = stat_text(cpus), ["self/cgroup"] = "0::/system.slice/box.scope\n" })
    os.execute("mv '" .. root .. "' '" .. dir .. "/proc'")
    for rel, text in pairs(files) do put(dir, "sys/fs/cgroup/" .. rel, text) end
    return dir, dir .. "/proc", cpus
  end

  it("reads memory.max (the lowest on its path) as the memory size and its cpuset as the processors", function()
    local dir, root, cpus = container({
      ["system.slice/memory.max"] = "536870912\n",
      ["system.slice/box.scope/memory.max"] = "1073741824\n",
      ["system.slice/box.scope/cpuset.cpus.effective"] = "2-3,6\n",
      ["system.slice/box.scope/cpu.max"] = "150000 100000\n",
    })
    finally(function() os.execute("rm -rf '" .. dir .. "'") end)
    local s = host(root)
    assert.equal(536870912 // 2048, s:config("MEMORY_SIZE").MEMORY_SIZE)
    assert.equal(3, s:info().cpus)
    s:on("global", { "gmc_pauses" })
    for i = 0, 7 do cpus[i + 1][1] = cpus[i + 1][1] + 100 + i end   -- CPU i: +100 + i jiffies of user time
    put(root, "stat", stat_text(cpus))
    local p = s:get("processor", { "gmt_cs_process" })
    assert.same({ 102 * 80, 103 * 80, 106 * 80 }, { p[1].gmt_cs_process, p[2].gmt_cs_process, p[3].gmt_cs_process })
    s:close()
  end)

  it("keeps the machine's figures without limits (memory.max \"max\", no cpuset file)", function()
    local dir, root = container({ ["system.slice/box.scope/memory.max"] = "max\n" })
    finally(function() os.execute("rm -rf '" .. dir .. "'") end)
    local s = host(root)
    assert.equal(4000000, s:config("MEMORY_SIZE").MEMORY_SIZE)
    assert.equal(8, s:info().cpus)
    s:close()
  end)
end)
