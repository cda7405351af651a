-- harden_cli_spec.lua: issue 16 "a newcomer's first hour", the shell's and the scripts' part:
-- options and their errors (#16.3), errors that name what the user typed (#16.4), the Lua
-- idioms of the friendly API (#16.5), the prompt's help and completion (#16.6, #16.8),
-- mish -l (#16.9) and what the scripts print (#16.10, #16.11). Terminal checks (glance at
-- 60x15, progress) are in spec/examples.sh.

-- Runs a shell command; returns its exit code, stdout and stderr.
local function run(cmd)
  local out, err = os.tmpname(), os.tmpname()
  local ok, how, code = os.execute("(" .. cmd .. ") > " .. out .. " 2> " .. err)
  local function slurp(f) local h = assert(io.open(f)); local t = h:read("a"); h:close(); os.remove(f); return t end
  if how == "signal" then code = 128 + code end
  return ok and 0 or code, slurp(out), slurp(err)
end

-- Runs mish with an environment prefix and arguments.
local function mish(env, args) return run(string.format("%s ./lua/mish %s", env or "", args)) end

describe("#16.3 every bad option or variable is an error naming it, exit 2", function()
  local cases = {
    { "", "--cpus 9", "'--cpus 9'" }, { "", "--cpus 0", "'--cpus 0'" }, { "", "--cpus -1", "'--cpus -1'" },
    { "", "--cpus abc", "'--cpus abc'" }, { "", "--cpus 2.5", "'--cpus 2.5'" },
    { "", "--workload", "--workload needs a value" }, { "", "--workload -e 1", "--workload needs a value" },
    { "", "--system", "--system needs a value" }, { "", "-e", "-e needs" },
    { "", "--system host --workload batch", "'--system host' and '--workload batch'" },
    { "", "--system host --cpus 2", "'--system host' and '--cpus 2'" },
    { "", "--system sim:batch --workload idle", "'--system sim:batch' and '--workload idle'" },
    { "", "--system nosuch", "'--system nosuch'" }, { "", "--workload nosuch", "'--workload nosuch'" },
    { "", "--proc /tmp", "'--proc /tmp'" }, { "", "--bogus", "unknown option '--bogus'" },
    { "", "--share /tmp/x --attach /tmp/y", "'--share /tmp/x' and '--attach /tmp/y'" },
    { "MISH_SYSTEM=nosuch", "", "'MISH_SYSTEM=nosuch'" }, { "MISH_CPUS=abc", "", "'MISH_CPUS=abc'" },
    { "MISH_CPUS=", "", "MISH_CPUS is empty" },
    { "MISH_SYSTEM=host MISH_WORKLOAD=batch", "", "'MISH_SYSTEM=host' and 'MISH_WORKLOAD=batch'" },
  }
  for _, c in ipairs(cases) do
    it(("%s mish %s: exit 2, one line naming it"):format(c[1], c[2]), function()
      local rc, out, err = mish(c[1], c[2] .. " -e 'print(1)'")
      if c[2] == "-e" then rc, out, err = mish(c[1], "-e") end
      assert.equal(2, rc, err)
      assert.equal("", out)
      assert.truthy(err:find(c[3], 1, true), err)
      assert.equal(1, select(2, err:gsub("\n", "")), err)
      assert.falsy(err:find("traceback", 1, true))
    end)
  end
  it("command-line options override the environment, and a conflicting variable gives way", function()
    for env, args in pairs({ ["MISH_SYSTEM=host"] = "--system sim --workload batch", ["MISH_SYSTEM=host "] = "--workload batch",
                             ["MISH_WORKLOAD=idle"] = "--workload batch", ["MISH_CPUS=4"] = "--cpus 3 --workload batch" }) do
      local rc, out, err = mish(env, args .. " -e 'print(s:info().source, s:info().workload.name, s:info().cpus)'")
      assert.equal(0, rc, err)
      assert.truthy(out:match("^sim\tbatch\t%d\n$"), out)
      if args:find("cpus 3") then assert.equal("sim\tbatch\t3\n", out) end
    end
    local rc, out = mish("MISH_WORKLOAD=batch MISH_CPUS=4", "--system host -e 'print(s:info().source)'")
    assert.equal(0, rc)
    assert.equal("host\n", out)
    rc, out = mish("", "--cpus=3 -e 'print(s:info().cpus)'")
    assert.equal(0, rc)
    assert.equal("3\n", out)
  end)
end)

describe("#16.4 errors name what the user typed, never mish's own files, no traceback", function()
  local function no_internals(err)
    assert.falsy(err:find("mi/[%w_]+%.lua:%d"), err)
    assert.falsy(err:find("mi/cli.lua", 1, true), err)
    assert.falsy(err:find("traceback", 1, true), err)
  end
  it("mi.open{system = 'foo'} names the system, not 'session'", function()
    local rc, _, err = mish("", [[-e 'mi.open{system = "foo"}']])
    assert.equal(1, rc)
    assert.equal("mish: (command line):1: unknown system 'foo' (sim, host, replay)\n", err)
    rc, _, err = mish("", [[-e 'mi.open{system = {workload = "nope"}}']])
    assert.truthy(err:find("^mish: %(command line%):1: unknown workload 'nope'"), err)
    no_internals(err)
    rc, _, err = mish("", [[-e 'print(mi.open{system = "sim:batch"}:info().workload.name)']])
    assert.equal(0, rc, err)
  end)
  it("mi.sleep(-1) blames the caller's line", function()
    local _, _, err = mish("", "-e 'mi.sleep(-1)'")
    assert.truthy(err:find("^mish: %(command line%):1: bad argument #1 to 'sleep'"), err)
    no_internals(err)
  end)
  it("a script's own error is its message alone", function()
    local f = os.tmpname()
    local h = io.open(f, "w"); h:write("local x\nx.y = 1\n"); h:close()
    local rc, _, err = mish("", f)
    os.remove(f)
    assert.equal(1, rc)
    assert.equal("mish: " .. f .. ":2: attempt to index a nil value (local 'x')\n", err)
  end)
  it("a workload file's error names the file", function()
    local f = os.tmpname() .. ".lua"
    local h = io.open(f, "w"); h:write("return {cpus=\n"); h:close()
    local rc, _, err = mish("", "--workload " .. f .. " -e 1")
    os.remove(f)
    assert.equal(2, rc)
    assert.truthy(err:find(f, 1, true), err)
    no_internals(err)
  end)
  it("coverage.lua checks --minutes, --workloads and --out before the run", function()
    for a, want in pairs({ ["--minutes -5"] = "coverage: --minutes -5: wants", ["--workloads idle,nosuch"] =
      "coverage: --workloads nosuch: unknown workload 'nosuch'", ["--out /nonexistent/x.md"] = "coverage: --out /nonexistent/x.md:",
      ["--out"] = "coverage: option --out needs a value", ["--count 1"] = "coverage: unknown option '--count'" }) do
      local rc, out, err = mish("", "coverage --minutes 1 " .. a)
      assert.equal(2, rc, a)
      assert.equal("", out, a)
      assert.truthy(err:find(want, 1, true), err)
      assert.falsy(err:find("coverage.lua:", 1, true), err)
    end
  end)
  it("scripts check values when parsing options, before the run: --interval 1e9, --count 2.5", function()
    for _, a in ipairs({ "--interval 1e9", "--interval 0", "--interval x", "--count 2.5", "--count -1", "--n x" }) do
      local rc, out, err = mish("", "scripts/top.lua " .. a)
      assert.equal(2, rc, a)
      assert.equal("", out, a)
      assert.truthy(err:find("^top: " .. a:gsub("%-", "%%-"):gsub("%.", "%%.") .. ": wants"), err)
    end
  end)
end)

describe("#16.5 the friendly API fails the Lua way: nil, Status", function()
  local mi = require("mi")
  it("assert(s:on('global', 99999)) fails, naming the status; a success still carries per-item statuses", function()
    local s = H.session()
    local ok, err = pcall(function() assert(s:on("global", 99999)) end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("-20012 NO_VALID_ITEMS", 1, true), tostring(err))
    local st = assert(s:on("global", { "gmt_idle", "gmt_paused" }))
    assert.is_true(st.ok)
    assert.same({ 0, 0 }, st.items)
    local none, again = s:on("global", "gmt_idle")
    assert.is_nil(none)
    assert.equal(-20001, again.code)
    s:close()
  end)
  it("a partial ON (an item error) is no failure: the Status comes back, .ok false, .items naming the bad one", function()
    local s = H.session()
    local st = s:on("global", { "gmt_idle", 99999 })
    assert.is_table(st)
    assert.is_false(st.ok)
    assert.equal(2, st.code)
    assert.is_true(st.items[2] ~= 0)
    s:close()
  end)
  it("a failed GET is nil, Status in every domain", function()
    local s = H.session()
    local lists = { global = { 21177 }, process = { "pmt_process_time" }, io = { "imc_completed_read" }, processor = { "gmt_idle" } }
    for d, items in pairs(lists) do
      local data, st = s:get(d, items)
      assert.is_nil(data, d)
      assert.equal(-20013, st.code, d)
    end
    local none, st = s:off("process")
    assert.is_nil(none)
    assert.is_true(st.code < 0)
    s:close()
  end)
  it("s:get('bogus') says unknown domain; s:get('process') with nothing on says nothing is enabled", function()
    local s = H.session()
    local ok, err = pcall(s.get, s, "bogus")
    assert.is_false(ok)
    assert.truthy(err:find("unknown domain 'bogus' (global, process, io or processor)", 1, true), err)
    ok, err = pcall(s.get, s, "process")
    assert.truthy(err:find("nothing enabled in domain 'process'", 1, true), err)
    ok, err = pcall(s.on, s, "bogus", "x")
    assert.truthy(err:find("unknown domain 'bogus'", 1, true), err)
    s:close()
    assert.is_nil(mi.describe("no such thing"))
  end)
end)

describe("#16.6 every example line of help() and the README prints what it promises", function()
  -- Types lines at the prompt in order (a marker after each); returns what each printed.
  local function type_lines(lines)
    local f = os.tmpname()
    local h = io.open(f, "w")
    for _, l in ipairs(lines) do h:write(l, "\nprint('--mark--')\n") end
    h:close()
    local _, out, err = mish("", "-i < " .. f)
    os.remove(f)
    local outs = {}
    for chunk in (out .. "mish> print('--mark--')"):gmatch("(.-)mish> print%('%-%-mark%-%-'%)") do
      outs[#outs + 1] = ("\n" .. chunk):gsub("\nmish> [^\n]*", ""):gsub("\n%-%-mark%-%-", "")
    end
    return outs, err
  end
  local function check(lines)
    local outs, err = type_lines(lines)
    assert.equal("", err)
    for i, l in ipairs(lines) do
      assert.truthy(outs[i]:find("%S"), "prints nothing: " .. l)
    end
  end
  it("help()'s example lines, typed in order", function()
    local _, out = mish("", "-e 'help()'")
    local lines = {}
    for l in out:gmatch("\n  ([^\n]-)   +[^\n]*") do lines[#lines + 1] = l end
    assert.is_true(#lines >= 10, out)
    check(lines)
  end)
  it("the README tour's prompt lines, typed in order", function()
    local h = assert(io.open("README.md"))
    local text = h:read("a")
    h:close()
    local lines = {}
    local block = text:match("\n\n(    s:on%(\"process\".-)\n\n")
    for l in block:gmatch("    ([^\n]+)") do lines[#lines + 1] = l end
    for l in text:gmatch("\n    > ([^\n]+)") do lines[#lines + 1] = l end
    assert.is_true(#lines >= 5, block)
    check(lines)
  end)
  it("a statement then an expression at the prompt prints the expression; a string's ';' is no split", function()
    local outs = type_lines({ "local a = 5; a * 2", 'x = "a;b"; x', "y = 1; z = 2" })
    assert.truthy(outs[1]:find("\n10\n"), outs[1])
    assert.truthy(outs[2]:find('\n"a;b"\n'), outs[2])
    assert.falsy(outs[3]:find("%S"), outs[3])
  end)
end)

describe("#16.8 completion offers no internals, and domains where a domain is expected", function()
  local sh = require("mi.shell")
  it("s: offers the session's methods only", function()
    local env = { mi = require("mi"), s = H.session() }
    local c = sh.complete("s:", env)
    for _, m in ipairs(c) do
      assert.falsy(m:find("^s:_"), m)
      assert.is_function(env.s[m:sub(3)], m)
    end
    for _, bad in ipairs({ "s:__close", "s:__index", "s:lists", "s:sys", "s:s", "s:uid", "s:queries", "s:query" }) do
      for _, m in ipairs(c) do assert.not_equal(bad, m) end
    end
    for _, good in ipairs({ "s:on", "s:get", "s:off", "s:config", "s:put", "s:time", "s:close" }) do
      local found = false
      for _, m in ipairs(c) do if m == good then found = true end end
      assert.is_true(found, good)
    end
    assert.same({}, sh.complete("s.li", env))
    assert.same({}, sh.complete("mish_o", { mish_options = {} }))
    env.s:close()
  end)
  it("a domain argument offers domains, an item argument that domain's items", function()
    local env = { s = {} }
    assert.same({ "process", "processor" }, sh.complete("pro", env, 's:get("'))
    assert.same({ "global", "io", "process" }, sh.complete("", env, "s:on('"))
    assert.same({ "imc_logical_rd", "imc_logical_rd_xfer_size" },
      sh.complete("imc_logical_r", env, 's:on("io", {"imc_q_current", "'))
    assert.same({ "JOB_COUNT", "JOB_FENCE", "JOB_LIMIT", "JOB_SECURITY" }, sh.complete("JOB_", env, 's:config("'))
  end)
end)

describe("#16.9 mish -l lists the scripts, mish -l NAME shows one's help, mish NAME runs it from anywhere", function()
  it("mish -l: every script with a one-line description", function()
    local rc, out, err = mish("", "-l")
    assert.equal(0, rc, err)
    local n = 0
    for f in io.popen("ls scripts"):lines() do
      local name = f:match("^(.-)%.lua$")
      if name then
        n = n + 1
        assert.truthy(out:find("\n  " .. name .. " +%a[^\n]+%.\n"), name .. " in\n" .. out)
      end
    end
    assert.is_true(n >= 8)
  end)
  it("mish -l top shows top's options; mish -l nosuch is an error naming it, exit 2", function()
    local rc, out = mish("", "-l top")
    assert.equal(0, rc)
    assert.truthy(out:find("usage: mish top", 1, true), out)
    assert.truthy(out:find("--by KEY", 1, true), out)
    local err
    rc, out, err = mish("", "-l nosuch")
    assert.equal(2, rc)
    assert.truthy(err:find("no script 'nosuch'", 1, true), err)
  end)
  it("mish top runs scripts/top.lua, from any directory", function()
    local here = io.popen("pwd"):read("l")
    local rc, out, err = run("cd / && " .. here .. "/lua/mish top --count 1 --interval 0.1 --n 2 --csv")
    assert.equal(0, rc, err)
    assert.truthy(out:find("^[^\n]*pid,program"), out)
    rc, out, err = run("cd / && " .. here .. "/lua/mish scripts/top.lua --count 1 --interval 0.1 --n 2 --csv")
    assert.equal(0, rc, err)   -- the README's "lua/mish scripts/top.lua", typed elsewhere
    rc, _, err = run("cd / && " .. here .. "/lua/mish other/top.lua")
    assert.equal(1, rc)
    assert.truthy(err:find("cannot open other/top.lua", 1, true), err)
  end)
end)

describe("#16.10 scripts: an average at the end, a wall-clock time on every row, JSON numbers as numbers", function()
  local ISO = "%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d[%+%-]%d%d%d%d"
  for _, sc in ipairs({ "cpu", "disk", "top", "sem", "response" }) do
    it(sc .. ": the table ends with the run's average; every sample's title has the time of day", function()
      local rc, out, err = mish("", sc .. " --interval 0.1 --count 2")
      assert.equal(0, rc, err)
      local titles = 0
      for _ in out:gmatch("%f[^\n%z]%d%d:%d%d:%d%d  sample %d") do titles = titles + 1 end
      assert.equal(2, titles, out)
      assert.truthy(out:find("\nAverage of 2 samples, %d%d:%d%d:%d%d to %d%d:%d%d:%d%d\n"), out)
    end)
    it(sc .. ": --csv has a time column, --json a time key, on every row", function()
      -- sem prints a row per semaphore class used in the interval: the ipc workload always uses some
      local wl = sc == "sem" and "--workload ipc " or ""
      local rc, out = mish("", wl .. sc .. " --interval 0.1 --count 2 --csv")
      assert.equal(0, rc)
      local n = 0
      for l in out:gmatch("[^\n]+") do
        n = n + 1
        if n == 1 then assert.truthy(l:find("^time,"), l) else assert.truthy(l:find("^" .. ISO .. ","), l) end
      end
      assert.is_true(n >= 2, "a header and a row at least: " .. out)
      rc, out = mish("", wl .. sc .. " --interval 0.1 --count 2 --json")
      assert.equal(0, rc)
      n = 0
      for l in out:gmatch("[^\n]+") do n = n + 1; assert.truthy(l:find('"time":"' .. ISO .. '"'), l) end
      assert.is_true(n >= 2, "an object per sample at least: " .. out)
    end)
  end
  it("glance --csv and --json carry the time too", function()
    local _, out = mish("", "glance --interval 0.1 --count 1 --csv")
    assert.truthy(out:find("^time,sample,cpu"), out)
    assert.truthy(out:find("\n" .. ISO .. ",1,0,"), out)
    _, out = mish("", "glance --interval 0.1 --count 1 --json")
    assert.truthy(out:find('"time":"' .. ISO .. '"'), out)
  end)
  it("config.lua --json: numbers as numbers, flags as booleans, masks as bit lists", function()
    local rc, out = mish("", "config --json")
    assert.equal(0, rc)
    assert.truthy(out:find('"name":"JOB_FENCE","put":true,"value":%d+}'), out)
    assert.truthy(out:find('"max":14,', 1, true), out)
    assert.truthy(out:find('"name":"SINGLE_USER","put":false,"value":false}', 1, true), out)
    assert.truthy(out:find('"name":"LOGGING","put":true,"value":%[%d[%d,]*%]}'), out)
    assert.falsy(out:find('"value":"%d'), out)
  end)
end)

describe("#16.11 plots: checked before the run, a colour per series, a time axis, gnuplot's errors shown", function()
  local have = os.execute("command -v gnuplot > /dev/null 2>&1") == true
  for _, sc in ipairs({ "cpu", "disk", "top", "sem", "response", "glance" }) do
    it(sc .. " takes --plot", function()
      local _, out = mish("", "-l " .. sc)
      assert.truthy(out:find("--plot FILE", 1, true), out)
    end)
  end
  it("a bad --plot is refused before the run: extension, directory", function()
    for _, f in ipairs({ "/tmp/x.txt", "/nonexistent-dir/x.svg", "/etc/passwd/x.png" }) do
      local rc, out, err = mish("", "cpu --interval 0.1 --count 1 --plot " .. f)
      assert.equal(2, rc, f)
      assert.equal("", out, f)
      assert.truthy(err:find("^cpu: %-%-plot " .. f:gsub("%p", "%%%0") .. ": "), err)
    end
  end)
  it("gnuplot's own error is shown when it fails, and no file is left", function()
    local bin = os.tmpname()
    os.remove(bin)
    os.execute("mkdir -p " .. bin)
    local h = io.open(bin .. "/gnuplot", "w")
    h:write("#!/bin/sh\necho 'line 7: a thing gnuplot did not like' >&2\nexit 1\n")
    h:close()
    os.execute("chmod +x " .. bin .. "/gnuplot")
    local f = os.tmpname() .. ".svg"
    local rc, _, err = mish("PATH=" .. bin .. ":$PATH", "cpu --interval 0.1 --count 1 --plot " .. f)
    os.execute("rm -rf " .. bin)
    assert.equal(1, rc)
    assert.truthy(err:find("gnuplot failed", 1, true), err)
    assert.truthy(err:find("line 7: a thing gnuplot did not like", 1, true), err)
    assert.is_nil(io.open(f))
  end)
  it("cpu's SVG: ten bands (paused among them), each its own colour, on a time axis", function()
    if not have then pending("gnuplot is not installed") return end
    local f = os.tmpname() .. ".svg"
    local rc, _, err = mish("", "cpu --interval 0.2 --count 3 --plot " .. f)
    assert.equal(0, rc, err)
    local h = assert(io.open(f))
    local svg = h:read("a")
    h:close()
    os.remove(f)
    local colours = {}
    for c in svg:gmatch("rgb%(([ %d,]+)%)") do colours[c:gsub(" ", "")] = true end
    local n = 0
    for _ in pairs(colours) do n = n + 1 end
    assert.is_true(n >= 10, "distinct colours: " .. n)
    for _, band in ipairs({ "paused", "idle", "ics", "disp", "memmgr", "as", "bs", "cs", "ds", "es" }) do
      assert.truthy(svg:find(">" .. band .. "<", 1, true), band)
    end
    assert.truthy(svg:find(">time of day<", 1, true))
    assert.truthy(svg:find(">%d%d:%d%d:%d%d"), "time-of-day tic labels")
  end)
  it("response's SVG: the two histograms side by side, each its own colour", function()
    if not have then pending("gnuplot is not installed") return end
    local f = os.tmpname() .. ".svg"
    local rc = mish("", "response --interval 0.2 --count 2 --plot " .. f)
    assert.equal(0, rc)
    local h = assert(io.open(f))
    local svg = h:read("a")
    h:close()
    os.remove(f)
    assert.truthy(svg:find("rgb%( 31, 119, 180%)") and svg:find("rgb%(255, 127,  14%)"), "two colours")
    assert.truthy(svg:find(">first response<", 1, true))
  end)
end)

describe("#16.12 glance's data: host names whole, disks named beside their LDEV", function()
  local cli = require("mi.cli")
  it("a Linux program name keeps its dots; an MPE name shows its first part", function()
    local s = { ms = function(_, t) return t end }
    local cur = { [1] = { pid = 1, program_name = "python3.11", user_name = "root", js_number = "" },
                  [2] = { pid = 2, program_name = "PROG.PUB.SYS", user_name = "MGR.SYS", js_number = "#S7" },
                  [3] = { pid = 3, program_name = "systemd-journal", user_name = "ROOT", js_number = "" } }
    local rows = cli.process_rates(s, {}, cur, 1000)
    table.sort(rows, function(a, b) return a.pid < b.pid end)
    assert.same({ "python3.11", "PROG", "systemd-journal" }, { rows[1].program, rows[2].program, rows[3].program })
    assert.same({ "root", "MGR", "ROOT" }, { rows[1].user, rows[2].user, rows[3].user })
    assert.equal("#S7", rows[2].js)
  end)
  it("the host system names its disks: info().host.disks[ldev] (a fixture /proc)", function()
    local root = os.tmpname()
    os.remove(root)
    os.execute("mkdir -p " .. root)
    local function put(rel, text) local h = assert(io.open(root .. "/" .. rel, "w")); h:write(text); h:close() end
    put("stat", "cpu  1 0 1 10 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\nbtime 1700000000\nprocs_running 1\nprocs_blocked 0\n")
    put("meminfo", "MemTotal: 1000 kB\nMemFree: 500 kB\n")
    put("vmstat", "pgmajfault 1\n")
    put("interrupts", "           CPU0\n  0:  1  IO-APIC  timer\n")
    put("diskstats", "   7 0 loop0 1 0 1 1 0 0 0 0 0 0 0\n   8 0 sda 1 0 1 1 0 0 0 0 0 0 0\n" ..
      "   8 1 sda1 1 0 1 1 0 0 0 0 0 0 0\n 259 0 nvme0n1 1 0 1 1 0 0 0 0 0 0 0\n")
    local rc, out, err = mish("", "--system host --proc " .. root ..
      " -e 'local d = s:info().host.disks; print(d[1], d[2], d[3])'")
    os.execute("rm -rf " .. root)
    assert.equal(0, rc, err)
    assert.equal("sda\tnvme0n1\tnil\n", out)
  end)
end)
