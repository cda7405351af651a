-- sim_fingerprint_spec.lua: the simulator's output for fixed seeds and workloads, reduced to one
-- hash per run (#17.2). It pins the model bit for bit, so a rewrite of its machinery (dispatch,
-- wake-up queue, random draws) can show it changed nothing. A change of the model itself changes
-- the hashes: regenerate them with FINGERPRINT_PRINT=1 busted spec/sim_fingerprint_spec.lua and
-- say so in the commit. (Regenerated three times since the dispatch rewrite it verified: the rooms
-- of issue 18 changed the model, then equal priorities became first come, first served, then
-- the levels and watermarks the model drove as counts became what the manual describes
-- (pmc_process_priority counts adjustments; gmc_sm_lru_depth, gmc_cur_swap_pg_objcl_ and the
-- loaded programs and libraries are levels, gmc_sm_hash_depth a watermark) and the resident
-- pages by class are written whole (they counted processes born in the second after an ON
-- twice) — every other counter hashed as before, checked by leaving those eight items out of the
-- hash on both builds. Then once more for the manual's books, issue 29 (core/sim/BOOKS.md): the
-- counters were made to agree with each other, and the model's course changed only where the
-- manual said so: no process stops on the unused port of 25084, and the dispatcher's urgent work
-- (25073) leaves a process ready instead of making it wait.)
local mi = require("mi")

-- FNV-1a over a string, 64-bit (Lua integers wrap).
local function fnv(h, str)
  for i = 1, #str do h = ((h ~ str:byte(i)) * 0x100000001b3) end
  return h
end

-- The counter (not pseudo) item names of each domain, sorted: clock pseudo-items (start_time)
-- follow the wall clock the system was created at, so they are left out.
local names = {}
for _, d in ipairs({ "global", "process", "io", "processor" }) do
  names[d] = {}
  for _, it in ipairs(mi.find("*", d)) do if it.kind ~= "pseudo" then names[d][#names[d] + 1] = it.name end end
  table.sort(names[d])
end

-- Hashes the counters of a record of domain d (name -> number or array), names sorted.
local function hash_record(h, rec, d)
  for _, k in ipairs(names[d]) do
    local v = rec[k]
    if type(v) == "table" then
      local parts = {}
      for i = 1, #v do parts[i] = tostring(v[i]) end
      v = table.concat(parts, ",")
    end
    h = fnv(h, k .. "=" .. tostring(v) .. ";")
  end
  return h
end

-- Runs workload w on cpus CPUs from seed for `samples` x 30 virtual seconds; hashes every
-- global, process, I/O and processor record at each sample.
local function fingerprint(w, cpus, seed, samples, extra)
  local o = { workload = w, cpus = cpus, seed = seed }
  for k, v in pairs(extra or {}) do o[k] = v end
  local s = mi.open({ system = mi.system(o) })
  s:on("global", "*")
  s:on("process", "*")
  s:on("io", "*", { ldev = "all" })
  local h = 0xcbf29ce484222325
  for _ = 1, samples do
    s:advance(30000)
    h = hash_record(h, s:get("global"), "global")
    for _, r in ipairs(s:get("process")) do h = hash_record(h, r, "process") end
    for _, r in ipairs(s:get("io") or {}) do h = hash_record(h, r, "io") end
    for c = 0, 7 do   -- all 8, the configured and the unconfigured (zeros), as the fingerprints always hashed them
      for _, r in ipairs(s:get("processor", nil, { cpu = c }) or {}) do h = hash_record(h, r, "processor") end
    end
  end
  s:close()
  return string.format("%016x", h)
end

local runs = {
  -- workload, cpus, seed, samples, expected hash
  { "oltp", 4, 1, 10, "8c5a61a58bd835fe" },
  { "batch", 1, 7, 10, "63ad4779ecd9a1cf" },
  { "memory", 2, 3, 10, "671d820acb431956" },
  { "disk", 8, 5, 6, "a4ca5f604dc3206a" },
  -- a saturated CPU with a long ready list: many ties of priority for dispatch to break
  { "oltp", 1, 9, 4, "b1128737a7c59502", { sessions = 300, think_ms = 3000, jobs = 4 } },
}

describe("the simulator's fingerprint (#17.2)", function()
  for _, r in ipairs(runs) do
    it(string.format("gives %s on %d CPUs, seed %d, the counters it always gave", r[1], r[2], r[3]), function()
      local got = fingerprint(r[1], r[2], r[3], r[4], r[6])
      if os.getenv("FINGERPRINT_PRINT") then print(r[1], got) end
      assert.equal(r[5], got)
    end)
  end
end)
