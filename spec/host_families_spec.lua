-- host_families_spec.lua: families the host source drives beyond those of host_sys_spec and
-- host_proc_spec (#32), each read through the AIFs from a fixture /proc tree kept under
-- spec/fixtures/ (host_where: processes by type and by what they wait for; host_mem: the
-- memory manager's levels). A fixture that must change between readings is copied to a
-- temporary directory first, removed in `finally`.
local mi = require("mi")

local put = H.put_file   -- writes a fixture file (spec/helpers.lua)
local FIX = "spec/fixtures/"

-- A session on the host source reading root (every call re-reads).
local function host(root)
  local sys = mi.system({ host = true, proc = root, age_ms = 0 })
  return mi.open({ system = sys }), sys
end

-- A temporary copy of fixture dir name (its proc and etc); returns the copy's proc root.
local function copy(name)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "' && cp -r " .. FIX .. name .. "/. '" .. dir .. "'"))
  return dir .. "/proc", dir
end

local function remove(dir) os.execute("rm -rf '" .. dir .. "'") end

-- 2 KB pages per kernel page on this machine.
local page_2k = H.page_2k   -- spec/helpers.lua

describe("processes by type on the host (21319-21322)", function()
  it("counts system processes, command interpreters and the others by their parent's type", function()
    local s = host(FIX .. "host_where/proc")
    s:on("global", { "gmc_cur_sys_process", "gmc_cur_ci_process", "gmc_cur_ci_created_process",
      "gmc_cur_non_ci_created_process" })
    local g = s:get("global")
    -- system: systemd (pid 1) and two kernel threads; CIs: bash, sh (named in etc/shells);
    -- started from a CI: vi (bash's), flock and sleeper (sh's); started by another such
    -- process: worker (daemon's), helper and writer (worker's); daemon, whose parent is
    -- systemd, is in neither
    assert.same({ 3, 2, 3, 3 }, { g.gmc_cur_sys_process, g.gmc_cur_ci_process, g.gmc_cur_ci_created_process,
      g.gmc_cur_non_ci_created_process })
    assert.equal(0, s:info().host.malformed)
    s:close()
  end)

  it("follows the table: a process gone and a new CI child change the levels at the next reading", function()
    local root, dir = copy("host_where")
    finally(function() remove(dir) end)
    local s = host(root)
    s:on("global", { "gmc_cur_ci_process", "gmc_cur_ci_created_process", "gmc_cur_non_ci_created_process" })
    remove(root .. "/202")   -- helper ends
    put(root, "300/stat", "300 (ls) R 100 300 300 0 -1 0 1 0 0 0 1 0 0 0 20 0 1 0 900 1000 10 0\n")
    local g = s:get("global")
    assert.same({ 2, 4, 2 }, { g.gmc_cur_ci_process, g.gmc_cur_ci_created_process, g.gmc_cur_non_ci_created_process })
    s:close()
  end)
end)

describe("where processes wait on the host, beyond #32's first reasons", function()
  it("counts terminal writes, file locks (RIN waits) and signal waits from wchan", function()
    local s = host(FIX .. "host_where/proc")
    s:on("global", { "gmc_cur_blk_trm_read", "gmc_cur_blk_trm_write", "gmc_cur_blk_rin_wait",
      "gmc_cur_blk_signal_timer_wait", "gmc_cur_blk_child_wait", "gmc_cur_blk_timer_wait" })
    local g = s:get("global")
    assert.same({ 1, 1, 2, 2, 1, 1 }, { g.gmc_cur_blk_trm_read, g.gmc_cur_blk_trm_write, g.gmc_cur_blk_rin_wait,
      g.gmc_cur_blk_signal_timer_wait, g.gmc_cur_blk_child_wait, g.gmc_cur_blk_timer_wait })
    s:close()
  end)
end)

describe("the memory manager's levels and reuse on the host", function()
  it("reads pinned pages (21285) and the reclaim lists by kind (21294) as levels", function()
    local root, dir = copy("host_mem")
    finally(function() remove(dir) end)
    local s = host(root)
    s:on("global", { "gmc_cur_frz_pg_objcl_", "gmc_cur_swap_pg_objcl_", "gmc_cur_roc_pages" })
    local g = s:get("global")
    -- Mlocked 16000 kB; anon 1000000 + 400000 kB, file 2000000 + 1600000 kB; in 2 KB pages
    assert.equal(8000, g.gmc_cur_frz_pg_objcl_[1])
    assert.same({ 700000, 1800000 }, { g.gmc_cur_swap_pg_objcl_[1], g.gmc_cur_swap_pg_objcl_[8] })
    -- the candidates (inactive lists, 21310) are among the replaceable pages
    assert.is_true(g.gmc_cur_roc_pages <= g.gmc_cur_swap_pg_objcl_[1] + g.gmc_cur_swap_pg_objcl_[8])
    local text = assert(io.open(root .. "/meminfo")):read("a")
    put(root, "meminfo", (text:gsub("Mlocked:%s+%d+", "Mlocked:           4000"):gsub("Active%(file%):%s+%d+",
      "Active(file):    1000000")))
    g = s:get("global")
    assert.equal(2000, g.gmc_cur_frz_pg_objcl_[1])
    assert.same({ 700000, 1300000 }, { g.gmc_cur_swap_pg_objcl_[1], g.gmc_cur_swap_pg_objcl_[8] })
    s:close()
    -- a level enabled afresh starts from the reading, not from what an earlier session wrote
    s = host(root)
    s:on("global", { "gmc_cur_frz_pg_objcl_" })
    assert.equal(2000, s:get("global").gmc_cur_frz_pg_objcl_[1])
    s:close()
  end)

  it("counts pages used again while candidates (pgactivate) into 21282", function()
    local root, dir = copy("host_mem")
    finally(function() remove(dir) end)
    local s = host(root)
    s:on("global", { "gmc_recover_oc_objcl_", "gmc_make_oc_lru_objcl_" })
    put(root, "vmstat", "nr_free_pages 500000\npgfault 200\npgmajfault 41\npgactivate 70025\npgdeactivate 30010\n")
    local g = s:get("global")
    local pg = page_2k()
    assert.same({ 25 * pg, 10 * pg }, { g.gmc_recover_oc_objcl_[1], g.gmc_make_oc_lru_objcl_[1] })
    s:close()
  end)
end)

