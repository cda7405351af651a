-- harden_perf_spec.lua: issue 17, start-up (#17.2). The catalog tables of the Lua layer fill at
-- their first use, and `mish` with no option makes the default system and `s` when a script
-- first touches them; what is built is the same either way. No timing here (make bench).

-- Runs a shell command; returns its stdout and whether it succeeded.
local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

describe("#17.2 the catalog tables fill at their first use", function()
  it("a fresh mi module has built none, and each fills whole on first look", function()
    local saved = package.loaded["mi"]
    package.loaded["mi"] = nil
    local mi = require("mi")
    package.loaded["mi"] = saved
    assert.equal(0, rawlen(mi.items), "nothing built at require")
    assert.equal(0, rawlen(mi.statuses))
    local n = #mi.items
    assert.is_true(n > 500, "# fills the item table")
    assert.equal(n, rawlen(mi.items))
    assert.is_nil(getmetatable(mi.items), "a filled table is a plain table")
    assert.equal("gmt_idle", mi.item(21177).name)
    assert.equal(21177, mi.item("gmt_idle", "global").item)
    assert.equal(mi.item(21177), mi.find("^gmt_idle$")[1], "the same record through every table")
    local k = 0
    for _ in pairs(mi.config_items) do k = k + 1 end
    assert.is_true(k > 10, "pairs fills a table")
    assert.equal("NO_SUCH_PID", mi.status(-20005).name)
    local disk
    for _, d in ipairs(mi.devtypes) do if d.name == "disk" then disk = d end end
    assert.is_table(disk, "ipairs fills a table")
  end)
end)

describe("#17.2 mish with no option makes the default system at its first use", function()
  it("-e '' makes no system; touching s makes the built-in default (oltp, 2 CPUs)", function()
    local out, ok = run("lua/mish -e \"print(rawget(_G, 's'), require('mi.core').default_exists())\"")
    assert.is_true(ok, out)
    assert.equal("nil\tfalse\n", out)
    out, ok = run("lua/mish -e \"print(s:info().source, s:info().cpus, require('mi.core').default_exists(), rawget(_G, 's') == s)\"")
    assert.is_true(ok, out)
    assert.equal("sim\t2\ttrue\ttrue\n", out)
  end)

  it("with an option the system is built at start-up, a bad option still fails there", function()
    local out, ok = run("lua/mish --workload idle -e \"print(rawget(_G, 's') ~= nil)\"")
    assert.is_true(ok, out)
    assert.equal("true\n", out)
    out, ok = run("lua/mish --proc /tmp -e ''")
    assert.is_falsy(ok)
    assert.matches("needs the host system", out)
  end)
end)
