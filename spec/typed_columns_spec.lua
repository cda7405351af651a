-- typed_columns_spec.lua: #31.1 — s:get(domain, items, {columns = "typed"}): the query's own
-- typed columns hold what the default form's records hold, paired by pid (never by position),
-- on the simulator, a host fixture, an attached store and a replayed recording; they are
-- refilled in place as entities come and go; a value not read is nil, never 0; misuse raises.
local mi = require("mi")

-- Asserts that the typed columns cols hold the records recs: the same count, and for each
-- record (found by its pid, or its ldev / processor id) the same value under every key the
-- columns have that the record has too. Returns the number of values compared.
local function same_as_records(recs, cols, id, what)
  assert.is_true(#recs > 0, what .. ": no records to compare")
  local at, n = {}, 0
  for i = 1, #cols[id] do
    local k = cols[id][i]
    if id == "pid" then k = k .. "/" .. cols.start_ticks[i] end
    assert.is_nil(at[k], what .. ": " .. id .. " " .. k .. " twice")
    at[k] = i
  end
  assert.equal(#recs, #cols[id], what .. ": entities")
  for _, r in ipairs(recs) do
    local k = id == "pid" and r.pid .. "/" .. r.start_ticks or r[id]
    local i = at[k]
    assert.is_number(i, what .. ": no row of " .. id .. " " .. tostring(k))
    for key, col in pairs(cols) do
      assert.equal(#cols[id], #col, what .. " column " .. tostring(key))
      if r[key] ~= nil or key == "type" then
        assert.equal(r[key], col[i], what .. " " .. tostring(key) .. " of " .. tostring(k))
        n = n + 1
      end
    end
  end
  return n
end

-- Returns the sum, least and greatest of the field key of recs, and their mean (nil for none).
local function aggregates(recs, key)
  local s, lo, hi = 0, nil, nil
  for _, r in ipairs(recs) do
    local v = r[key]
    s = s + v
    lo = (lo == nil or v < lo) and v or lo
    hi = (hi == nil or v > hi) and v or hi
  end
  if #recs == 0 then return nil end
  return s, lo, hi, s / #recs
end

-- Opens two sessions on sys with the same items on (records and columns are each read by their
-- own session: each is told of a process's death once, so each sees every report).
local function two_sessions(sys, on)
  local a, b = mi.open { system = sys }, mi.open { system = sys }
  for _, s in ipairs({ a, b }) do for _, o in ipairs(on) do assert.is_true(s:on(o[1], o[2], o[3]).ok) end end
  for _, s in ipairs({ a, b }) do for _, o in ipairs(on) do s:get(o[1]) end end   -- (a host re-reads at a session's first GET)
  return a, b
end

describe("#31.1 typed columns", function()
  it("hold the default form's values paired by pid over 30 reads with births and deaths; the same columns are refilled", function()
    local sys = mi.system { workload = "oltp", cpus = 2, seed = 5 }
    local a, b = two_sessions(sys, { { "process", { 25047, 25048, 25060, 25066 } }, { "global", { 21176, 21177, 21313 } },
                                     { "io", { 23000, 23009 }, { ldev = "disk" } } })
    local first, seen, counts, dead, compared = nil, {}, {}, 0, 0
    for round = 1, 30 do
      local recs = a:get("process")
      local cols, st = b:get("process", nil, { columns = "typed" })
      assert.is_table(cols, tostring(st))
      first = first or cols
      assert.equal(first, cols)   -- the query's own table, and its own columns
      for k, col in pairs(cols) do
        if seen[k] then assert.equal(seen[k], col, "column " .. k .. " was replaced") end
        seen[k] = col
      end
      compared = compared + same_as_records(recs, cols, "pid", "process, read " .. round)
      for _, v in cols.state:ipairs() do if v == "dead" then dead = dead + 1 end end
      local s, lo, hi, mean = aggregates(recs, "pmt_process_time")
      local c = cols.pmt_process_time
      assert.same({ s, lo, hi }, { c:sum(), c:min(), c:max() })
      assert.is_true(math.abs(mean - c:mean()) <= 1e-9 * math.abs(mean))
      counts[#cols.pid] = true
      local g, grec = b:get("global", nil, { columns = "typed" }), a:get("global")
      for k, v in pairs(grec) do assert.equal(1, #g[k]); assert.equal(v, g[k][1], "global " .. k) end
      same_as_records(a:get("io"), b:get("io", nil, { columns = "typed" }), "ldev", "io, read " .. round)
      sys:advance(2000)
    end
    assert.is_true(compared > 1000)
    assert.is_true(dead > 0)                 -- processes ended: each reported once, as "dead"
    assert.is_true(next(counts, next(counts)) ~= nil)   -- and the number of processes changed
    -- the names are columns when asked for, equal to the records' (the typed read leads with pid, pid_state and start_ticks only)
    assert.is_nil(first.program_name)
    local named = b:get("process", { "pmt_process_time", "program_name", "user_name", "js_number" }, { columns = "typed" })
    same_as_records(a:get("process", { "pmt_process_time", "program_name", "user_name", "js_number" }), named, "pid", "names")
    assert.is_string(named.program_name[1])
    a:close() b:close() sys:close()
  end)

  it("keep names right as entities come and go at the same rows: a value column refreshes where its row's process changed", function()
    local sys = mi.system { workload = "oltp", cpus = 2, seed = 9 }
    local a, b = two_sessions(sys, { { "process", { 25047 } } })
    local items = { "pid", "program_name", "user_name", "start_date", "start_time" }
    for round = 1, 20 do
      local cols = b:get("process", items, { columns = "typed" })
      same_as_records(a:get("process", items), cols, "pid", "names, read " .. round)
      sys:advance(5000)
    end
    a:close() b:close() sys:close()
  end)

  it("give nil, never 0, for an item not read: values, sum, min, max and mean; an emptied column's aggregates are nil", function()
    local s, sys = H.session({ seed = 3 })
    assert.is_true(s:on("process", { 25047 }).ok)
    local cols, st = s:get("process", { 25047, 25048 }, { columns = "typed" })
    assert.is_table(cols)
    assert.equal(0, st.items[1])
    assert.is_true(st.items[2] < 0)   -- 25048 is not on
    local miss = cols.pmt_ready_queue or cols[25048]
    assert.is_true(#miss > 0)
    assert.equal(#cols.pid, #miss)
    for _, f in ipairs({ "sum", "min", "max", "mean" }) do assert.is_nil(miss[f](miss), f) end
    assert.is_nil(miss[1])
    assert.same({}, miss:totable())
    local n = 0
    for i, v in miss:ipairs() do n = i; assert.is_nil(v) end
    assert.equal(#miss, n)
    assert.matches("missing", tostring(miss))
    assert.is_not_nil(cols.pmt_process_time:sum())   -- the item that was read has values
    -- one process, then a pid that does not exist: the same columns, emptied, never stale
    local one = s:get("process", nil, { pid = cols.pid[1], columns = "typed" })
    assert.equal(1, #one.pid)
    local t = one.pmt_process_time
    assert.equal(cols.pid[1], one.pid[1])
    assert.is_nil(s:get("process", nil, { pid = 424242, columns = "typed" }))
    assert.equal(0, #t)
    assert.is_nil(t[1])
    for _, f in ipairs({ "sum", "min", "max", "mean" }) do assert.is_nil(t[f](t), f) end
    s:close() sys:close()
  end)

  it("grow when more entities come than the first read had room for, and hold object-class counters as tables", function()
    local sys = mi.system { workload = "oltp", cpus = 2, seed = 7 }
    local a, b = two_sessions(sys, { { "process", { 25047, 25202 } } })
    local all = a:get("process")
    local one = b:get("process", nil, { pid = all[#all].pid, columns = "typed" })   -- room for one process
    assert.equal(1, #one.pid)
    local pid = one.pid
    for round = 1, 3 do
      sys:advance(3000)
      local recs, cols = a:get("process"), b:get("process", nil, { columns = "typed" })
      assert.equal(one, cols)
      assert.equal(pid, cols.pid)
      assert.is_true(#cols.pid > 1)
      local at = {}
      for i = 1, #cols.pid do at[cols.pid[i] .. "/" .. cols.start_ticks[i]] = i end
      local objcl, n = cols.pmc_pg_fault_objcl_, 0
      for _, r in ipairs(recs) do
        local i = at[r.pid .. "/" .. r.start_ticks]
        assert.equal(r.pmt_process_time, cols.pmt_process_time[i])
        assert.same(r.pmc_pg_fault_objcl_, objcl[i])
        n = n + 1
      end
      assert.equal(#recs, n)
      assert.has_error(function() objcl:sum() end)
    end
    a:close() b:close() sys:close()
  end)

  it("index from 1: col[i] past the end is nil; totable and ipairs give the values in order", function()
    local s, sys = H.session({ seed = 4 })
    assert.is_true(s:on("process", { 25047 }).ok)
    sys:advance(2000)
    local cols = s:get("process", nil, { columns = "typed" })
    local pid = cols.pid
    local n = #pid
    assert.is_true(n > 1)
    assert.is_nil(pid[n + 1])
    assert.equal(pid[n], pid[n * 1.0])
    local t = pid:totable()
    assert.equal(n, #t)
    local k = 0
    for i, v in pid:ipairs() do k = k + 1; assert.equal(t[i], v); assert.equal(i, k) end
    assert.equal(n, k)
    for i, v in ipairs(pid) do assert.equal(t[i], v) end   -- Lua's ipairs reads through __index too
    assert.matches("^column pid: " .. n .. " integers$", tostring(pid))
    assert.matches("^column state: " .. n .. " states$", tostring(cols.state))
    -- a column the caller took out of the table: the next read makes the set anew
    cols.pid = nil
    local again = s:get("process", nil, { columns = "typed" })
    assert.equal(n, #again.pid)
    assert.equal(t[1], again.pid[1])
    s:close() sys:close()
  end)

  local errors = {
    { "index 0", function(c) return c.pid[0] end, "bad index 0 to a column %(indexes start at 1%)" },
    { "a negative index", function(c) return c.pid[-3] end, "bad index %-3 to a column" },
    { "a fraction", function(c) return c.pid[1.5] end, "an integer from 1 expected, got a number with a fraction" },
    { "a table as index", function(c) return c.pid[{}] end, "an integer from 1 expected, got table" },
    { "an assignment", function(c) c.pid[1] = 5 end, "a column is read%-only" },
    { "sum of states", function(c) return c.state:sum() end, "column 'state' holds names, not numbers" },
    { "max of names", function(c) return c.program_name:max() end, "column 'program_name' holds strings or tables, not numbers" },
    { "a method on no column", function(c) return c.pid.sum(5) end, "mi.column expected, got number" },
    { "columns = 'typd'", function(_, s) return s:get("process", nil, { columns = "typd" }) end, "bad option 'columns' to 'get'" },
    { "typed with into", function(_, s) return s:get("process", nil, { columns = "typed", into = {} }) end,
      "into does not combine with them" },
  }
  for _, e in ipairs(errors) do
    it("raise a clear error: " .. e[1], function()
      local s, sys = H.session({ seed = 2 })
      assert.is_true(s:on("process", { 25047 }).ok)
      local cols = s:get("process", { 25047, "program_name" }, { columns = "typed" })
      local ok, err = pcall(e[2], cols, s)
      assert.is_false(ok)
      assert.matches(e[3], err)
      s:close() sys:close()
    end)
  end

  it("raise once their session or system is closed (the values went with it)", function()
    local s, sys = H.session({ seed = 2 })
    assert.is_true(s:on("process", { 25047 }).ok)
    local cols = s:get("process", nil, { columns = "typed" })
    local other = mi.open { system = sys }
    assert.is_true(other:on("process", { 25047 }).ok)
    local c2 = other:get("process", nil, { columns = "typed" })
    s:close()
    for _, f in ipairs({ function() return cols.pid[1] end, function() return #cols.pid end, function() return cols.pid:sum() end,
                         function() return cols.state:totable() end, function() return cols.pid:ipairs() end }) do
      local ok, err = pcall(f)
      assert.is_false(ok)
      assert.matches("column '%w+' is of a closed session", err)
    end
    assert.matches("closed", tostring(cols.pid))
    assert.is_true(#c2.pid > 0)   -- another session's columns still read
    sys:close()
    local ok, err = pcall(function() return c2.pid[1] end)
    assert.is_false(ok)
    assert.matches("column 'pid' is of a closed system", err)
  end)

  it("a host fixture: the typed columns hold the records' values", function()
    local dir = H.fixture_copy("host_forks", finally)
    local sys = mi.system({ host = true, proc = dir .. "/proc", age_ms = 3600000 })
    local a, b = two_sessions(sys, { { "process", { 25047, 25048 } }, { "global", { 21176 } } })
    local items = { 25047, 25048, "program_name", "user_name" }
    assert.is_true(same_as_records(a:get("process", items), b:get("process", items, { columns = "typed" }), "pid", "host") > 0)
    a:close() b:close() sys:close()
  end)

  it("refuse a host's processors past the MI's 8 (they are not in the typed columns): the error names columns = true", function()
    local dir = H.fixture_copy("host_cpu64", finally)
    local sys = mi.system({ host = true, proc = dir .. "/proc", age_ms = 0 })
    local s = mi.open({ system = sys })
    assert.is_true(s:on("global", { 21164 }).ok)
    local ok, err = pcall(s.get, s, "processor", nil, { columns = "typed" })
    assert.is_false(ok)
    assert.matches("this host has 64: use columns = true", err)
    assert.equal(64, #s:get("processor", nil, { columns = true }).processor_id)
    s:close() sys:close()
  end)

  it("an attached store: the typed columns read the owner's values", function()
    local sys, own, att = H.shared_owner()
    local a, b = two_sessions(att, { { "process", { 25047, 25060 } } })
    for round = 1, 3 do
      same_as_records(a:get("process"), b:get("process", nil, { columns = "typed" }), "pid", "attached, read " .. round)
      sys:advance(1000)
    end
    a:close() b:close() att:close() own:close() sys:close()
  end)

  it("a replayed recording: the typed columns agree with the records at every sample", function()
    local sys = mi.replay("spec/record_v1.mir")
    local a, b = two_sessions(sys, { { "process", { 25047 } } })
    local steps = 0
    repeat
      same_as_records(a:get("process"), b:get("process", nil, { columns = "typed" }), "pid", "replay, sample " .. steps)
      steps = steps + 1
    until mi.core.replay_step(sys, 1000) == 0 or steps == 10
    assert.is_true(steps >= 2)
    a:close() b:close() sys:close()
  end)
end)
