-- doors_spec.lua: door 1 of issue 12 — the program chooses the system (no environment in the
-- core): every way into the default system measures the same one, whatever mish was told.

-- Runs mish with options (and an environment prefix) on a script that reports, for the friendly
-- API (mi.open), core.system("default"), mi.default_system() and the literal layer, the source,
-- workload, CPUs and processes; returns the lines (one per way in) or nil, stderr.
local PROBE = [[
local core, L = require("mi.core"), mi.literal
local a = mi.open()
local raw = L.session()
L.GETPRIVMODE(raw); L.AIFGLOBINSTALL(raw, 666); L.AIFACCESSON(raw, 666)
local d, m = core.system("default"), mi.default_system()
local function line(i) return table.concat({ i.source, i.workload and i.workload.name or "-", i.cpus, i.processes }, " ") end
local ia, id, im = a:info(), d:info(), m:info()   -- no AIF call in between: the same instant
local _, _, lit = L.AIFSCGET(raw, { 3039, 3004, 3002, 0 }, 0)
local cfg = a:config(3039, 3004, 3002)
print("open " .. line(ia)); print("core " .. line(id)); print("mi " .. line(im))
print("literal " .. table.concat(lit, " ")); print("friendly " .. table.concat({ cfg[3039], cfg[3004], cfg[3002] }, " "))
]]

local function mish(env, opts)
  local errf, probe = os.tmpname(), os.tmpname()
  local f = io.open(probe, "w"); f:write(PROBE); f:close()
  local p = io.popen(string.format("%s ./lua/mish %s %s 2>%s", env, opts, probe, errf))
  local out = p:read("a")
  local ok = p:close()
  f = io.open(errf); local err = f:read("a"); f:close(); os.remove(errf); os.remove(probe)
  if not ok then return nil, err end
  local t = {}
  for k, v in out:gmatch("(%a+) ([^\n]*)") do t[k] = v end
  return t
end

-- Checks that all ways in agree and measure what was asked: source, workload and CPUs.
local function agree(env, opts, source, workload, cpus)
  local t, err = mish(env, opts)
  assert.is_table(t, err)
  assert.equal(t.open, t.core, "mi.open() and core.system('default') measure the same system")
  assert.equal(t.open, t.mi, "mi.open() and mi.default_system() measure the same system")
  assert.equal(t.friendly, t.literal, "the literal layer reads the same configuration as mi.open()")
  local src, w, n = t.open:match("^(%S+) (%S+) (%d+) %d+$")
  assert.equal(source, src)
  if workload then assert.equal(workload, w) end
  if cpus then assert.equal(cpus, tonumber(n)) end
end

describe("#12 door 1: one default system", function()
  it("with no options every way in measures oltp on 2 CPUs (#12.3)", function()
    agree("", "", "sim", "oltp", 2)
  end)
  it("--workload batch --cpus 4: every way in measures batch on 4 CPUs (#12.3)", function()
    agree("", "--workload batch --cpus 4", "sim", "batch", 4)
  end)
  it("--workload FILE.lua: the literal layer and core.system('default') measure the file's workload too (#12.3)", function()
    agree("", "--workload examples/workloads/month_end.lua", "sim", "month_end", 4)
  end)
  it("--system host: every way in measures the host (#12.3)", function()
    agree("", "--system host", "host")
  end)
  it("the environment still sets mish's defaults and the command line wins (#12.3)", function()
    agree("MISH_WORKLOAD=batch MISH_CPUS=3", "", "sim", "batch", 3)
    agree("MISH_WORKLOAD=batch MISH_CPUS=3", "--cpus 1", "sim", "batch", 1)
  end)
  it("a spec names source and argument: --system sim:disk (#12.1)", function()
    agree("", "--system sim:disk", "sim", "disk")
  end)
  it("a bad choice is one line naming it (#12.1, #16.3)", function()
    for opts, msg in pairs({ ["--system vax"] = "mish: '--system vax': no system 'vax' (sim, host, replay) (try mish --help)",
                             ["--cpus 9"] = "mish: '--cpus 9': the number of CPUs must be a whole number 1-8 (try mish --help)",
                             ["--system host --workload batch"] = "mish: '--system host' and '--workload batch' do not go together (try mish --help)",
                             ["--proc /tmp"] = "mish: '--proc /tmp' needs the host system (--system host) (try mish --help)" }) do
      local t, err = mish("", opts)
      assert.is_nil(t, opts)
      assert.equal(msg .. "\n", err, opts)
    end
  end)
end)

describe("#12 door 1: the core reads no environment and sources keep to the writer API", function()
  local function files(cmd)
    local p, t = io.popen(cmd), {}
    for f in p:lines() do t[#t + 1] = f end
    p:close()
    return t
  end
  local function read(f) local h = assert(io.open(f)); local s = h:read("a"); h:close(); return s end
  it("no file under core/ calls getenv (#12.3)", function()
    local fs = files("find core -name '*.[ch]'")
    assert.is_true(#fs > 10)
    for _, f in ipairs(fs) do
      assert.is_nil(read(f):find("getenv%s*%("), f .. " calls getenv")
    end
  end)
  it("no source includes mi_internal.h, and the build refuses it (#12.2)", function()
    local fs = files("find core/sources -name '*.c'")
    assert.is_true(#fs >= 2)
    for _, f in ipairs(fs) do
      assert.is_nil(read(f):find('#include%s*"mi_internal.h"'), f .. " includes mi_internal.h")
    end
    local cc = os.getenv("CC") or "cc"
    local ok = os.execute(cc .. " -fsyntax-only -DMI_SOURCE_BUILD -Icore -x c - 2>/dev/null <<'EOF'\n#include \"mi_internal.h\"\nEOF")
    assert.is_falsy(ok, "mi_internal.h compiles under MI_SOURCE_BUILD")
  end)
end)