describe("a host inside a container: its CPU and memory limits as mish's configuration", function()
  it("honours cpu.max (the smallest share on the path) with the cpuset, and memory.max", function()
    local s = host(FIX .. "host_container/proc")
    local lim = s:info().host.limits
    -- cpuset 2-3,6: 3 CPUs; cpu.max 150000/100000 in the leaf, 400000/100000 above: 1.5 CPUs' worth
    assert.same({ 3, 2, 1.5, 536870912 }, { lim.cpuset, lim.cpus, lim.cpu_max, lim.memory_max })
    assert.equal(536870912 // 2048, s:config("MEMORY_SIZE").MEMORY_SIZE)
    assert.equal(3, s:info().cpus)   -- the processors are the cpuset's CPUs (a share of time is no processor)
    s:close()
  end)

  it("takes a limit higher up the path when it is the smaller, and every CPU without a cpuset", function()
    local root, dir = copy("host_container")
    finally(function() remove(dir) end)
    local cg = dir .. "/sys/fs/cgroup/system.slice/"
    os.remove(cg .. "box.scope/cpuset.cpus.effective")
    put(dir, "sys/fs/cgroup/system.slice/box.scope/cpu.max", "max 100000\n")
    put(dir, "sys/fs/cgroup/system.slice/cpu.max", "250000 100000\n")
    local s = host(root)
    local lim = s:info().host.limits
    assert.same({ 8, 3, 2.5 }, { lim.cpuset, lim.cpus, lim.cpu_max })
    s:close()
  end)

  it("reports no limit outside a limiting cgroup", function()
    local s = host(FIX .. "host_where/proc")
    local lim = s:info().host.limits
    assert.same({ 2, 2 }, { lim.cpuset, lim.cpus })
    assert.is_nil(lim.cpu_max)
    assert.is_nil(lim.memory_max)
    s:close()
  end)
end)

describe("short-lived processes on the host (born and gone between readings)", function()
  -- a process's stat: pid, comm, ppid, thread count
  local function stat(pid, comm, ppid, threads)
    return string.format("%d (%s) S %d %d %d 0 -1 0 100 0 0 0 5 0 0 0 20 0 %d 0 900 1000 10 0\n", pid, comm, ppid, pid, pid, threads)
  end
  -- /proc/stat of the fixture with the fork count n
  local function forks(root, n)
    local text = assert(io.open(root .. "/stat")):read("a")
    put(root, "stat", (text:gsub("processes %d+", "processes " .. n)))
  end

  it("counts the forks no reading of the table saw: forks less processes born and threads added", function()
    local root, dir = copy("host_forks")
    finally(function() remove(dir) end)
    local s, sys = host(root)
    assert(s:on("process", { "pmt_process_time" }))   -- the table is read from here (fork count 900)
    assert.is_nil(s:info().host.short_lived, "one reading, no interval yet: not measured (nil, not 0)")
    -- 12 forks: a new process (1), another with 3 threads (3), the server's second thread (1); 7 never seen
    forks(root, 912)
    put(root, "200/stat", stat(200, "ls", 100, 1))
    put(root, "201/stat", stat(201, "java", 1, 3))
    put(root, "101/stat", stat(101, "server", 1, 2))
    for _, pid in ipairs({ 200, 201 }) do put(root, pid .. "/status", "Name:\tx\nUid:\t0\t0\t0\t0\n") end
    assert(s:get("process"))
    assert.equal(7, s:info().host.short_lived)
    -- one more fork, its process seen (and ls gone): nothing more was lost
    forks(root, 913)
    os.execute("rm -rf '" .. root .. "/200'")
    put(root, "202/stat", stat(202, "cat", 100, 1))
    put(root, "202/status", "Name:\tcat\nUid:\t0\t0\t0\t0\n")
    assert(s:get("process"))
    assert.equal(7, s:info().host.short_lived)
    -- the exporter shows it
    local om = mi.openmetrics(sys, { io = false })
    assert.truthy(om:find("\nmish_exporter_host_short_lived_total 7\n", 1, true))
    s:close()
  end)

  it("does not count forks made while nobody read the table", function()
    local root, dir = copy("host_forks")
    finally(function() remove(dir) end)
    local s = host(root)
    forks(root, 950)   -- 50 forks before any process counter is on
    s:get("global", { "gmt_idle" })
    assert(s:on("process", { "pmt_process_time" }))
    assert(s:get("process"))
    assert.equal(0, s:info().host.short_lived)
    s:close()
  end)
end)
