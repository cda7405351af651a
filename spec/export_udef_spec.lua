-- export_udef_spec.lua: leftovers of #14.2 and #15 — user-defined ACCUM arrays and QBUSY pairs in the
-- exposition (an `element` label; two families, busy and queue, in seconds), checked with promtool
-- and prometheus_client's strict OpenMetrics parser, their values equal to what a GET reads; and the
-- exporter's info on an attached store (source "attached" and the owner's source).
local mi = require("mi")
local run, tmp_path = H.run, H.tmp_path

local PY = "/usr/bin/python3"
local function have(cmd) return os.execute("command -v " .. cmd .. " > /dev/null 2>&1") == true end

-- Writes text to a fresh file; returns its path.
local function to_file(text, tag)
  local p = tmp_path(tag)
  local f = assert(io.open(p, "w"))
  f:write(text)
  f:close()
  return p
end

-- The samples of an exposition: name .. "{" .. labels .. "}" (or the bare name) -> value.
local function samples(text)
  local t = {}
  for l in text:gmatch("[^\n]+") do
    if not l:find("^#") then
      local k, v = l:match("^(%S+) (%S+)$")
      if k then t[k] = tonumber(v) end
    end
  end
  return t
end

describe("#14.2 #15 user-defined arrays and QBUSY pairs in the exposition", function()
  it("promtool and the strict OpenMetrics parser accept them, and their values are the GET's", function()
    local sys = mi.system { workload = "idle", realtime = false, seed = 3 }
    local u = mi.userdef { system = sys, counters = {
      { name = "sizes", kind = "accum", elements = 4, help = "requests by size class" },
      { name = "server", kind = "qbusy", help = "the order server" },
      { name = "p_hist", kind = "accum", elements = 3, per_process = true, help = "per process, by bucket" },
      { name = "p_srv", kind = "qbusy", per_process = true },
      { name = "bytes_total", kind = "faccum" } } }
    local s = mi.open { system = sys }
    assert.is_true(s:on("global", { "sizes", "server", "bytes_total" }).ok)
    assert.is_true(s:on("process", { "p_hist", "p_srv" }).ok)
    mi.openmetrics(sys, { pids = 1000 })   -- the exporter's ON
    local pid = s:get("process")[1].pid
    u.sizes:add_at(2, 7)
    u.sizes:add_at(4, 1)
    u.server:set(3)
    u.p_hist:add_at(3, 5, pid)
    u.p_srv:set(2, pid)
    u.bytes_total:add(1 << 33)
    sys:advance(1500)
    u.server:set(1)
    sys:advance(500)
    local g = s:get("global")
    local prec
    for _, r in ipairs(s:get("process")) do if r.pid == pid then prec = r end end
    local om = mi.openmetrics(sys, { pids = 1000 })
    local text = mi.openmetrics(sys, { format = "text", pids = 1000 })
    local v = samples(om)
    local mt = 8000   -- MI_Time units a second (items 3042 = 1000, 3043 = 8000: the exposition's seconds)
    -- the array: element label 0-based; zero elements have no series
    assert.equal(g.sizes[2], v['mish_sizes_total{element="1"}'])
    assert.equal(g.sizes[4], v['mish_sizes_total{element="3"}'])
    assert.equal(7, g.sizes[2])
    assert.is_nil(v['mish_sizes_total{element="0"}'])
    -- the QBUSY pair: busy and queue seconds
    assert.equal(g.server[1] / mt, v["mish_server_busy_seconds_total"])
    assert.equal(g.server[2] / mt, v["mish_server_queue_seconds_total"])
    assert.equal(3 * 1.5 + 0.5, v["mish_server_queue_seconds_total"])
    assert.equal(g.bytes_total, v["mish_bytes_total"])
    -- per PID: the same values as the process's record
    local function pid_sample(name, extra)
      for k, val in pairs(v) do
        if k:find("^" .. name .. '{pid="' .. pid .. '"') and (not extra or k:find(extra, 1, true)) then return val end
      end
    end
    assert.equal(prec.p_hist[3], pid_sample("mish_pid_p_hist_total", 'element="2"'))
    assert.equal(5, prec.p_hist[3])
    assert.equal(prec.p_srv[1] / mt, pid_sample("mish_pid_p_srv_busy_seconds_total"))
    assert.equal(prec.p_srv[2] / mt, pid_sample("mish_pid_p_srv_queue_seconds_total"))
    assert.truthy(om:find("# TYPE mish_server_queue_seconds counter\n# UNIT mish_server_queue_seconds seconds\n", 1, true))
    assert.truthy(om:find("# HELP mish_sizes requests by size class\n", 1, true))
    local missing = {}   -- the checks left out for a missing package: the test ends pending, naming them
    if have("promtool") then
      local f = to_file(text, "udef.prom")
      local out, ok = run("promtool check metrics < " .. f)
      os.remove(f)
      assert.is_true(ok, out)
      assert.equal("", out, "promtool warns of nothing")
    else
      missing[#missing + 1] = "promtool is not installed (Debian package prometheus)"
    end
    if os.execute(PY .. " -c 'import prometheus_client' 2> /dev/null") == true then
      local f = to_file(om, "udef.om")
      local out, ok = run(PY .. " -c \"import sys\nfrom prometheus_client.openmetrics.parser import text_string_to_metric_families as p\n" ..
        "fams = {f.name: f for f in p(open(sys.argv[1]).read())}\n" ..
        "f = fams['mish_sizes']; assert f.type == 'counter', f.type\n" ..
        "assert {s.labels.get('element') for s in f.samples if s.name == 'mish_sizes_total'} == {'1', '3'}\n" ..
        "f = fams['mish_server_busy_seconds']; assert f.type == 'counter' and f.unit == 'seconds', (f.type, f.unit)\n" ..
        "print('parsed', len(fams))\" " .. f)
      os.remove(f)
      assert.is_true(ok, out)
      assert.truthy(out:find("parsed %d+"), out)
    else
      missing[#missing + 1] = "prometheus_client for " .. PY .. " is not installed (Debian package python3-prometheus-client)"
    end
    s:close()
    sys:close()
    if #missing > 0 then pending(table.concat(missing, "; ")) end
  end)

  it("end to end: Prometheus scrapes an attached store's arrays and QBUSY pairs (spec/prom/e2e_udef.py)", function()
    if os.execute("test -x " .. PY) ~= true then pending(PY .. " is not installed (Debian package python3)") return end
    local out, ok = run(PY .. " spec/prom/e2e_udef.py lua/mish")
    assert.is_nil(out:find("not ok"), out)
    assert.is_true(ok, out)
    local skipped = {}
    for l in out:gmatch("[^\n]+") do if l:find("^skip %- ") then skipped[#skipped + 1] = l:sub(8) end end
    if #skipped > 0 then pending("e2e_udef.py left checks out: " .. table.concat(skipped, "; ")) return end
    assert.truthy(out:find("^ok %- ") or out:find("\nok %- "), "the script ran checks: " .. out)
  end)

  local store   -- the store file of the next test, for the one after it
  it("an exporter on an attached store says source \"attached\" and the owner's source", function()
    local path = tmp_path("xshare")
    store = path
    finally(function() os.remove(path) end)   -- the store file (514 MiB sparse) stays after its close (#27.13)
    local owner = mi.system { workload = "idle", share = path }
    local out, ok = run("lua/mish --attach-rw " .. path .. [[ -e 'io.write((mi.openmetrics(s, {processes = false, io = false}):match("\nmish_exporter_info{[^\n]*")))']])
    assert.is_true(ok, out)
    assert.truthy(out:find('mish_exporter_info{source="attached",owner_source="sim",mapping="standard"} 1', 1, true), out)
    owner:close()
    local sys = mi.system { workload = "idle" }
    local own = mi.openmetrics(sys, { processes = false, io = false })
    assert.truthy(own:find('\nmish_exporter_info{source="sim",mapping="standard"} 1\n', 1, true))
    sys:close()
  end)

  it("#27.13: the attached-store test leaves no store file (514 MiB sparse) in /tmp", function()
    assert.truthy(store, "the attached-store test ran first")
    local f = io.open(store)
    local there = f ~= nil
    if f then f:close() end
    assert.is_false(there, store .. " is still there")
  end)
end)
