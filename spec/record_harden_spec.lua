-- record_harden_spec.lua: recordings as untrusted input and the recorder's lifetime (#27.3, 4,
-- 12): sample times that go back, a recorder whose system is closed or collected, windows that
-- are no times, an empty file, a symbolic link.
local mi = require("mi")
local MISH = "./lua/mish"

-- Runs a shell command; returns its stdout, stderr and exit status.
local function run(cmd)
  local out, err = os.tmpname(), os.tmpname()
  local ok, _, code = os.execute(cmd .. " > " .. out .. " 2> " .. err)
  local f = io.open(out) local o = f:read("a") f:close()
  f = io.open(err) local e = f:read("a") f:close()
  os.remove(out) os.remove(err)
  return o, e, ok and 0 or code
end

-- Records n samples a second apart of a fresh simulated system into path (appending), the
-- system's clock first moved on by skip seconds.
local function record(path, n, skip)
  local sys = mi.system({ workload = "oltp", cpus = 2, seed = 42 })
  if skip and skip > 0 then sys:advance(skip * 1000) end
  local r = mi.record({ system = sys, path = path, fsync = "none", items = { "gmt_idle", "gmt_paused", "process:pmt_process_time" } })
  for _ = 2, n do sys:advance(1000) assert(r:sample()) end
  r:close()
  sys:close()
end

describe("#27.12 recordings: times and files", function()
  local file
  before_each(function() file = H.tmp_path("rec27.mir") end)
  after_each(function() os.remove(file) os.remove(file .. ".lnk") end)

  it("#27.12 --from/--to and mi.replay windows refuse what is not a decimal number with a unit, or out of range", function()
    record(file, 3)
    local bad = { "-nan", "+nan", "+inf", "+1e9d", "+0x10s", "+1e3", "+99999999999d", "@0x10", "2026-11-22T06:00:1e1Z" }
    for _, t in ipairs(bad) do
      local _, e, c = run(MISH .. " --replay " .. file .. " --from '" .. t .. "' -e 'print(1)'")
      assert.equal(2, c, t)
      assert.matches("bad time '" .. t:gsub("%p", "%%%0") .. "'", e)
      assert.matches("decimal number and s, m, h or d", e)
      _, e, c = run(MISH .. " --replay " .. file .. " --to '" .. t .. "' -e 'print(1)'")
      assert.equal(2, c, t)
      local ok, err = pcall(mi.replay, file, { from = t })
      assert.is_false(ok, t)
      assert.matches("bad time", err)
      ok, err = pcall(mi.replay, file, { to = t })
      assert.is_false(ok, t)
      for _, script in ipairs({ "summary", "export" }) do
        _, e, c = run(MISH .. " scripts/" .. script .. ".lua " .. file .. " --from '" .. t .. "'")
        assert.equal(2, c, script .. " " .. t)
        assert.matches("bad time", e)
      end
    end
    -- the forms that are times still are
    local o, e, c = run(MISH .. " --replay " .. file .. " --from +1s --to +0.5m -e 'print(2)'")
    assert.equal(0, c, e)
    assert.equal("2\n", o)
    assert.is_userdata(mi.replay(file, { from = "+1.5s", to = "+10" }))
  end)

  it("#27.12 an empty file is a torn header (the recorder stopped before writing it), not 'not a recording'", function()
    io.open(file, "w"):close()
    local _, e, c = run(MISH .. " scripts/verify.lua " .. file)
    assert.equal(3, c)
    assert.matches("header record is torn", e)
    assert.matches("stopped before writing it", e)
    assert.not_matches("not a mish recording", e)
    _, e, c = run(MISH .. " --replay " .. file .. " -e 'print(1)'")
    assert.equal(2, c)
    assert.matches("stopped before writing it", e)
  end)

  it("#27.12 a recorder never writes through a symbolic link, nor onto a file that is not a recording", function()
    local f = io.open(file, "w") f:write("precious text\n") f:close()
    local ok, err = pcall(mi.record, { system = mi.system({ workload = "oltp" }), path = file, fsync = "none" })
    assert.is_false(ok)
    assert.matches("not a mish recording", err)
    f = io.open(file) assert.equal("precious text\n", f:read("a")) f:close()
    assert.is_true(os.execute("ln -s " .. file .. " " .. file .. ".lnk"))
    local _, e, c = run(MISH .. " scripts/record.lua -o " .. file .. ".lnk --count 1")
    assert.equal(1, c)
    assert.matches("symbolic link", e)
    f = io.open(file) assert.equal("precious text\n", f:read("a")) f:close()
  end)
end)
