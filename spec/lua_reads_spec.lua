-- lua_reads_spec.lua: #31.1 — s:get's reused and columnar results (opts.into, opts.columns) hold
-- what the default form returns, on every kind of system (simulator, host, attached store,
-- replay); a reused record always stays its own entity's; nothing stale is left behind.
local mi = require("mi")

-- Asserts that two records hold the same keys and values and are records of the same domain.
local function domain_of(r) return rawget(getmetatable(r), "domain") end
local function same_record(a, b, what)
  assert.equal(domain_of(a), domain_of(b), what)
  assert.is_string(domain_of(b), what)
  local n = 0
  for k, v in pairs(a) do assert.equal(v, b[k], what .. " " .. tostring(k)); n = n + 1 end
  for k in pairs(b) do assert.is_not_nil(a[k], what .. " " .. tostring(k) .. " only in the reused record") end
  return n
end

-- Asserts that the columns table cols holds the records recs transposed (keys and lengths).
local function same_columns(recs, cols, what)
  assert.is_true(#recs > 0, what .. ": no records to compare")
  for k, col in pairs(cols) do
    assert.equal(#recs, #col, what .. " column " .. tostring(k))
    for i, r in ipairs(recs) do
      local v = r[k]
      if v == nil and k == "type" then v = false end   -- an I/O device without a type
      assert.equal(v, col[i], what .. " " .. tostring(k) .. "[" .. i .. "]")
    end
  end
  for k in pairs(recs[1]) do assert.is_table(cols[k], what .. ": no column " .. tostring(k)) end
end

-- Opens four sessions on sys with the same items on, each read once (each session is told of
-- a process's death once: the forms are read each by its own session, so each sees every report).
local function sessions(sys, on)
  local ss = {}
  for k = 1, 4 do
    ss[k] = mi.open { system = sys }
    for _, o in ipairs(on) do assert.is_true(ss[k]:on(o[1], o[2], o[3]).ok) end
  end
  for k = 1, 4 do for _, o in ipairs(on) do ss[k]:get(o[1]) end end   -- (a host re-reads at a session's first GET)
  return ss
end

-- Reads domain in the three forms (into and columns reusing t and c), each by its own session
-- of ss, and compares them; the system must not move meanwhile. Returns the default records.
local function three_forms(ss, domain, t, c, what)
  local recs, st = ss[1]:get(domain)
  assert.is_table(recs, what .. ": " .. tostring(st))
  local got = ss[2]:get(domain, nil, { into = t })
  assert.equal(t, got)
  local cols = ss[3]:get(domain, nil, { columns = true, into = c })
  assert.equal(c, cols)
  if domain == "global" then
    assert.is_true(same_record(recs, t, what .. " into") > 0)
    for k, v in pairs(recs) do assert.same({ v }, c[k], what .. " column " .. tostring(k)) end
    return recs
  end
  assert.equal(#recs, #t, what .. ": records of the reused table")
  for i, r in ipairs(recs) do same_record(r, t[i], what .. " into [" .. i .. "]") end
  same_columns(recs, cols, what .. " columns")
  local fresh = ss[4]:get(domain, nil, { columns = true })
  same_columns(recs, fresh, what .. " new columns")
  return recs
end

-- The identity of a process record (a reused table must keep it).
local function ident(r) return r.pid .. "/" .. r.start_ticks end

describe("#31.1 s:get into a reused table and as columns", function()
  it("#31.1 the simulator: every form holds the default form's values over 30 reads with births and deaths; a reused record keeps its entity", function()
    local s, sys = H.session({ workload = "oltp", seed = 5 })
    local ss = sessions(sys, { { "process", { 25047, 25048, 25060, 25066 } }, { "global", { 21176, 21177, 21178, 21313 } },
                               { "io", { 23000, 23009 }, { ldev = "disk" } } })
    assert.is_true(s:on("process", { 25047 }).ok)
    local t, c, gt, gc, it, ic = {}, {}, { junk = 1 }, {}, {}, {}
    local owner, reused, changed = {}, 0, 0
    for round = 1, 30 do
      local pids = {}
      local recs = three_forms(ss, "process", t, c, "process, read " .. round)
      for _, r in ipairs(recs) do pids[ident(r)] = true end
      for _, r in ipairs(t) do   -- a table seen before holds the same entity as before
        if owner[r] then assert.equal(owner[r], ident(r)); reused = reused + 1 end
        owner[r] = ident(r)
      end
      three_forms(ss, "global", gt, gc, "global, read " .. round)
      three_forms(ss, "io", it, ic, "io, read " .. round)
      sys:advance(2000)
      local after = s:get("process")
      for _, r in ipairs(after) do if not pids[ident(r)] then changed = changed + 1 end end
    end
    assert.is_nil(gt.junk)                -- a key of no record of the query is gone
    assert.is_true(reused > 100)          -- records of the same processes were reused
    assert.is_true(changed > 0)           -- and processes came and went meanwhile
  end)

  it("#31.1 a reused table loses its stale entries: records past the new count, foreign keys of columns, records of another query", function()
    local s = H.session({ workload = "oltp", seed = 6 })
    assert.is_true(s:on("process", { 25047, 25048 }).ok)
    local n = #s:get("process")
    assert.is_true(n > 0)
    local t = {}
    for i = 1, n + 500 do t[i] = { pid = i } end
    s:get("process", nil, { into = t })
    assert.equal(n, #t)
    assert.is_nil(t[n + 1])
    assert.is_nil(next(t, #t > 0 and n or nil) and rawget(t, n + 1))
    for _, r in ipairs(t) do assert.is_string(r.state) end   -- the foreign tables were replaced
    -- records of a query of other items are not reused: they would keep the other items
    local other = s:get("process", { 25047 }, { into = {} })
    local first = other[1]
    s:get("process", nil, { into = other })
    assert.is_not.equal(first, other[1])
    assert.is_not_nil(other[1].pmc_disc_write or other[1][25048])
    local c = { junk = { 1, 2, 3 } }
    s:get("process", nil, { columns = true, into = c })
    assert.is_nil(c.junk)
    assert.equal(n, #c.pid)
  end)

  it("#31.1 into and columns refuse what they cannot do: into not a table, with include/exclude", function()
    local s = H.session()
    assert.is_true(s:on("process", { 25047 }).ok)
    local ok, err = pcall(s.get, s, "process", nil, { into = 5 })
    assert.is_false(ok)
    assert.matches("bad option 'into' to 'get'", err)
    ok, err = pcall(s.get, s, "process", nil, { columns = true, include = { { pid = 1 } } })
    assert.is_false(ok)
    assert.matches("do not combine with include or exclude", err)
  end)

  it("#31.1 an interned name follows its process: a new program at the same pid (exec), a pid reused by another process", function()
    local root = os.tmpname()
    os.remove(root)
    -- a /proc with one CPU and processes {pid = {name, start}}, rewritten between reads
    local function proc(procs)
      os.execute("rm -rf '" .. root .. "' && mkdir -p '" .. root .. "'")
      local function put(rel, text)
        os.execute("mkdir -p '" .. (root .. "/" .. rel):match("^(.*)/[^/]+$") .. "'")
        local f = assert(io.open(root .. "/" .. rel, "w")) f:write(text) f:close()
      end
      put("stat", "cpu  1 0 1 10 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\nctxt 5\nbtime 1700000000\nprocesses 9\n")
      put("meminfo", "MemTotal: 8000 kB\nMemFree: 2000 kB\n")
      for pid, p in pairs(procs) do
        put(pid .. "/stat", string.format("%d (%s) S 1 1 1 0 -1 0 1 0 0 0 3 4 0 0 20 0 1 0 %d 1000 10 0\n", pid, p[1], p[2]))
        put(pid .. "/status", "Name:\t" .. p[1] .. "\nUid:\t0\t0\t0\t0\n")
      end
    end
    proc({ [77] = { "alpha", 500 }, [78] = { "gamma", 500 } })
    local sys = mi.system({ host = true, proc = root, age_ms = 0 })
    local s = mi.open({ system = sys })
    assert.is_true(s:on("process", { 25047 }).ok)
    local function names(opts)
      local out, recs = {}, s:get("process", nil, opts)
      for _, r in ipairs(recs) do if r.state == "alive" then out[r.pid] = r.program_name end end
      return out
    end
    local t = {}
    local first = names({ into = t })
    assert.matches("ALPHA", first[77]) assert.matches("GAMMA", first[78])
    proc({ [77] = { "beta", 500 }, [78] = { "gamma", 500 } })      -- 77 runs another program
    local second = names({ into = t })
    assert.matches("BETA", second[77]) assert.matches("GAMMA", second[78])
    proc({ [77] = { "beta", 500 }, [78] = { "delta", 900 } })      -- 78 ended; a new process has its pid
    local third = names()
    assert.matches("BETA", third[77]) assert.matches("DELTA", third[78])
    s:close() sys:close()
  end)

  it("#31.1 an attached store: the three forms read the owner's values", function()
    local sys, own, att = H.shared_owner()
    local ss = sessions(att, { { "process", { 25047, 25060 } }, { "global", { 21176, 21177 } } })
    local t, c = {}, {}
    for round = 1, 3 do
      local recs = three_forms(ss, "process", t, c, "attached, read " .. round)
      assert.is_true(#recs > 0)
      three_forms(ss, "global", {}, {}, "attached global, read " .. round)
      sys:advance(1000)
    end
    for _, x in ipairs(ss) do x:close() end
    att:close() own:close() sys:close()
  end)

  it("#31.1 a replayed recording: the three forms agree at every sample", function()
    local sys = mi.replay("spec/record_v1.mir")
    local ss = sessions(sys, { { "process", { 25047 } }, { "global", { 21176 } } })
    local t, c, steps = {}, {}, 0
    repeat
      three_forms(ss, "process", t, c, "replay, sample " .. steps)
      three_forms(ss, "global", {}, {}, "replay global, sample " .. steps)
      steps = steps + 1
    until mi.core.replay_step(sys, 1000) == 0 or steps == 10
    assert.is_true(steps >= 2)
    for _, x in ipairs(ss) do x:close() end
    sys:close()
  end)

  it("#31.1 the host: the three forms read the same snapshot (a long cache age)", function()
    local sys = mi.system({ host = true, age_ms = 3600000 })
    local ss = sessions(sys, { { "process", { 25047, 25048 } }, { "global", { 21176 } } })
    local recs = three_forms(ss, "process", {}, {}, "host")
    assert.is_true(#recs > 0)
    three_forms(ss, "global", {}, {}, "host global")
    for _, x in ipairs(ss) do x:close() end
    sys:close()
  end)
end)
