-- sim_levels_spec.lua: a level (the catalog's reading "level": a queue length, a page count, a
-- setting) is what the system holds now, so it reads the same whoever enabled it and when. Two
-- simulated systems from one seed, one measured from the start and one only from a moment
-- between two of the model's seconds, must agree on every level of every entity; a level the
-- model drives as a count (it only grows) or sets only when something happens (lost while
-- nobody counted it) fails here.
local mi = require("mi")

-- The level items of a domain (counters, not pseudo-items).
local function levels(domain)
  local out = {}
  for _, it in ipairs(mi.find("*", domain)) do
    if it.reading == "level" and it.kind ~= "pseudo" then out[#out + 1] = it.name end
  end
  return out
end

-- Records of a GET keyed by entity (global: one record; process: by pid; io: by ldev).
local function by_entity(domain, recs)
  if domain == "global" then return { g = recs } end
  local out = {}
  for _, r in ipairs(recs or {}) do out[domain == "process" and r.pid or r.ldev] = r end
  return out
end

-- Lists the level values that differ between the records of two systems.
local function differences(domain, names, a, b)
  local bad = {}
  for key, ra in pairs(a) do
    local rb = b[key]
    if rb == nil then bad[#bad + 1] = string.format("%s %s: missing on the late system", domain, tostring(key))
    else
      for _, n in ipairs(names) do
        local va, vb = ra[n], rb[n]
        if type(va) == "table" then
          for i = 1, #va do
            if va[i] ~= vb[i] then bad[#bad + 1] = string.format("%s %s %s[%d]: %s from the start, %s enabled later", domain, tostring(key), n, i, va[i], vb[i]) end
          end
        elseif va ~= vb then
          bad[#bad + 1] = string.format("%s %s %s: %s from the start, %s enabled later", domain, tostring(key), n, tostring(va), tostring(vb))
        end
      end
    end
  end
  return bad
end

describe("a simulated level reads the same whenever it was enabled", function()
  it("has levels to compare in every domain", function()
    assert.is_true(#levels("global") >= 100 and #levels("process") >= 20 and #levels("io") >= 2)
  end)
  for _, w in ipairs({ "oltp", "batch", "memory-pressure", "disk" }) do
    it("on " .. w, function()
      local function open() return mi.open({ system = mi.system({ workload = w, cpus = 2, seed = 5 }) }) end
      local early, late = open(), open()
      local function on(s)
        s:on("global", "*")
        s:on("process", levels("process"))
        s:on("io", levels("io"), { ldev = "all" })
      end
      on(early)
      early:advance(10350); late:advance(10350)   -- not on one of the model's seconds
      on(late)
      local bad = {}
      for r = 0, 3 do
        if r > 0 then early:advance(7777); late:advance(7777) end   -- (r = 0: the first GET right after the ON)
        for _, d in ipairs({ "global", "process", "io" }) do
          local names = levels(d)
          for _, x in ipairs(differences(d, names, by_entity(d, early:get(d)), by_entity(d, late:get(d)))) do bad[#bad + 1] = x end
        end
      end
      early:close(); late:close()
      assert.same({}, { table.unpack(bad, 1, 10) })
    end)
  end
end)

-- The other side of the column: a total only accumulates, so between two samples of one entity
-- it never goes down (the runs are far too short to wrap 32 bits). A level driven as a total
-- passes here, a total that the model sets or takes back does not.
describe("a simulated total never goes down", function()
  for _, w in ipairs({ "oltp", "batch", "memory-pressure", "disk" }) do
    it("on " .. w, function()
      local s = mi.open({ system = mi.system({ workload = w, cpus = 2, seed = 7 }) })
      local totals = {}
      for _, d in ipairs({ "global", "process", "io", "processor" }) do
        totals[d] = {}
        for _, it in ipairs(mi.find("*", d)) do
          if it.reading == "total" and it.kind ~= "pseudo" then totals[d][#totals[d] + 1] = it.name end
        end
      end
      assert.is_true(#totals.global >= 300 and #totals.process >= 100 and #totals.io >= 30 and #totals.processor >= 50)
      s:on("global", "*")
      s:on("process", "*")
      s:on("io", "*", { ldev = "all" })
      local function sample()
        local out = {}
        for _, d in ipairs({ "global", "process", "io" }) do out[d] = by_entity(d, s:get(d)) end
        out.processor = {}
        for _, r in ipairs(s:get("processor") or {}) do out.processor[r.cpu or #out.processor + 1] = r end
        return out
      end
      local bad, prev = {}, sample()
      for _ = 1, 6 do
        s:advance(5003)
        local cur = sample()
        for d, ents in pairs(cur) do
          for key, r in pairs(ents) do
            local o = prev[d][key]
            if o and (d ~= "process" or o.pid == r.pid) then
              for _, n in ipairs(totals[d]) do
                local a, b = o[n], r[n]
                if type(b) == "table" then
                  for i = 1, #b do if b[i] < a[i] then bad[#bad + 1] = string.format("%s %s %s[%d]: %d -> %d", d, tostring(key), n, i, a[i], b[i]) end end
                elseif type(b) == "number" and b < a then
                  bad[#bad + 1] = string.format("%s %s %s: %d -> %d", d, tostring(key), n, a, b)
                end
              end
            end
          end
        end
        prev = cur
      end
      s:close()
      assert.same({}, { table.unpack(bad, 1, 10) })
    end)
  end
end)

-- The model's own sizes for what the manual leaves open (core/SOURCES.md, "The simulated
-- system"): the LRU list of closed files holds at most 1,000 entries, a hash chain found by a
-- collision is 2 to 17 deep, and the pages swap-ins bring in stay within the live processes'
-- non-resident pages (at most 48 of a process).
describe("the simulator's levels keep their bounds", function()
  it("LRU list, hash chain depth and swapped-in pages", function()
    local s = mi.open({ system = mi.system({ workload = "oltp", cpus = 2, seed = 5 }) })
    s:on("global", { "gmc_sm_lru_depth", "gmc_sm_hash_depth" })
    s:advance(400000)
    local g = s:get("global")
    assert.equal(1000, g.gmc_sm_lru_depth)   -- full after minutes of file operations, and no more
    assert.is_true(g.gmc_sm_hash_depth >= 2 and g.gmc_sm_hash_depth <= 17, g.gmc_sm_hash_depth)
    s:close()
    local m = mi.open({ system = mi.system({ workload = "memory-pressure", cpus = 2, seed = 5 }) })
    m:on("global", { "gmc_cur_swap_pg_objcl_", "gmc_cur_sys_process", "gmc_cur_ci_process", "gmc_cur_non_ci_created_process" })
    local prev
    for _ = 1, 3 do
      m:advance(300000)
      local r = m:get("global")
      local pages = 0
      for _, v in ipairs(r.gmc_cur_swap_pg_objcl_) do pages = pages + v end
      local procs = r.gmc_cur_sys_process + r.gmc_cur_ci_process + r.gmc_cur_non_ci_created_process
      assert.is_true(pages > 0 and pages <= 48 * procs, pages .. " pages, " .. procs .. " processes")
      if prev then assert.is_true(pages <= prev * 1.5, "swapped-in pages keep growing: " .. prev .. " -> " .. pages) end
      prev = pages
    end
    m:close()
  end)
end)
