-- sim_config_spec.lua: the effect of each AIFSCPUT the simulator honours (core/sim/BOOKS.md §10,
-- issue 29). The job fence and the CS quantum are checked in sim_spec.lua and sim_rooms_spec.lua;
-- here the job limit and the DS and ES quanta, each by comparing runs of the same seed that
-- differ only in the value put (deterministic: no timing).
local mi = require("mi")

-- A session on a fresh simulated system of workload w with the workload fields of o.
local function session(w, o)
  local opts = { workload = w, cpus = 1, seed = 4 }
  for k, v in pairs(o or {}) do opts[k] = v end
  return mi.open({ system = mi.system(opts) })
end

-- JOB_COUNT after each of n steps of ms.
local function job_counts(s, n, ms)
  local out = {}
  for i = 1, n do
    s:advance(ms)
    out[i] = s:config("JOB_COUNT").JOB_COUNT
  end
  return out
end

describe("the simulator honours what AIFSCPUT writes (BOOKS §10)", function()
  it("logs no job on past JOB_LIMIT (3002), and more again once it is raised", function()
    local s = session("batch", { jobs = 6, job_ms = 400 })
    assert.equal(6, s:config("JOB_COUNT").JOB_COUNT)
    assert(s:put({ JOB_LIMIT = 2 }))
    job_counts(s, 4, 500)   -- the jobs logged on before the PUT end within 2 s
    local limited = job_counts(s, 20, 500)
    assert.is_true(math.max(table.unpack(limited)) <= 2, table.concat(limited, " "))
    assert.is_true(math.max(table.unpack(limited)) >= 1, "jobs still run under the limit")
    assert(s:put({ JOB_LIMIT = 6 }))
    local raised = job_counts(s, 20, 500)
    assert.is_true(math.max(table.unpack(raised)) > 2, table.concat(raised, " "))
    s:close()
  end)

  -- Quantum expirations of the processes of one queue (DS: the jobs; ES: every fourth job) with
  -- that queue's quantum put to ms.
  local function expirations(item, ms, queue_name)
    local s = session("batch", { jobs = 4, job_cpu_ms = 5000 })
    assert(s:put({ [item] = ms }))
    s:on("process", { "pmc_stop_quantum_expiration" })
    s:advance(30000)
    local n, procs = 0, 0
    for _, r in ipairs(s:get("process")) do
      if r.js_number and r.js_number:match("^#J") then
        n = n + r.pmc_stop_quantum_expiration
        procs = procs + 1
      end
    end
    s:close()
    assert.is_true(procs >= 2, queue_name .. ": jobs measured " .. procs)
    return n
  end

  it("ends a DS process's burst at DS_QUANTUM (3031)", function()
    local short, long = expirations("DS_QUANTUM", 20, "DS"), expirations("DS_QUANTUM", 2000, "DS")
    assert.is_true(short > 10 * long and short > 100, short .. " vs " .. long)
  end)

  it("ends an ES process's burst at ES_QUANTUM (3032)", function()
    local short, long = expirations("ES_QUANTUM", 20, "ES"), expirations("ES_QUANTUM", 2000, "ES")
    -- one job in four runs in ES: the DS jobs' expirations are the same in both runs
    assert.is_true(short - long >= 30, short .. " vs " .. long)
  end)
end)
