-- sources_model_spec.lua — one option model (#28.2): the sources' option tables (core.sources())
-- are what mish's options and --help, mi.open_system and mi.set_default read. The C side (the
-- example source added the documented way, mish_env.h) is spec/test_sources_model.c.
local core = require("mi.core")
local mi = require("mi")

-- Runs a shell command; returns its output (stdout and stderr) and exit status.
local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1; echo \"rc=$?\""))
  local out = p:read("a")
  p:close()
  return out, tonumber(out:match("rc=(%d+)%s*$"))
end

describe("one option model (#28.2)", function()
  local sources = core.sources()
  local all = {}
  for _, src in ipairs(sources) do
    for _, o in ipairs(src.options) do all[#all + 1] = o end
  end

  it("every built-in source describes its options once, with a type, a target and help", function()
    assert.is_true(#all >= 6, "options: " .. #all)
    local seen = {}
    for _, o in ipairs(all) do
      assert.is_nil(seen[o.source .. "." .. o.name], o.name .. " twice")
      seen[o.source .. "." .. o.name] = true
      assert.is_truthy(({ text = 1, int = 1, path = 1, workload = 1 })[o.type], o.name)
      assert.is_truthy(({ arg = 1, cpus = 1, window = 1 })[o.to], o.name)
      assert.is_true(#o.help > 5, o.name)
    end
    assert.is_truthy(seen["sim.workload"] and seen["sim.cpus"] and seen["host.proc"] and seen["replay.speed"])
  end)

  it("mish --help lists every source's option with its help, from the tables", function()
    local out, rc = run("lua/mish --help")
    assert.equal(0, rc, out)
    for _, o in ipairs(all) do
      assert.is_truthy(out:find("--" .. o.name .. " " .. o.value, 1, true), o.name .. "\n" .. out)
      assert.is_truthy(out:find(o.source .. ": " .. o.help, 1, true), o.name .. "\n" .. out)
    end
  end)

  it("mish takes each option of the default system from $MISH_<OPTION>, and refuses another system's", function()
    local out, rc = run("MISH_CPUS=3 lua/mish -e 'print(\"cpus=\" .. s:info().cpus)'")
    assert.equal(0, rc, out)
    assert.is_truthy(out:find("cpus=3", 1, true), out)
    out, rc = run("MISH_SPEED=max lua/mish -e 'print(1)'")
    assert.equal(2, rc, out)
    assert.is_truthy(out:find("'MISH_SPEED=max' needs a recording: --from, --to and --speed go with --replay FILE", 1, true), out)
    out, rc = run("lua/mish --system host --cpus 2 -e 'print(1)'")
    assert.equal(2, rc, out)
    assert.is_truthy(out:find("'--system host' and '--cpus 2' do not go together", 1, true), out)
  end)

  it("mi.open_system takes any source's option by name and refuses it on another system", function()
    local sys = mi.open_system("sim", { workload = "batch", cpus = 3, virtual = true })
    assert.equal(3, sys:info().cpus)
    assert.equal("batch", sys:info().workload.name)
    sys:close()
    assert.has_error(function() mi.open_system("host", { cpus = 2 }) end, "'cpus' goes with sim, not host")
    assert.has_error(function() mi.open_system("sim:batch", { workload = "idle" }) end,
      "'workload' is given twice: 'sim:batch' names it already")
    assert.has_error(function() mi.open_system("sim", { cpus = 9 }) end, "'cpus': the number of CPUs must be a whole number 1-8")
    local ok, err = pcall(mi.open_system, "sim", { proc = "/proc" })
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find("'proc' goes with host, not sim", 1, true), err)
  end)

  it("a workload file or table still goes to the sim through its workload option", function()
    local sys = mi.open_system("sim", { workload = "examples/workloads/month_end.lua", virtual = true })
    assert.equal("month_end", sys:info().workload.name)
    sys:close()
    sys = mi.open_system("sim", { workload = { base = "idle", cpus = 2 }, virtual = true })
    assert.equal(2, sys:info().cpus)
    sys:close()
  end)
end)
