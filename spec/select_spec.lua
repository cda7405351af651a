-- select_spec.lua: #14 — entity selection (descriptors with wildcards, include and exclude,
-- evaluated for processes born later too) and read-active (EXACT, LIST, CHANGED with a
-- resumable context) through s:on / s:get / s:read_active / s:active, on a simulated system
-- and on an attached shared store.
local mi = require("mi")

-- A simulated machine whose short batch jobs are born and die all the time.
local function churning(extra)
  local o = { workload = { base = "oltp", jobs = 8, job_ms = 200, job_cpu_ms = 20 }, cpus = 2, seed = 7 }
  for k, v in pairs(extra or {}) do o[k] = v end
  return mi.system(o)
end

-- An independent glob for the truth tables: '*' any run, '?' one character, case-insensitive.
local function glob(p, s)
  local lp = "^" .. p:upper():gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".") .. "$"
  return s:upper():find(lp) ~= nil
end

-- FILE.GROUP.ACCOUNT parts of a record's name ("CI.PUB.SYS"; empty fields kept).
local function parts(name)
  local t = {}
  for x in (name .. "."):gmatch("([^.]*)%.") do t[#t + 1] = x end
  return t
end

-- Does pattern pat (missing parts: any) match name? user names match USER.ACCOUNT (parts 1 and 3).
local function name_match(pat, name, user)
  local p, n = parts(pat), parts(name)
  for i, x in ipairs(p) do
    local field = user and i == 2 and 3 or i
    if not glob(x, n[field] or "") then return false end
  end
  return true
end

local PTYPES = { system = 0, jsmain = 1, ci = 2, user = 3, son = 4 }

-- Does descriptor d match record r (as s:get returns it)?
local function desc_match(d, r)
  if d.pid and d.pid ~= r.pid then return false end
  if d.program and not name_match(d.program, r.program_name) then return false end
  if d.user and not name_match(d.user, r.user_name, true) then return false end
  if d.type and PTYPES[d.type] ~= r.process_type then return false end
  if d.session and r.js_number ~= "#S" .. d.session then return false end
  if d.job and r.js_number ~= "#J" .. d.job then return false end
  local js = r.js_number:sub(1, 2)
  if d.js and ({ none = "", session = "#S", job = "#J" })[d.js] ~= js then return false end
  return true
end

-- The selection's verdict for record r: an include matches (or none given) and no exclude does.
local function selected(sel, r)
  local inc = not sel.include or #sel.include == 0
  for _, d in ipairs(sel.include or {}) do if desc_match(d, r) then inc = true end end
  if not inc then return false end
  for _, d in ipairs(sel.exclude or {}) do if desc_match(d, r) then return false end end
  return true
end

-- pid -> record of the live processes in records.
local function alive(recs)
  local t = {}
  for _, r in ipairs(recs) do if r.state == "alive" then t[r.pid] = r end end
  return t
end

local function count(t) local n = 0; for _ in pairs(t) do n = n + 1 end; return n end

local SELECTIONS = {
  { include = { { program = "*.PUB.PROD" }, { user = "OPERATOR.*" } }, exclude = { { type = "system" } } },
  { include = { { js = "job" } }, exclude = { { program = "BILL*" } } },
  { exclude = { { type = "ci" }, { program = "?UERY" } } },
  { include = { { program = "ci" }, { type = "jsmain" } } },
  { include = { { program = "R*S.P?B" }, { session = 1 } } },
}

describe("#14 entity selection", function()
  for i, sel in ipairs(SELECTIONS) do
    it("selection " .. i .. " monitors exactly what it matches, processes born after the ON included (#14.1)", function()
      local sys = churning()
      local all, chosen = mi.open { system = sys }, mi.open { system = sys }
      all:on("process", { 25047 })
      local st = chosen:on("process", { 25047 }, sel)
      assert.equal(0, st.code, tostring(st))
      local first = {}
      for pid in pairs(alive(all:get("process"))) do first[pid] = true end
      local births, hits, taken, left = 0, 0, 0, 0
      for _ = 1, 4 do
        sys:advance(1500)
        local everyone, mine = alive(all:get("process")), alive(chosen:get("process"))
        for pid, r in pairs(everyone) do
          assert.equal(selected(sel, r), mine[pid] ~= nil, "pid " .. pid .. " " .. r.program_name .. " " .. r.user_name)
          if mine[pid] then taken = taken + 1 else left = left + 1 end
          if not first[pid] then births = births + 1; if mine[pid] then hits = hits + 1 end end
        end
        for pid in pairs(mine) do assert.is_truthy(everyone[pid], "only live processes of the system") end
      end
      assert.is_true(taken > 0 and left > 0, "the selection takes some processes and leaves others: " .. taken .. ", " .. left)
      assert.is_true(births > 0, "processes were born after the ON")
      if i == 2 then assert.is_true(hits > 0, "some of them were selected") end
      all:close(); chosen:close(); sys:close()
    end)
  end

  it("s:get narrows a read with include/exclude as the selection would (#14.1)", function()
    local sys = churning()
    local s = mi.open { system = sys }
    s:on("process", { 25047 })
    sys:advance(1000)
    local sel = SELECTIONS[1]
    local narrowed = s:get("process", nil, { include = sel.include, exclude = sel.exclude })
    local want = 0
    for _, r in pairs(alive(s:get("process"))) do if selected(sel, r) then want = want + 1 end end
    assert.is_true(want > 0)
    assert.equal(want, count(alive(narrowed)))
    for _, r in ipairs(narrowed) do assert.is_true(selected(sel, r)) end
    s:close(); sys:close()
  end)

  local BAD = {
    { { include = { { prog = "X" } } }, "include[1]: unknown field 'prog' of a process descriptor" },
    { { include = { { program = "A..B" } } }, "include[1].program: malformed pattern 'A..B' (an empty name part)" },
    { { include = { { program = "A.B.C.D" } } }, "include[1].program: malformed pattern 'A.B.C.D' (more than 3 parts" },
    { { include = { { user = "A.B.C" } } }, "include[1].user: malformed pattern 'A.B.C' (more than 2 parts" },
    { { include = { { program = "ABCDEFGHIJKLMNOPQ" } } }, "longer than 16 characters" },
    { { include = { { program = "A B" } } }, "include[1].program: malformed pattern 'A B' (a blank" },
    { { exclude = { {}, { type = "sys" } } }, "exclude[2].type: 'sys' is not a process type" },
    { { include = { { pid = "12" } } }, "include[1].pid: integer expected, got string" },
    { { include = { { pid = 0 } } }, "include[1].pid: 0 out of range" },
    { { include = { { session = 20000 } } }, "include[1].session: 20000 out of range 1-16383" },
    { { include = { { js = "batch" } } }, "include[1].js: 'batch' is not a job/session kind" },
    { { include = { { ldev = 3 } } }, "include[1]: unknown field 'ldev' of a process descriptor" },
    { { include = { "CI" } }, "include[1]: descriptor table expected, got string" },
    { { include = "CI" }, "include: a list of descriptor tables expected, got string" },
    { { include = { { [1] = 2 } } }, "include[1]: field names are strings" },
  }
  for _, case in ipairs(BAD) do
    it("a bad descriptor is refused naming it and its field: " .. case[2] .. " (#14.1)", function()
      local sys = churning()
      local s = mi.open { system = sys }
      local ok, err = pcall(s.on, s, "process", { 25047 }, case[1])
      assert.is_false(ok)
      assert.is_truthy(tostring(err):find(case[2], 1, true), err)
      ok, err = pcall(s.read_active, s, "process", { 25047 }, case[1])
      assert.is_false(ok)
      assert.is_truthy(tostring(err):find(case[2], 1, true), err)
      local _, st = s:get("process", { 25047 })
      assert.equal(-20013, st.code)   -- nothing was enabled
      s:close(); sys:close()
    end)
  end

  it("LDEVs are selected by number, range and device type (#14.1)", function()
    local sys = churning()
    local s = mi.open { system = sys }
    local st = s:on("io", { 23000 }, { include = { { ldev = "1-30" }, { ldev = 100 } }, exclude = { { devtype = "terminals" } } })
    assert.equal(0, st.code, tostring(st))
    local devices, want = sys:info().devices, {}
    for l, t in pairs(devices) do if (l <= 30 or l == 100) and t ~= "terminal" then want[l] = true end end
    local got = {}
    for _, r in ipairs(s:get("io")) do got[r.ldev] = true end
    assert.same(want, got)
    local some, disks = s:get("io", nil, { include = { { devtype = "disk" } } }), 0
    for l in pairs(want) do if devices[l] == "disk" then disks = disks + 1 end end
    assert.is_true(disks > 0)
    assert.equal(disks, #some, "every selected disk, nothing else")
    for _, r in ipairs(some) do assert.equal("disk", devices[r.ldev]); assert.equal("disk", r.type) end
    local ok, err = pcall(s.get, s, "io", nil, { include = { { ldev = "9-3" } } })
    assert.is_false(ok)
    assert.is_truthy(err:find("include[1].ldev: ", 1, true), err)
    ok, err = pcall(s.get, s, "io", nil, { include = { { devtype = "floppy" } } })
    assert.is_truthy(err:find("include[1].devtype: 'floppy' is not a device type", 1, true), err)
    s:close(); sys:close()
  end)
end)

describe("#14 read-active", function()
  it("LIST pages of 7 records across calls while processes are born and die: none twice, none missed (#14.3)", function()
    local sys = churning({ workload = { base = "oltp", jobs = 30, job_ms = 50, job_cpu_ms = 5 } })
    local s = mi.open { system = sys }
    s:on("process", { 25047 })
    local everyone = mi.open { system = sys }
    everyone:on("process", { 25047 })
    local iterations, calls, died_total = 0, 0, 0
    for _ = 1, 5 do
      local before = alive(everyone:get("process"))
      assert.is_true(count(before) > 7, "more live processes than a page")
      local seen, died, ctx = {}, {}, nil
      repeat
        local recs
        recs, ctx = s:read_active("process", nil, { mode = "list", max = 7, context = ctx })
        assert.is_truthy(recs)
        assert.is_true(#recs <= 7)
        for _, r in ipairs(recs) do
          if r.state == "alive" then
            assert.is_nil(seen[r.pid], "pid " .. r.pid .. " returned twice in one iteration")
            seen[r.pid] = true
          end
        end
        sys:advance(40)   -- births and deaths between the calls
        for _, r in ipairs(everyone:get("process")) do if r.state == "dead" then died[r.pid] = true; died_total = died_total + 1 end end
        calls = calls + 1
      until ctx == nil
      for pid in pairs(before) do
        if not died[pid] then assert.is_truthy(seen[pid], "pid " .. pid .. " alive throughout was missed") end
      end
      iterations = iterations + 1
    end
    assert.is_true(died_total > 20, "processes died under the iterations (" .. died_total .. ")")
    assert.is_true(calls > 5 * 5)
    s:close(); everyone:close(); sys:close()
  end)

  it("CHANGED flags exactly the records whose values changed since this session's last read (#14.3)", function()
    local sys = churning()
    local s = mi.open { system = sys }
    s:on("process", { 25047, 25048, 25167 })
    local last = {}
    for round = 1, 4 do
      local n, changed = 0, 0
      for rec in s:active("process", nil, { mode = "changed", max = 7 }) do
        local key = table.concat({ rec.state, rec[25047], rec[25048], rec[25167] }, ",")
        local want = last[rec.pid] ~= key
        assert.equal(want, rec.changed, "round " .. round .. " pid " .. rec.pid)
        last[rec.pid] = key
        n = n + 1
        if rec.changed then changed = changed + 1 end
      end
      assert.is_true(n > 30)
      if round == 1 then assert.equal(n, changed) end
      if round == 3 then assert.equal(0, changed, "nothing changed without time passing") end
      if round ~= 2 then sys:advance(300) end
    end
    s:close(); sys:close()
  end)

  it("EXACT returns the one entity; the context is nil when complete; bad calls say why (#14.3)", function()
    local sys = churning()
    local s = mi.open { system = sys }
    s:on("process", { 25047 })
    local recs, ctx, st = s:read_active("process", nil, { mode = "exact", include = { { pid = 6 } } })
    assert.equal(1, #recs); assert.equal(6, recs[1].pid); assert.is_nil(ctx); assert.equal(0, st.code)
    recs, ctx = s:read_active("process", nil, { mode = "list", max = 5 })
    assert.equal(5, #recs); assert.is_truthy(ctx)
    local _, _, bad = s:read_active("process", nil, { context = -7 })
    assert.equal("BAD_CONTEXT", bad.name)
    local ok, err = pcall(s.read_active, s, "process", nil, { mode = "sometimes" })
    assert.is_false(ok); assert.is_truthy(err:find("sometimes"), err)
    ok, err = pcall(s.read_active, s, "disc", nil, {})
    assert.is_false(ok); assert.is_truthy(err:find("bad entity kind 'disc'"), err)
    local other = mi.open { system = sys }
    local none, _, nst = other:read_active("process", { 25047 }, {})
    assert.is_nil(none); assert.equal(-20013, nst.code)
    s:close(); other:close(); sys:close()
  end)

  it("works the same on an attached shared store: the owner's births follow the attached reader's selection (#14.4)", function()
    local path = os.tmpname(); os.remove(path); path = path .. "-sel"
    local sys = churning({ share = path })
    local att = mi.attach(path, { write = true })   -- it turns on items the owner does not (#27.8)
    local reader = mi.open { system = att }
    local sel = SELECTIONS[2]
    assert.equal(0, reader:on("process", { 25047 }, sel).code)
    local owner = mi.open { system = sys }
    owner:on("process", { 25047 })
    local taken, left = 0, 0
    for _ = 1, 3 do
      sys:advance(1500)
      local everyone, mine = alive(owner:get("process")), alive(reader:get("process"))
      taken, left = taken + count(mine), left + count(everyone) - count(mine)
      for pid, r in pairs(everyone) do assert.equal(selected(sel, r), mine[pid] ~= nil, "pid " .. pid) end
      local n = 0
      for rec in reader:active("process", nil, { max = 7 }) do if rec.state == "alive" then n = n + 1 end end
      assert.equal(count(mine), n)
    end
    assert.is_true(taken > 0 and left > 0, "the selection takes some processes and leaves others: " .. taken .. ", " .. left)
    reader:close(); att:close(); owner:close(); sys:close()
    os.remove(path)
  end)
end)

describe("#14 on the host and across processes", function()
  it("selects live Linux processes by program and type on the host source (#14.4)", function()
    local sys = mi.system({ host = true, age_ms = 0 })
    local s, all = mi.open { system = sys }, mi.open { system = sys }
    all:on("process", { 25047 })
    local sel = { include = { { program = "lua*" }, { program = "busted*" } }, exclude = { { program = "kworker*" }, { pid = 1 } } }
    assert.equal(0, s:on("process", { 25047 }, sel).code)
    local mine, everyone = alive(s:get("process")), alive(all:get("process"))
    local want = 0
    for pid, r in pairs(everyone) do
      if selected(sel, r) and mine[pid] == nil then
        -- born between the two reads: the selection took it if the host's refresh saw it in time
      elseif selected(sel, r) then want = want + 1 end
    end
    for pid, r in pairs(mine) do assert.is_true(selected(sel, r), "pid " .. pid .. " " .. r.program_name) end
    assert.is_true(count(mine) >= 1, "this very Lua process is selected")
    local n = 0
    for rec in s:active("process", nil, { max = 7 }) do if rec.state == "alive" then n = n + 1 end end
    assert.is_true(n >= want)
    s:close(); all:close(); sys:close()
  end)

  it("a second mish process (--attach) selects, and the owner's births follow its selection (#14.4)", function()
    local path = os.tmpname(); os.remove(path); path = path .. "-selattach"
    local sys = churning({ share = path, realtime = true })
    local script = "local st = s:on('process', {25047}, {include = {{js = 'job'}}}); assert(st.code == 0, tostring(st)); " ..
      "local first = {}; for _, r in ipairs(s:get('process')) do first[r.pid] = true end; mi.sleep(2); " ..
      "local born, bad = 0, 0; for rec in s:active('process', nil, {max = 7}) do " ..
      "if rec.js_number:sub(1, 2) ~= '#J' then bad = bad + 1 end; if not first[rec.pid] then born = born + 1 end end; " ..
      "print('born=' .. born .. ' bad=' .. bad)"
    local f = io.popen("lua/mish --attach-rw " .. path .. " -e \"" .. script .. "\" 2>&1")
    local out = f:read("a")
    f:close()
    local born, bad = out:match("born=(%d+) bad=(%d+)")
    assert.is_truthy(born, out)
    assert.equal("0", bad, out)
    assert.is_true(tonumber(born) > 0, "jobs were born after the attached ON and selected: " .. out)
    sys:close()
    os.remove(path)
  end)
end)
