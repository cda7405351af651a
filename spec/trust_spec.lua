-- trust_spec.lua: issue #30, numbers a user can trust — deltas pair entities by identity,
-- a failed PUT is nil, Status, read-active contexts are bound to what they continue, and an
-- interval that measured nothing prints as missing. Each describe names its point.
local mi = require("mi")

-- A simulated system whose batch jobs end and log on again every few hundred ms of CPU: processes
-- are born and die between any two reads, and pids are reused.
local function churn(seed, over)
  local o = { workload = "batch", seed = seed or 7, job_ms = 300, jobs = 12, cpus = 2 }
  for k, v in pairs(over or {}) do o[k] = v end
  return mi.open({ system = mi.system(o) })
end
-- The records of a list keyed by pid and start time.
local function by_id(list)
  local t = {}
  for _, r in ipairs(list) do t[r.pid .. "@" .. r.start_ticks] = r end
  return t
end
-- The list in reverse order.
local function reversed(list)
  local out = {}
  for i = #list, 1, -1 do out[#out + 1] = list[i] end
  return out
end

describe("#30.1 mi.delta pairs entities by identity, never by position", function()
  it("pairs process records by pid and start time when processes are born and die between reads", function()
    local s = churn()
    finally(function() s:close() end)
    s:on("process", { "pmt_process_time" })
    local a = s:get("process")
    s:advance(2000)
    local b = s:get("process")
    local old, new = by_id(a), by_id(b)
    local d = mi.delta(b, a)
    local paired, born = 0, 0
    assert.is_true(#d > 0)
    for _, r in ipairs(d) do
      local id = r.pid .. "@" .. r.start_ticks
      if old[id] and new[id] then
        paired = paired + 1
        assert.is_nil(r.born)
        assert.equal(mi.delta(new[id].pmt_process_time, old[id].pmt_process_time), r.pmt_process_time)
      elseif new[id] then
        born = born + 1
        assert.is_true(r.born)
      else
        assert.is_true(r.died)
      end
    end
    assert.is_true(paired > 0)
    assert.is_true(born > 0)   -- the workload did churn
  end)

  it("gives the same delta whatever the order of the records", function()
    local s = churn(11)
    finally(function() s:close() end)
    s:on("process", { "pmt_process_time" })
    local a = s:get("process")
    s:advance(1500)
    local b = s:get("process")
    local d1, d2 = by_id(mi.delta(b, a)), by_id(mi.delta(reversed(b), a))
    local n = 0
    for id, r in pairs(d1) do
      n = n + 1
      assert.equal(r.pmt_process_time, d2[id].pmt_process_time)
      assert.equal(r.born, d2[id].born)
    end
    assert.is_true(n > 0)
  end)

  it("keeps a process born inside the interval with its values since birth and born = true", function()
    local s = churn(3)
    finally(function() s:close() end)
    s:on("process", { "pmt_process_time" })
    local a = s:get("process")
    local t0 = s.sys:now()
    s:advance(2000)
    local b = s:get("process")
    local old = by_id(a)
    local n = 0
    for _, r in ipairs(mi.delta(b, a)) do
      if not old[r.pid .. "@" .. r.start_ticks] then
        n = n + 1
        assert.is_true(r.born)
        assert.is_true(r.start_ticks >= t0)
        local cur = by_id(b)[r.pid .. "@" .. r.start_ticks]
        assert.equal(cur.pmt_process_time, r.pmt_process_time)   -- since birth: its counters began at 0
        assert.is_true(s:ms(r.pmt_process_time) <= 2000)
      end
    end
    assert.is_true(n > 0)
  end)

  it("reports a process the new list lacks as died = true, with no totals and its identity", function()
    local s = churn(5)
    finally(function() s:close() end)
    s:on("process", { "pmt_process_time" })
    local a = s:get("process")
    s:advance(1000)
    local b = s:get("process")
    local gone = table.remove(b, 1)   -- as if it had ended unreported
    local found
    for _, r in ipairs(mi.delta(b, a)) do if r.pid == gone.pid and r.start_ticks == gone.start_ticks then found = r end end
    assert.is_table(found)
    assert.is_true(found.died)
    assert.is_nil(found.pmt_process_time)
    assert.equal(gone.program_name, found.program_name)
  end)

  it("marks a process whose new record is its death report died = true, with its delta", function()
    local s = churn(7)
    finally(function() s:close() end)
    s:on("process", { "pmt_process_time" })
    local a = s:get("process")
    s:advance(2000)
    local b = s:get("process")
    local old, n = by_id(a), 0
    for _, r in ipairs(mi.delta(b, a)) do
      if r.state == "dead" and old[r.pid .. "@" .. r.start_ticks] then
        n = n + 1
        assert.is_true(r.died)
        assert.is_number(r.pmt_process_time)
      end
    end
    assert.is_true(n > 0)
  end)

  it("pairs device records by LDEV and processor records by CPU id", function()
    local s = churn(2)
    finally(function() s:close() end)
    s:on("io", { "imc_completed_read" })
    s:on("global", { "gmc_pauses", "gmt_idle" })
    s:advance(2000)   -- the old readings are not all 0
    local io0, cpu0 = s:get("io"), s:get("processor")
    s:advance(3000)
    local io1, cpu1 = s:get("io"), s:get("processor")
    local old = {}
    for _, r in ipairs(io0) do old[r.ldev] = r end
    local d = mi.delta(reversed(io1), io0)
    assert.is_true(#d > 1)
    for _, r in ipairs(d) do
      local cur
      for _, c in ipairs(io1) do if c.ldev == r.ldev then cur = c end end
      assert.equal(cur.imc_completed_read - old[r.ldev].imc_completed_read, r.imc_completed_read)
    end
    local moved = 0
    for _, r in ipairs(d) do moved = moved + r.imc_completed_read end
    assert.is_true(moved > 0, "the discs read something in the interval (the pairing is tested on moving values)")
    local dc = mi.delta(reversed(cpu1), cpu0)
    assert.equal(2, #dc)
    for _, r in ipairs(dc) do
      local o, c = cpu0[r.processor_id + 1], cpu1[r.processor_id + 1]
      assert.equal(r.processor_id, c.processor_id)
      assert.equal(c.gmt_idle - o.gmt_idle, r.gmt_idle)
    end
  end)

  it("pairs lists inside tables too (s:sample's sampler returns {procs = ..., ms = ...})", function()
    local s = churn(13)
    finally(function() s:close() end)
    s:on("process", { "pmt_process_time" })
    s.virtual = true
    local n = 0
    s:sample(1, 4, function() return { procs = s:get("process") } end, function(d, _, ms)
      for _, r in ipairs(d.procs) do
        if r.pmt_process_time then
          n = n + 1
          assert.is_true(s:ms(r.pmt_process_time) <= ms, "pid " .. r.pid .. ": " .. r.pmt_process_time)
        end
      end
    end)
    assert.is_true(n > 0)
  end)

  it("mi.rate of a delta list gives each entity's rates with its identity and born/died flags", function()
    local s = churn(17)
    finally(function() s:close() end)
    s:on("process", { "pmt_process_time", "pmc_disc_read" })
    local a = s:get("process")
    s:advance(2000)
    local b = s:get("process")
    local d = mi.delta(b, a)
    local r = mi.rate(d, 2000)
    assert.equal(#d, #r)
    local born = 0
    for i, x in ipairs(r) do
      assert.equal(d[i].pid, x.pid)
      assert.equal(d[i].program_name, x.program_name)
      assert.equal(d[i].born, x.born)
      if x.born then born = born + 1 end
      if d[i].pmc_disc_read then assert.equal(d[i].pmc_disc_read / 2, x.pmc_disc_read) end
    end
    assert.is_true(born > 0)
    assert.equal(2.5, mi.rate(5, 2000))
  end)

  it("cli.process_rates takes a reused pid for another process (born: counted from zero)", function()
    local cli = require("mi.cli")
    local s = churn(19)
    finally(function() s:close() end)
    s:on("process", { "pmt_process_time" })
    local mt = getmetatable(s:get("process")[1])
    local old = setmetatable({ pid = 5, start_ticks = 100, pmt_process_time = 900 }, mt)
    local new = setmetatable({ pid = 5, start_ticks = 200, pmt_process_time = 30, program_name = "X", user_name = "U", js_number = "" }, mt)
    local rows = cli.process_rates(s, { [5] = old }, { [5] = new }, 1000)
    assert.equal(1, #rows)
    assert.near(mi.pct(s:ms(30), 1000), rows[1].cpu_pct, 1e-9)   -- not 900 taken from another process's 30
  end)

  -- The property: over random sequences of births and deaths, the delta of any two process reads
  -- never gives a process more CPU time than the time between them.
  it("never gives a process more CPU time than elapsed between any two reads (random churn)", function()
    local rng_seed = 3030
    math.randomseed(rng_seed)
    local checked = 0
    for run = 1, 6 do
      local seed = math.random(1, 1e6)
      local s = churn(seed, { jobs = math.random(4, 30), job_ms = math.random(50, 2000), cpus = math.random(1, 4),
        job_cpu_ms = math.random(5, 200) })
      s:on("process", { "pmt_process_time" })
      local reads, at = {}, 0
      for _ = 1, 6 do
        reads[#reads + 1] = { list = s:get("process"), ms = at }
        local step = math.random(50, 3000)
        s:advance(step)
        at = at + step
      end
      for i = 1, #reads do
        for j = i + 1, #reads do
          local elapsed = reads[j].ms - reads[i].ms
          for _, r in ipairs(mi.delta(reads[j].list, reads[i].list)) do
            if r.pmt_process_time then
              checked = checked + 1
              assert(s:ms(r.pmt_process_time) <= elapsed + 1, string.format(
                "rng %d run %d (seed %d) reads %d..%d: pid %d %s %s has %.1f ms of CPU in %d ms", rng_seed, run, seed, i, j,
                r.pid, r.born and "born" or "", r.died and "died" or "", s:ms(r.pmt_process_time), elapsed))
            end
          end
        end
      end
      s:close()
    end
    assert.is_true(checked > 0)
  end)
end)

describe("#30.8 a PUT is all or nothing: any failed PUT is nil, Status", function()
  it("refuses assert(s:put{JOB_FENCE = 99}) and writes nothing", function()
    local s = H.session()
    finally(function() s:close() end)
    local before = s:config("JOB_FENCE").JOB_FENCE
    assert.has_error(function() assert(s:put({ JOB_FENCE = 99 })) end)
    local none, st = s:put({ JOB_FENCE = 99 })
    assert.is_nil(none)
    assert.is_false(st.ok)
    assert.equal(-3005, st.items.JOB_FENCE.code)
    assert.equal(before, s:config("JOB_FENCE").JOB_FENCE)
  end)
  it("writes none of the good items when one item fails", function()
    local s = H.session()
    finally(function() s:close() end)
    local before = s:config("JOB_FENCE").JOB_FENCE
    local none, st = s:put({ JOB_FENCE = (before + 1) % 15, SESSION_LIMIT = -5 })
    assert.is_nil(none)
    assert.equal(0, st.items.JOB_FENCE.code)
    assert.equal(-3007, st.items.SESSION_LIMIT.code)
    assert.equal(before, s:config("JOB_FENCE").JOB_FENCE)
  end)
  it("still returns a true Status for a PUT that wrote", function()
    local s = H.session()
    finally(function() s:close() end)
    local st = assert(s:put({ JOB_FENCE = 3 }))
    assert.is_true(st.ok)
    assert.equal(3, s:config("JOB_FENCE").JOB_FENCE)
  end)
end)

describe("#30.9 read-active: EXACT steps with its context; a context is bound to what it continues", function()
  local function sess(seed)
    local s = H.session({ workload = "oltp", seed = seed or 42 })
    assert(s:on("process", { "pmt_process_time" }))
    return s
  end
  it("EXACT returns one match per call and a context to the next, until every match was given", function()
    local s = sess()
    finally(function() s:close() end)
    local all = s:read_active("process", nil, { include = { { program = "CI" } } })
    assert.is_true(#all > 2)
    local seen, ctx, calls = {}, nil, 0
    repeat
      local recs, st
      recs, ctx, st = s:read_active("process", nil, { mode = "exact", include = { { program = "CI" } }, context = ctx })
      assert.is_true(st.ok)
      assert.equal(1, #recs)
      assert.is_nil(seen[recs[1].pid])
      seen[recs[1].pid] = true
      calls = calls + 1
    until not ctx or calls > 1000
    assert.equal(#all, calls)
    for _, r in ipairs(all) do assert.is_true(seen[r.pid]) end
  end)
  it("refuses a context from another selection, another session or another domain (BAD_CONTEXT, nothing read)", function()
    local s = sess()
    finally(function() s:close() end)
    local _, ctx = s:read_active("process", nil, { max = 2, include = { { program = "CI" } } })
    assert.is_number(ctx)
    local recs, c2, st = s:read_active("process", nil, { max = 2, include = { { program = "ORDERS" } }, context = ctx })
    assert.is_nil(recs); assert.is_nil(c2)
    assert.equal("BAD_CONTEXT", st.name)
    assert.truthy(tostring(st):find("another", 1, true) or tostring(st):find("this session", 1, true), tostring(st))
    local other = mi.open({ system = s.sys })
    finally(function() other:close(); s:close() end)
    assert(other:on("process", { "pmt_process_time" }))
    local r2, _, st2 = other:read_active("process", nil, { max = 2, include = { { program = "CI" } }, context = ctx })
    assert.is_nil(r2)
    assert.equal("BAD_CONTEXT", st2.name)
    assert(s:on("io", { "imc_completed_read" }))
    local r3, _, st3 = s:read_active("ldev", nil, { max = 2, context = ctx })
    assert.is_nil(r3)
    assert.equal("BAD_CONTEXT", st3.name)
    -- the iteration it came from goes on with it
    local r4, _, st4 = s:read_active("process", nil, { max = 2, include = { { program = "CI" } }, context = ctx })
    assert.is_true(st4.ok)
    assert.equal(2, #r4)
  end)
  it("says a bad option in the user's words: the option, the allowed values, no internal name", function()
    local s = sess()
    finally(function() s:close() end)
    local cases = {
      { function() return s:read_active("process", nil, { mode = "bogus" }) end, "bad option 'mode' to 'read_active' ('list', 'exact' or 'changed' expected, got 'bogus')" },
      { function() return s:read_active("process", nil, { max = "x" }) end, "bad option 'max' to 'read_active'" },
      { function() return s:read_active("process", nil, { max = 0 }) end, "bad option 'max' to 'read_active'" },
      { function() return s:read_active("process", nil, { context = 1.5 }) end, "bad option 'context' to 'read_active'" },
      { function() for _ in s:active("process", nil, { mode = "bogus" }) do end end, "bad option 'mode' to 'read_active'" },
      { function() return s:read_active("process", nil, { include = { { pid = "x" } } }) end, "include[1].pid" },
      { function() return s:get("process", nil, { pid = "x" }) end, "bad option 'pid' to 'get'" },
      { function() return s:get("processor", nil, { cpu = "x" }) end, "bad option 'cpu' to 'get'" },
      { function() return s:on("process", { "pmt_process_time" }, { pid = "x" }) end, "bad option 'pid' to 'on'" },
      { function() return s:off("process", { pid = "x" }) end, "bad option 'pid' to 'off'" },
      { function() return s:on("io", { "imc_completed_read" }, { ldev = {} }) end, "bad device (a table)" },
      { function() return s:time({ ticks = "x" }) end, "bad option 'ticks' to 'time'" },
      { function() return s:time({ micro = {} }) end, "bad option 'micro' to 'time'" },
      { function() return s:advance("x") end, "bad argument #1 to 'advance'" },
      { function() return mi.openmetrics(s, { pids = "x" }) end, "bad option 'pids' to 'openmetrics'" },
    }
    for _, c in ipairs(cases) do
      local ok, err = pcall(c[1])
      assert.is_false(ok, c[2])
      err = tostring(err)
      assert.truthy(err:find(c[2], 1, true), err)
      assert.falsy(err:find("mi.core", 1, true), err)
      assert.falsy(err:find("mi/[%w_]+%.lua:%d"), err)
      assert.falsy(err:find("mi_core", 1, true), err)
      assert.falsy(err:find("table: 0x", 1, true), err)
    end
  end)
end)

describe("#30.2 an interval that measured nothing prints as missing, never as 100% busy", function()
  -- Runs a script of scripts/ on a host whose --proc is an empty directory; returns stdout, stderr, exit ok.
  local function on_fake_proc(script, args)
    local dir = H.tmp_path("proc")
    assert(os.execute("mkdir " .. dir))
    local errf = H.tmp_path("err")
    local ok_, out, ok = pcall(function()
      local f = io.popen(string.format("lua/mish --system host --proc %s scripts/%s.lua --count 2 --interval 0.1 %s 2>%s",
        dir, script, args or "", errf))
      local o = f:read("a")
      return o, f:close()
    end)
    local ef = io.open(errf)
    local err = ef and ef:read("a") or ""
    if ef then ef:close() end
    os.remove(errf)
    os.remove(dir)
    assert(ok_, out)
    return out, err, ok
  end
  -- The number of times s holds plain.
  local function count(s, plain)
    local n, at = 0, 1
    while true do
      local i = s:find(plain, at, true)
      if not i then return n end
      n, at = n + 1, i + 1
    end
  end

  it("cpu: no 100% busy, every figure '-', one stderr line saying why, in a table, CSV and JSON", function()
    local out, err, ok = on_fake_proc("cpu")
    assert.is_true(ok)
    assert.falsy(out:find("100.0", 1, true), out)
    assert.truthy(out:find("\nall +%- +%- +%-"), out)
    assert.equal(1, count(err, "nothing measured"), err)
    assert.truthy(err:find("the host source read nothing", 1, true), err)
    local csv = on_fake_proc("cpu", "--csv")
    assert.truthy(csv:find(",all,,,,,,,,,,,\n", 1, true), csv)
    local json = on_fake_proc("cpu", "--json")
    assert.truthy(json:find('"busy":null', 1, true), json)
    assert.falsy(json:find('"busy":100', 1, true), json)
  end)

  for _, script in ipairs({ "top", "glance", "disk", "response", "sem" }) do
    it(script .. ": no made-up figure, one stderr line saying why, exit 0", function()
      local out, err, ok = on_fake_proc(script)
      assert.is_true(ok, err)
      assert.equal(1, count(err, "nothing measured"), err)
      assert.falsy(err:find("attempt to", 1, true), err)
      -- no row of figures holds a number: every figure column reads "-"
      for line in out:gmatch("[^\n]+") do
        assert.falsy(line:find("^%s*all%s+[%d.]+"), line)
        assert.falsy(line:find("%s0%.0%s"), line)
      end
    end)
  end

  it("a frozen replay (no time passes in the measured system) prints '-' and says so", function()
    local file, errf = H.tmp_path("frozen.mir"), H.tmp_path("err")
    finally(function() os.remove(file); os.remove(errf) end)
    -- a replay paced by the wall clock (--speed 1) whose next sample is a recorded minute away: the
    -- store shows one sample through the run (a replay stepped by its sleeps never freezes, #30.3)
    local sys = mi.system({ workload = "oltp", cpus = 2, seed = 42 })
    local r = mi.record({ system = sys, path = file, fsync = "none" })
    sys:advance(60000)
    assert(r:sample())
    r:close()
    sys:close()
    local f = io.popen("lua/mish --replay " .. file .. " --speed 1 scripts/cpu.lua --count 2 --interval 0.1 2>" .. errf)
    local out = f:read("a")
    f:close()
    local ef = io.open(errf)
    local err = ef:read("a")
    ef:close()
    assert.falsy(out:find("100.0", 1, true), out)
    assert.truthy(out:find("\nall +%- +%-"), out)
    assert.truthy(err:find("no time passed in the measured system", 1, true), err)
  end)

  it("mi.cli writes a missing figure as '-' / null / an empty CSV field and leaves it out of the Average", function()
    local cli = require("mi.cli")
    assert.equal("null", cli.json(cli.NONE))
    assert.equal('{"a":null,"b":1}', cli.json({ a = cli.NONE, b = 1 }))
    local rows = cli.blank({ { cpu = 0, busy = 50.0, name = "x" } }, { "cpu" })
    assert.equal(0, rows[1].cpu)
    assert.equal(cli.NONE, rows[1].busy)
    assert.equal("x", rows[1].name)
    local buf = {}
    local sink = { write = function(_, ...) for _, v in ipairs({ ... }) do buf[#buf + 1] = v end end, flush = function() end }
    local o = cli.output({}, { { "cpu", "cpu" }, { "busy", "busy%", "%.1f" } }, sink)
    o.write({ { cpu = 0, busy = 40.0 } }, { time = false })
    o.write({ { cpu = 0, busy = cli.NONE } }, { time = false })
    o.finish()
    local text = table.concat(buf)
    assert.truthy(text:find("\n +0 +%-\n"), text)
    assert.truthy(text:find("Average of 2 samples", 1, true), text)
    assert.truthy(text:find("\n +0 +40%.0\n\n$"), text)   -- the average of the measured interval alone
  end)

  it("mi.cli's one-report stream (summary.lua) prints its rows as any stream does and keeps no Average", function()
    local cli = require("mi.cli")
    local cols = { { "cpu", "cpu" }, { "name", "name" }, { "busy", "busy%", "%.1f" } }
    local rows = { { cpu = 0, name = "a", busy = 40.0 }, { cpu = 1, name = "bb", busy = cli.NONE } }
    local texts = {}
    for k, report in ipairs({ false, true }) do
      local buf = {}
      local sink = { write = function(_, ...) for _, v in ipairs({ ... }) do buf[#buf + 1] = v end end, flush = function() end }
      local o = cli.output({}, cols, sink, report)
      o.write(rows, { time = false, title = "t" })
      texts[k] = table.concat(buf)
      o.finish()
      if report then assert.equal(texts[k], table.concat(buf)) end   -- finish added nothing
    end
    assert.equal("t\ncpu  name  busy%\n  0  a      40.0\n  1  bb        -\n\n", texts[2])
    assert.equal(texts[1], texts[2])
  end)
end)
