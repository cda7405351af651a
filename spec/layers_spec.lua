-- layers_spec.lua — the core's rooms depend only downward (#28.1): every call from one room's
-- object file into another's (nm) and every room-qualified or internal #include is allowed by the
-- room order below, and that order has no cycle. The checker is also fed a doctored copy of the
-- real tables (an upward call, an upward include) and must report each: it can fail.

-- Rooms from the bottom up (one folder of core/ each), with what each may use. recfile/ (the
-- recording format and its reader) sits below the sources (the replay source reads recordings);
-- record/ (the recorder) is a reader of systems above the AIFs. The AIF room opens the default
-- system through sources/.
local ALLOWED = {
  base = {},
  catalog = { "base" },
  store = { "base", "catalog" },
  query = { "base", "catalog", "store" },
  recfile = { "base", "catalog" },
  sources = { "base", "catalog", "store", "recfile" },
  aif = { "base", "catalog", "store", "query", "sources" },
  record = { "base", "catalog", "store", "query", "aif", "recfile", "sources" },
  export = { "base", "catalog", "store", "query", "aif", "sources" },
}

-- The room of a core source or header path ("core/store/seg.c"), nil outside the rooms.
local function room_of(path)
  local d = path:match("^core/([%w_]+)/")
  if d == "gen" then return "catalog" end
  if d == "sim" then return "sources" end
  return d and ALLOWED[d] and d or nil
end

-- Which room an #include names, from the including file's folder; "public" for the installed headers.
local function header_room(inc, from)
  if inc == "mi_internal.h" then return "store" end   -- the store's internals (system, segment, session)
  if inc == "mi_testhook.h" then return "sources" end
  if inc:match("^mi[%w_]*%.h$") then return "public" end
  if inc:match("/") then return room_of("core/" .. inc) end
  return room_of(from:gsub("[^/]+$", "") .. inc)   -- a header beside the file
end

local function may(from, to)
  if from == to or to == "public" then return true end
  for _, r in ipairs(ALLOWED[from] or {}) do if r == to then return true end end
  return false
end

-- The violations of tables { defs = {sym = file}, undef = {file = {sym...}}, incs = {file = {inc...}} }.
local function violations(t)
  local bad = {}
  for file, syms in pairs(t.undef) do
    local r = room_of(file)
    for _, s in ipairs(syms) do
      local def = t.defs[s]
      local dr = def and room_of(def)
      if r and dr and not may(r, dr) then bad[#bad + 1] = ("%s calls %s (%s -> %s)"):format(file, s, r, dr) end
    end
  end
  for file, incs in pairs(t.incs) do
    local r = room_of(file)
    for _, inc in ipairs(incs) do
      local hr = header_room(inc, file)
      if r and hr and not may(r, hr) then bad[#bad + 1] = ("%s includes %s (%s -> %s)"):format(file, inc, r, hr) end
    end
  end
  table.sort(bad)
  return bad
end

local read = H.read_file
local function lines_of(cmd) return (H.run(cmd)) end   -- a command's output

-- The real tables of this tree: every core object file's symbols, every core file's includes.
local function tables()
  local t = { defs = {}, undef = {}, incs = {}, nobj = 0, nfile = 0 }
  for obj in lines_of("ls core/*/*.o 2>/dev/null"):gmatch("[^\n]+") do
    local src = obj:gsub("%.o$", ".c")
    t.nobj = t.nobj + 1
    t.undef[src] = {}
    for name, kind in lines_of("nm -P " .. obj):gmatch("([%w_%.]+) (%a)[^\n]*") do
      if kind == "U" then table.insert(t.undef[src], name)
      elseif kind:match("[TDBRC]") then t.defs[name] = src end
    end
  end
  for file in lines_of("ls core/*/*.c core/*/*.h 2>/dev/null"):gmatch("[^\n]+") do
    t.nfile = t.nfile + 1
    t.incs[file] = {}
    for inc in read(file):gmatch('\n%s*#%s*include%s+"([^"]+)"') do table.insert(t.incs[file], inc) end
  end
  return t
end

describe("the core's rooms (#28.1)", function()
  local t = tables()

  it("the room order is a DAG (a topological order exists)", function()
    local done, order = {}, {}
    for _ = 1, 20 do
      for r, deps in pairs(ALLOWED) do
        if not done[r] then
          local ready = true
          for _, d in ipairs(deps) do if not done[d] then ready = false end end
          if ready then done[r] = true; order[#order + 1] = r end
        end
      end
    end
    local n = 0
    for _ in pairs(ALLOWED) do n = n + 1 end
    assert.equal(n, #order)
  end)

  it("every core object file and source file has a room, and the tables are not empty", function()
    assert.is_true(t.nobj >= 25, "core objects built: " .. t.nobj)
    assert.is_true(t.nfile >= 30, "core files read: " .. t.nfile)
    for file in pairs(t.incs) do
      if file:match("%.c$") then assert.is_truthy(room_of(file), file .. " is in no room") end
    end
  end)

  it("no room calls or includes upward", function()
    assert.same({}, violations(t))
  end)

  it("the check reports an upward call and an upward include (it can fail)", function()
    local doctored = { defs = t.defs, undef = {}, incs = {} }
    for k, v in pairs(t.undef) do doctored.undef[k] = v end
    for k, v in pairs(t.incs) do doctored.incs[k] = v end
    assert.equal("core/aif/session.c", t.defs.mi_session_free)
    doctored.undef["core/store/store.c"] = { "mi_session_free" }         -- the call #28 removed
    doctored.incs["core/catalog/catalog.c"] = { "mi_internal.h" }        -- the include #28 removed
    doctored.incs["core/query/query.c"] = { "recfile/format.h", "mi_query.h" }
    assert.same({
      "core/catalog/catalog.c includes mi_internal.h (catalog -> store)",
      "core/query/query.c includes recfile/format.h (query -> recfile)",
      "core/store/store.c calls mi_session_free (store -> aif)",
    }, violations(doctored))
  end)
end)
