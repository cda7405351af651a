-- export_spec.lua: #15 — the MI's counters for Prometheus: mi.openmetrics (the formatter from Lua),
-- `mish --serve` checked over real sockets with promtool and prometheus_client (spec/prom/server.py),
-- and end to end against a real Prometheus server (spec/prom/e2e.py). A part whose Debian package
-- (python3, prometheus, python3-prometheus-client) is missing is pending (counted skipped), naming it.
local mi = require("mi")

-- Runs a shell command; returns its output and whether it succeeded.
local function run(cmd)
  local f = io.popen(cmd .. " 2>&1")
  local out = f:read("a")
  local ok, _, code = f:close()
  return out, ok, code
end

-- Runs one of the spec/prom scripts and asserts that it passed, showing what failed; pending (naming
-- the missing package) when python3 is missing or the script left checks out ("skip - ..." lines).
local function script(name, ...)
  if os.execute("test -x /usr/bin/python3") ~= true then
    pending("#15 " .. name .. ": /usr/bin/python3 is not installed (Debian package python3)") return
  end
  local out, ok = run("/usr/bin/python3 spec/prom/" .. name .. " lua/mish " .. table.concat({ ... }, " "))
  assert.is_nil(out:find("not ok"), out)
  assert.is_true(ok, out)
  local skipped = {}
  for l in out:gmatch("[^\n]+") do if l:find("^skip %- ") then skipped[#skipped + 1] = l:sub(8) end end
  if #skipped > 0 then pending("#15 " .. name .. " left checks out: " .. table.concat(skipped, "; ")) return end
  assert.truthy(out:find("^ok %- ") or out:find("\nok %- "), "the script ran checks: " .. out)
end

describe("#15 Prometheus and OpenMetrics", function()
  it("mi.openmetrics formats a system's counters as OpenMetrics or text 0.0.4", function()
    local sys = mi.system({ workload = "idle", cpus = 2 })
    local s = mi.open({ system = sys })
    local first = mi.openmetrics(s)
    sys:advance(2000)
    local om = mi.openmetrics(sys)
    assert.truthy(om:find("# TYPE mish_gmt_idle_seconds counter\n# UNIT mish_gmt_idle_seconds seconds\n", 1, true))
    assert.equal("# EOF\n", om:sub(-6))
    local idle = tonumber(om:match("\nmish_gmt_idle_seconds_total ([%d.]+)"))
    assert.truthy(idle and idle > 3.5 and idle <= 4, "2 CPUs over 2 s of virtual time: " .. tostring(idle))
    assert.truthy(first:find("mish_gmt_idle_seconds_total 0\n", 1, true), "a first call counts from its ON")
    local text = mi.openmetrics(sys, { format = "text" })
    assert.truthy(text:find("# TYPE mish_gmt_idle_seconds_total counter\n", 1, true))
    assert.falsy(text:find("# EOF", 1, true))
    assert.truthy(text:find('mish_pmc_launch_total{program="[^"]+",kind="[a-z]+"} %d+'))
    s:close()
    sys:close()
  end)

  it("per-PID series only on request, capped, the rest counted", function()
    local sys = mi.system({ workload = "oltp", cpus = 2 })
    mi.openmetrics(sys, { pids = 3 })
    sys:advance(500)
    local om = mi.openmetrics(sys, { pids = 3 })
    local pids = {}
    for pid in om:gmatch('mish_pid_pmc_launch_total{pid="(%d+)"') do pids[pid] = true end
    local n = 0
    for _ in pairs(pids) do n = n + 1 end
    assert.equal(3, n)
    assert.truthy(tonumber(om:match("\nmish_exporter_pids_dropped (%d+)")) > 0)
    assert.falsy(mi.openmetrics(sys):find("mish_pid_", 1, true), "none without the option")
    sys:close()
  end)

  it("bad arguments and closed systems give clear errors", function()
    local sys = mi.system({ workload = "idle" })
    assert.has_error(function() mi.openmetrics(sys, { format = "json" }) end, "bad format 'json' (openmetrics or text)")
    assert.has_error(function() mi.openmetrics(42) end)
    local ok, err = pcall(mi.openmetrics, sys, { pids = -1 })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("pids"))
    ok, err = pcall(mi.openmetrics, sys, { mapping = "huge" })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("mapping"))
    mi.openmetrics(sys)
    sys:close()
    assert.has_error(function() mi.openmetrics(sys) end, "system is closed")
  end)

  it("mish --serve on the simulated system: promtool, strict OpenMetrics parsing, HTTP robustness", function()
    script("server.py", "sim")
  end)

  it("mish --serve on the host: promtool and the OpenMetrics parser accept real program names", function()
    script("server.py", "host")
  end)

  it("end to end: a real Prometheus scraping mish --serve gets rates that match mish's own reading", function()
    script("e2e.py")
  end)

  it("#27.9 slowloris: 200 connections dripping a header byte a second hold up no scrape and are closed at the header deadline", function()
    script("limits.py", "9")
  end)

  it("#27.10 pipelining non-readers: one response queued per connection, RSS growth under 64 MB, at most 512 connections", function()
    script("limits.py", "10")
  end)

  it("#27.11 HTTP/1.0 keep-alive, ulimit -n 40 and 66 with a flood (no spin), absolute-form targets, empty lines first", function()
    script("limits.py", "11")
  end)

  it("mish --serve refuses a bad address or option with a message", function()
    local out, ok, code = run("lua/mish --serve 127.0.0.1:99999")
    assert.falsy(ok)
    assert.equal(2, code)   -- a malformed address is a bad option value too, checked before the system starts
    assert.truthy(out:find("bad port"), out)
    out, ok, code = run("lua/mish --serve '[::1'")
    assert.equal(2, code)
    assert.truthy(out:find("bad address '[::1'", 1, true), out)
    out, ok, code = run("lua/mish --serve 127.0.0.1:0 --min-interval soon")
    assert.falsy(ok)
    assert.equal(2, code)   -- a bad option value: exit 2, checked before anything runs (#16.3)
    assert.truthy(out:find("--min-interval", 1, true), out)
    out, ok, code = run("lua/mish --pids 3")
    assert.falsy(ok)
    assert.equal(2, code)
    assert.truthy(out:find("go with --serve", 1, true), out)
    out, ok, code = run("lua/mish --serve 127.0.0.1:0 --pids -4")
    assert.equal(2, code)
    assert.truthy(out:find("--pids -4", 1, true), out)
    out, ok, code = run("lua/mish --serve 127.0.0.1:0 -e 'print(1)' script.lua")
    assert.falsy(ok)
    assert.equal(2, code)
    assert.truthy(out:find("no script or prompt", 1, true), out)
  end)
end)
