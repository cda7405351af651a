-- sim_books_spec.lua: the simulated HP 3000 keeps the manual's books (issue 29). Every identity
-- of core/sim/BOOKS.md marked checked holds on every built-in workload, on 1, 2, 4 and 8 CPUs and
-- two seeds, with every item enabled in every domain: since the ON (the values a GET reads) and
-- over each interval between two GETs (their differences); a level holds at every GET.
local mi = require("mi")

local CPUS, SEEDS = { 1, 2, 4, 8 }, { 5, 11 }
local WARM_MS, STEP_MS, GETS = 1500, 1237, 3   -- history before the ON, then GETs this far apart

-- The name of item num (domain d: the same number is the same name in every domain but 21177/27006).
local function nm(num, d)
  local it = mi.item(num, d)
  return it and it.name or error("no item " .. num)
end

-- The names of items a..b (consecutive numbers).
local function span(a, b, d)
  local out = {}
  for n = a, b do out[#out + 1] = nm(n, d) end
  return out
end

-- A record's value of item num (a number, or a table for a class array).
local function v(r, num, d) return r[nm(num, d)] end

-- The sum of items a..b of record r.
local function vsum(r, a, b, d)
  local n = 0
  for i = a, b do n = n + v(r, i, d) end
  return n
end

-- A failure list: add(fmt, ...) records a message; failures of one relation (the message up to
-- its colon, numbers aside) are kept as their first message and a count.
local function books()
  local bad, seen = {}, {}
  local function add(fmt, ...)
    local msg = string.format(fmt, ...)
    local key = (msg:match("^[^:]*") or msg):gsub("%d+", "#")
    if seen[key] then seen[key].n = seen[key].n + 1 return end
    seen[key] = { n = 1 }
    bad[#bad + 1] = { msg = msg, rec = seen[key] }
  end
  local function list()
    local out = {}
    for _, b in ipairs(bad) do out[#out + 1] = b.rec.n > 1 and string.format("%s (and %d more)", b.msg, b.rec.n - 1) or b.msg end
    return out
  end
  return list, add
end

-- Checks that a <= b (+ tol), naming the relation.
local function le(add, what, a, b, tol)
  if a > b + (tol or 0) then add("%s: %s > %s", what, tostring(a), tostring(b)) end
end

-- Checks |a - b| <= tol.
local function near(add, what, a, b, tol)
  if math.abs(a - b) > (tol or 0) then add("%s: %s vs %s", what, tostring(a), tostring(b)) end
end

-- One sample of every domain: global record, live and just-ended process records by pid,
-- device records by ldev, processor records, the configuration counts and the clock.
local function sample(s, sys)
  local out = { g = s:get("global"), p = {}, io = {}, cpu = s:get("processor"), ticks = sys:info().ticks }
  for _, r in ipairs(s:get("process") or {}) do out.p[r.pid] = r end
  for _, r in ipairs(s:get("io") or {}) do out.io[r.ldev] = r end
  local c = s:config(3003, 3005, 3039)
  out.jobs, out.sessions, out.memory = c[3003], c[3005], c[3039]
  return out
end

-- The difference of two samples' totals (levels keep their new values): global, processors
-- by position, devices by ldev, processes present in both by pid.
local function interval(new, old)
  local d = { g = mi.delta(new.g, old.g), cpu = {}, io = {}, p = {}, ticks = new.ticks - old.ticks }
  for i, r in ipairs(new.cpu) do d.cpu[i] = mi.delta(r, old.cpu[i]) end
  for l, r in pairs(new.io) do if old.io[l] then d.io[l] = mi.delta(r, old.io[l]) end end
  for pid, r in pairs(new.p) do if old.p[pid] then d.p[pid] = mi.delta(r, old.p[pid]) end end
  return d
end

-- ---------------------------------------------------------------- the families (BOOKS.md)

local CPU_TIMES = { 27006, 27007, 27008, 27009, 27010, 27011, 27012, 27021, 27022, 27023, 27024, 27025 }

-- 1. A CPU's time: per CPU within the elapsed time; all CPUs and paused make CPUs x elapsed;
-- the global states are the CPUs' sums; testmiaif1's sum never exceeds CPUs x elapsed. iv is 1
-- over an interval (a difference of two values rounded down may be one more than the
-- difference rounded down), else 0.
local function cpu_time(add, x, e, ncpu, iv)
  local all = 0
  for i, c in ipairs(x.cpu) do
    local t = 0
    for _, n in ipairs(CPU_TIMES) do t = t + v(c, n, "processor") end
    le(add, "cpu " .. i .. " states within elapsed", t, e, iv * #CPU_TIMES)
    all = all + t
  end
  near(add, "CPUs' states + paused (21176) = CPUs x elapsed", all + v(x.g, 21176), ncpu * e, (1 + iv) * (#CPU_TIMES * ncpu + 1))
  local pairs_ = { { 21177, 27006 }, { 21178, 27008 }, { 21179, 27009 }, { 21180, 27010 }, { 21181, 27011 },
    { 21182, 27021 }, { 21183, 27022 }, { 21184, 27023 }, { 21185, 27024 }, { 21186, 27025 } }
  for _, pr in ipairs(pairs_) do
    local sum = 0
    for _, c in ipairs(x.cpu) do sum = sum + v(c, pr[2], "processor") end
    near(add, pr[1] .. " = sum of the CPUs' " .. pr[2], v(x.g, pr[1]), sum, (1 + iv) * (ncpu + 1))
  end
  local idle_c = 0
  for _, c in ipairs(x.cpu) do idle_c = idle_c + v(c, 27000, "processor") end
  near(add, "21165 idle count = sum of the CPUs' 27000", v(x.g, 21165), idle_c, 0)
  le(add, "testmiaif1: 21176..21186 within CPUs x elapsed", vsum(x.g, 21176, 21186), ncpu * e, 1 + iv * 11)
end

-- Stops that leave a process ready take no time; the unused port's items stay zero.
local ZERO_P = { 25122, 25129, 25151, 25152, 25153, 25084, 25140 }

-- 2. A process's time within its measured life; should-be-zero items; processes against the system.
local function process_time(add, x, life_of, live, iv)
  local cpu_sum, ready_sum = 0, 0
  for pid, r in pairs(x.p) do
    local life = life_of(r)
    if life then le(add, "pid " .. pid .. " 25047 + 25048 within its life", v(r, 25047) + v(r, 25048), life, 2 + 2 * iv) end
    for _, n in ipairs(ZERO_P) do if v(r, n) ~= 0 then add("pid %d: %d (should be zero) is %d", pid, n, v(r, n)) end end
    if live(r) then cpu_sum = cpu_sum + v(r, 25047); ready_sum = ready_sum + v(r, 25048) end
  end
  le(add, "processes' 25047 within 21182..21186", cpu_sum, vsum(x.g, 21182, 21186), 5)
  le(add, "processes' 25048 within 21094", ready_sum, v(x.g, 21094), 1)
  for i, c in ipairs(x.cpu) do
    if v(c, 27060, "processor") ~= 0 then add("cpu %d: 27060 (should be zero) is %d", i, v(c, 27060, "processor")) end
  end
  if v(x.g, 21220) ~= 0 then add("21220 (a port not used) is %d", v(x.g, 21220)) end
end

-- 3. The ready queue: one clock split by length; its area within the histogram's bounds.
local RQ_LO = { 0, 1, 2, 3, 5, 9, 17, 33 }
local RQ_HI = { 0, 1, 2, 4, 8, 16, 32, math.huge }
local function ready_queue(add, x, e, iv)
  near(add, "21095..21102 = elapsed", vsum(x.g, 21095, 21102), e, 9)
  local lo, hi = 0, 0
  for k = 0, 7 do
    local h = v(x.g, 21095 + k)
    lo = lo + (RQ_LO[k + 1] - 0.5 > 0 and RQ_LO[k + 1] - 0.5 or 0) * h
    hi = hi + (RQ_HI[k + 1] + 0.5) * (h + 1)
  end
  le(add, "histogram's least area within 21094", lo, v(x.g, 21094), 1 + iv)
  le(add, "21094 within the histogram's most area", v(x.g, 21094), hi)
end

-- Levels at a GET: the ready queue and the disk queues within their marks, blocked counts
-- within the live processes, the LRU list within its size.
local function levels(add, x, nlive)
  le(add, "21092 within 21093", v(x.g, 21092), v(x.g, 21093))
  -- the high-water mark reaches the least length of every histogram bucket that holds time
  for k = 7, 1, -1 do
    if v(x.g, 21095 + k) > 0 then
      le(add, "the histogram's longest length with time within 21093", RQ_LO[k + 1], v(x.g, 21093))
      break
    end
  end
  le(add, "21309 free pages within MEMORY_SIZE (3039)", v(x.g, 21309), x.memory)
  for n = 21103, 21163 do
    local it = mi.item(n)
    if it.reading == "level" and it.kind == "simple" then
      local val = x.g[it.name]
      if val < 0 or val > nlive then add("%d (%s) = %d, live processes %d", n, it.name, val, nlive) end
    end
  end
  le(add, "21339 within the LRU list's 1,000", v(x.g, 21339), 1000)
  if v(x.g, 21136) ~= 0 then add("21136 (a port not used) is %d", v(x.g, 21136)) end
  for l, r in pairs(x.io) do le(add, "ldev " .. l .. " 23034 within 23033", v(r, 23034, "io"), v(r, 23033, "io")) end
end

-- 5. The census and the configuration's counts against the live processes.
local function census(add, x)
  local n, jobs, sessions = 0, {}, {}
  for _, r in pairs(x.p) do
    if r.pid_state == 0 then
      n = n + 1
      if r.user_name:match("^BATCH") then jobs[r.js_number] = true
      elseif r.user_name:match("^USER") then sessions[r.js_number] = true end
    end
  end
  near(add, "21319..21322 = live processes", vsum(x.g, 21319, 21322), n, 0)
  local nj, ns = 0, 0
  for _ in pairs(jobs) do nj = nj + 1 end
  for _ in pairs(sessions) do ns = ns + 1 end
  near(add, "JOB COUNT (3003) = live jobs", x.jobs, nj, 0)
  near(add, "SESSION COUNT (3005) = live sessions", x.sessions, ns, 0)
end

-- Class-array subsets: {sub items (summed), total item}.
local OBJCL_SUBSETS = { { { 21256 }, 21254 }, { { 21257 }, 21256 }, { { 21259 }, 21255 }, { { 21260 }, 21254 },
  { { 21263 }, 21261 }, { { 21263, 21268 }, 21261 }, { { 21266 }, 21261 }, { { 21267 }, 21262 }, { { 21268 }, 21261 },
  { { 21271 }, 21269 }, { { 21272 }, 21270 }, { { 21273 }, 21269 } }

-- 6. The memory manager by object class: subsets class by class, the all-virgin split, the
-- processes' faults within the system's.
local function objcl(add, x)
  for _, sb in ipairs(OBJCL_SUBSETS) do
    local tot = v(x.g, sb[2])
    for c = 1, #tot do
      local sub = 0
      for _, n in ipairs(sb[1]) do sub = sub + v(x.g, n)[c] end
      le(add, table.concat(sb[1], "+") .. " within " .. sb[2] .. " class " .. (c - 1), sub, tot[c])
    end
  end
  local av, w, nw = v(x.g, 21263), v(x.g, 21264), v(x.g, 21265)
  for c = 1, #av do near(add, "21264 + 21265 = 21263 class " .. (c - 1), w[c] + nw[c], av[c], 0) end
  local pf = {}
  for _, r in pairs(x.p) do for c, n in ipairs(v(r, 25202)) do pf[c] = (pf[c] or 0) + n end end
  for c, n in pairs(pf) do le(add, "processes' 25202 within 21254 class " .. (c - 1), n, v(x.g, 21254)[c]) end
  -- semaphore classes: the processes' blocks by queue length within the system's, class by class
  for k = 0, 2 do
    local sem = {}
    for _, r in pairs(x.p) do for c, n in ipairs(v(r, 25261 + k)) do sem[c] = (sem[c] or 0) + n end end
    for c, n in pairs(sem) do le(add, "processes' " .. (25261 + k) .. " within " .. (21088 + k) .. " class " .. (c - 1), n, v(x.g, 21088 + k)[c]) end
  end
end

-- Not implemented (the manual): zero wherever they are read.
local NOT_IMPL_G = { 21323, 21324, 21325, 21328, 21329, 21332, 21333, 21347, 21348, 21349, 21350, 21357 }
local NOT_IMPL_IO = { 23000, 23001, 23002, 23003 }

-- Simple subsets of the file system: {sub items (summed), total items (summed)}; per process too.
local FILE_SUBSETS = { { { 21342 }, { 21334 } }, { { 21351 }, { 21334 } }, { { 21344, 21353 }, { 21335 } },
  { { 21352 }, { 21335 } }, { { 21358 }, { 21359 } }, { { 21032 }, { 21020, 21021, 21022, 21023, 21024, 21025, 21026, 21027, 21028, 21029 } } }
local PFILE_SUBSETS = { { { 25250 }, { 25248 } }, { { 25252, 25253 }, { 25249 } } }

-- Sums items of a record.
local function isum(r, list, d)
  local n = 0
  for _, i in ipairs(list) do n = n + v(r, i, d) end
  return n
end

-- 7. Storage management: not implemented at zero, subsets, four per FOPEN.
local function files(add, x, since_on)
  for _, n in ipairs(NOT_IMPL_G) do if v(x.g, n) ~= 0 then add("%d (not implemented) is %d", n, v(x.g, n)) end end
  for _, sb in ipairs(FILE_SUBSETS) do
    le(add, table.concat(sb[1], "+") .. " within " .. table.concat(sb[2], "+"), isum(x.g, sb[1]), isum(x.g, sb[2]))
  end
  local opens = 0
  for pid, r in pairs(x.p) do
    for _, sb in ipairs(PFILE_SUBSETS) do
      le(add, "pid " .. pid .. " " .. table.concat(sb[1], "+") .. " within " .. sb[2][1], isum(r, sb[1]), isum(r, sb[2]))
    end
    le(add, "pid " .. pid .. " 25255 within 25256 / 4", 4 * v(r, 25255), v(r, 25256))
    if since_on and (v(r, 25256) % 4 ~= 0 or v(r, 25257) % 4 ~= 0) then
      add("pid %d: 25256/25257 not four per open/close (%d, %d)", pid, v(r, 25256), v(r, 25257))
    end
    opens = opens + v(r, 25256)
  end
  if since_on then le(add, "processes' 25256 within 4 x 21359", opens, 4 * v(x.g, 21359)) end
end

-- Device items by the device types they may move on.
local DISK_ONLY = { 23009, 23010 }
for n = 23025, 23035 do DISK_ONLY[#DISK_ONLY + 1] = n end
for n = 23043, 23053 do DISK_ONLY[#DISK_ONLY + 1] = n end
for n = 23060, 23100 do DISK_ONLY[#DISK_ONLY + 1] = n end
local NON_DISK = { 23004, 23005, 23013, 23014, 23015, 23016, 23022, 23036, 23037 }
local TERM_ONLY = { 23054, 23055, 23056, 23057, 23058, 23059 }
local IO_SUBSETS = { { { 23013 }, { 23004 } }, { { 23015 }, { 23005 } }, { { 23014 }, { 23013 } }, { { 23016 }, { 23015 } },
  { { 23022 }, { 23004, 23005 } }, { { 23048 }, { 23009 } }, { { 23049 }, { 23010 } } }

-- Whether a device item reads nonzero (a class array: any class).
local function moved(r, n)
  local val = v(r, n, "io")
  if type(val) == "table" then for _, c in ipairs(val) do if c ~= 0 then return true end end return false end
  return val ~= 0
end

-- 8. Devices: items on their types only, subsets, histograms against their counts.
local function devices(add, x, types)
  for l, r in pairs(x.io) do
    local t = types[l]
    for _, n in ipairs(NOT_IMPL_IO) do if moved(r, n) then add("ldev %d: %d (not implemented) moved", l, n) end end
    if t ~= "disk" then for _, n in ipairs(DISK_ONLY) do if moved(r, n) then add("ldev %d (%s): disk-only %d moved", l, t, n) end end end
    if t == "disk" then for _, n in ipairs(NON_DISK) do if moved(r, n) then add("ldev %d (disk): non-disk %d moved", l, n) end end end
    if t ~= "terminal" then for _, n in ipairs(TERM_ONLY) do if moved(r, n) then add("ldev %d (%s): terminal-only %d moved", l, t, n) end end end
    for _, sb in ipairs(IO_SUBSETS) do
      le(add, "ldev " .. l .. " " .. table.concat(sb[1], "+") .. " within " .. table.concat(sb[2], "+"), isum(r, sb[1], "io"), isum(r, sb[2], "io"))
    end
    near(add, "ldev " .. l .. " 23046 = 23048 + 23049", v(r, 23046, "io"), v(r, 23048, "io") + v(r, 23049, "io"), 0)
    near(add, "ldev " .. l .. " 23025..23032 = 23009 + 23010", vsum(r, 23025, 23032, "io"), v(r, 23009, "io") + v(r, 23010, "io"), 0)
    local rq, wq = v(r, 23075, "io"), v(r, 23076, "io")
    near(add, "ldev " .. l .. " 23060..23067 = 23075 + 23076", vsum(r, 23060, 23067, "io"), rq + wq, 0)
    near(add, "ldev " .. l .. " 23077..23081 = 23075", vsum(r, 23077, 23081, "io"), rq, 0)
    near(add, "ldev " .. l .. " 23089..23093 = 23075", vsum(r, 23089, 23093, "io"), rq, 0)
    near(add, "ldev " .. l .. " 23082..23086 = 23076", vsum(r, 23082, 23086, "io"), wq, 0)
    near(add, "ldev " .. l .. " 23094..23098 = 23076", vsum(r, 23094, 23098, "io"), wq, 0)
  end
end

-- 5. 27015 and 21318 count the processes that ended.
local function ends(add, x, ended)
  local c = 0
  for _, r in ipairs(x.cpu) do c = c + v(r, 27015, "processor") end
  near(add, "CPUs' 27015 = processes ended", c, ended, 0)
  near(add, "21318 = processes ended", v(x.g, 21318), ended, 0)
end

-- ---------------------------------------------------------------- the runs

-- Runs workload w on ncpu CPUs with seed (and the workload fields of extra); returns the failures.
local function run(w, ncpu, seed, extra)
  local o = { workload = w, cpus = ncpu, seed = seed }
  for k, val in pairs(extra or {}) do o[k] = val end
  local sys = mi.system(o)
  local s = mi.open({ system = sys })
  local list, add = books()
  local ok, err = pcall(function()
    local c = s:config(3042)
    local round = c[3042]
    local types = sys:info().devices
    s:advance(WARM_MS)
    s:on("global", "*")
    s:on("process", "*")
    s:on("io", "*", { ldev = "all" })
    local t_on = sys:info().ticks
    local prev, ended = nil, 0
    for _ = 1, GETS do
      s:advance(STEP_MS)
      local x = sample(s, sys)
      local e = (x.ticks - t_on) // round
      local nlive = 0
      for _, r in pairs(x.p) do if r.pid_state == 0 then nlive = nlive + 1 else ended = ended + 1 end end
      -- a process's measured life: from the later of its birth and the ON to now or its end
      local function life_since(from)
        return function(r)
          local b = math.max(r.start_ticks, from)
          -- (an ended process's end_ticks is not in the records of an ON of "*": now bounds it)
          local stop = r.pid_state == 0 and x.ticks or r.end_ticks or x.ticks
          return (stop - b) // round
        end
      end
      local live = function(r) return r.pid_state == 0 end
      cpu_time(add, x, e, ncpu, 0)
      process_time(add, x, life_since(t_on), live, 0)
      ready_queue(add, x, e, 0)
      levels(add, x, nlive)
      census(add, x)
      objcl(add, x)
      files(add, x, true)
      devices(add, x, types)
      ends(add, x, ended)
      if prev then   -- the same over the interval
        local d = interval(x, prev)
        local de = d.ticks // round
        cpu_time(add, d, de, ncpu, 1)
        process_time(add, d, life_since(prev.ticks), function() return false end, 1)
        ready_queue(add, d, de, 1)
        objcl(add, d)
        files(add, d, false)
        devices(add, d, types)
      end
      prev = x
    end
  end)
  s:close()
  if not ok then add("error: %s", tostring(err)) end
  return list()
end

describe("the simulated HP 3000 keeps the manual's books (core/sim/BOOKS.md)", function()
  it("has every built-in workload to run", function()
    assert.is_true(#mi.workloads() >= 9)
  end)
  for _, w in ipairs(mi.workloads()) do
    for _, ncpu in ipairs(CPUS) do
      for _, seed in ipairs(SEEDS) do
        it(string.format("on %s, %d CPU%s, seed %d", w, ncpu, ncpu > 1 and "s" or "", seed), function()
          assert.same({}, run(w, ncpu, seed))
        end)
      end
    end
  end
  -- the built-in jobs need minutes of CPU: here they end within a second, so processes die
  -- between GETs (27015, 21318, JOB COUNT, the census and the ended processes' lives)
  for _, ncpu in ipairs(CPUS) do
    for _, seed in ipairs(SEEDS) do
      it(string.format("while jobs end (batch, 0.4 s of CPU a job), %d CPU%s, seed %d", ncpu, ncpu > 1 and "s" or "", seed), function()
        assert.same({}, run("batch", ncpu, seed, { job_ms = 400 }))
      end)
    end
  end
end)
