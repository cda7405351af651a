-- scripts_audit_spec.lua: issue #30, done-means 3 — every script in scripts/ (the directory is
-- listed: a new script is covered by the defaults below) run on a host whose --proc is not a proc
-- root or lacks files, on a torn and a damaged recording, and on a recording shorter than --count:
-- it exits as documented, says on stderr what was missing, and prints no figure where its input
-- had no data (its JSON is parsed: such a figure is null, and no sample past the recording's end).
local MISH = "./lua/mish"
local run = H.run_split   -- spec/helpers.lua: stdout, stderr, exit status

-- How each script is run and what it may print. A script not listed is a sampling script of
-- mi.cli (--count, --interval, --json; exit 0). Fields:
--   kind      "sampler" (runs on a system), "reader" (reads a recording FILE), "record", "coverage"
--   ids       keys whose numbers name something (an entity, a sample), never a measured figure
--   partial   keys that may hold numbers on the host that lacks files (figures it still read)
--   says      per input, what stderr says (a Lua pattern); false: nothing was missing
--   exit      per input, the documented exit status (default 0)
local SCRIPTS = {
  cpu = { says = { partial = "nothing measured" } },
  disk = { says = { partial = "nothing measured" } },
  glance = { partial = { ready = true, disk_blocked = true, cpu_pct = true, io_s = true, faults_s = true },
             says = { partial = "free memory was not read" } },
  response = { says = { partial = "does not measure the histograms" } },
  sem = { says = { partial = "does not measure the semaphore classes" } },
  top = { partial = { cpu_pct = true, io_s = true, faults_s = true }, says = { partial = false } },
  -- config: the MI's own settings and constants are values, not measurements; the four items the
  -- host reads from /proc and /etc (HOST_READ) are checked by item
  config = { kind = "config", ids = { min = true, max = true, value = true }, says = { partial = "nothing measured" } },
  coverage = { kind = "coverage", exit = { empty = 1, torn = 2, damaged = 2 }, says = { partial = false } },
  record = { kind = "record", exit = { empty = 1 }, says = { partial = false } },
  summary = { kind = "reader", exit = { empty = 3 }, says = { partial = false } },
  export = { kind = "reader", exit = { empty = 3 }, says = { partial = false } },
  verify = { kind = "reader", exit = { empty = 3, torn = 1, damaged = 2 },   -- its report is on stdout
             says = { partial = false, torn = '"torn_at":%d+', damaged = '"damaged_regions":[1-9]' } },
}
-- The configuration items the host source reads from its files (3035 threads-max, 3038 machine-id,
-- 3039 meminfo, 3046 boot_id): missing where the files are (the partial root has none of them).
local HOST_READ = { 3035, 3038, 3039, 3046 }
-- Keys whose numbers are identities or the sample's own bookkeeping in every script's JSON.
local IDS = { sample = true, interval_ms = true, cpu = true, ldev = true, pid = true, class = true, item = true }
-- What stderr says on each input when no script says otherwise (hostrec: the partial host's
-- recording replayed; its figures are the partial host's).
local SAYS = { empty = "nothing measured", torn = "torn tail", damaged = "damaged region", short = "ended after %d+ samples? of the 10 asked for",
  hostrec = "measure" }

-- The scripts of scripts/, by name.
local function listed()
  local names, p = {}, io.popen("ls scripts")
  for f in p:lines() do
    local n = f:match("^(.+)%.lua$")
    if n then names[#names + 1] = n end
  end
  p:close()
  return names
end

-- Every key holding a number in the JSON text (an object or array at any depth), as {key, value}.
local function numbers(json)
  local out = {}
  for k, v in json:gmatch('"([%w_]+)":(%-?%d[%d%.eE%+%-]*)') do out[#out + 1] = { k, tonumber(v) } end
  return out
end

-- The samples a recording's reader finds (verify --json: every tool counts the same, #30.6).
local function readable(file)
  local o = run(MISH .. " scripts/verify.lua " .. file .. " --json")
  return tonumber(o:match('"samples":(%d+)'))
end

-- A /proc with CPUs and two processes but no meminfo, diskstats, vmstat, interrupts or schedstat.
local function partial_root(root)
  H.put_file(root, "stat", "cpu  300 10 80 1500 60 15 15 20 0 0\ncpu0 300 10 80 1500 60 15 15 20 0 0\n" ..
    "btime 1700000000\nprocs_running 2\nprocs_blocked 0\n")
  for _, p in ipairs({ { 1, "init", 0 }, { 100, "bash", 1 } }) do
    H.put_file(root, p[1] .. "/stat", string.format("%d (%s) S %d %d %d 0 -1 0 100 0 0 0 40 5 0 0 20 0 1 0 500 1000 10 0\n",
      p[1], p[2], p[3], p[1], p[1]))
    H.put_file(root, p[1] .. "/status", "Name:\t" .. p[2] .. "\nUid:\t0\t0\t0\t0\n")
    H.put_file(root, p[1] .. "/io", "rchar: 1\nwchar: 1\nsyscr: 7\nsyscw: 3\nread_bytes: 0\nwrite_bytes: 0\n")
  end
end

describe("#30 every script on input with missing data prints no figure it did not measure", function()
  local dir, rec, host = nil, {}, {}
  setup(function()
    local p = io.popen("mktemp -d /tmp/mish-audit.XXXXXX")
    dir = p:read("l")
    p:close()
    assert(dir and dir:find("^/tmp/mish%-audit%."), "mktemp -d")
    -- the host inputs: a directory that is no proc root, and one lacking the system-wide files
    host.empty, host.partial = dir .. "/empty", dir .. "/partial"
    assert(os.execute("mkdir " .. host.empty))
    partial_root(host.partial)
    -- the recordings, made by scripts/record.lua: 12 samples of the simulator, torn in its last
    -- frame and damaged in a late one; 3 samples (shorter than --count 10); and of the two hosts
    local full = dir .. "/full.mir"
    local _, e, c = run(MISH .. " scripts/record.lua -o " .. full .. " --count 12 --interval 0.05 --fsync none")
    assert(c == 0, e)
    local f = assert(io.open(full, "rb"))
    local bytes = f:read("a")
    f:close()
    rec.torn, rec.damaged, rec.short = dir .. "/torn.mir", dir .. "/damaged.mir", dir .. "/short.mir"
    f = assert(io.open(rec.torn, "wb"))
    f:write(bytes:sub(1, #bytes - 60))
    f:close()
    local at = #bytes - 2500   -- a late frame: the samples before it stay readable
    f = assert(io.open(rec.damaged, "wb"))
    f:write(bytes:sub(1, at), (bytes:sub(at + 1, at + 16):gsub(".", function(x) return string.char(x:byte() ~ 0x5a) end)),
      bytes:sub(at + 17))
    f:close()
    _, e, c = run(MISH .. " scripts/record.lua -o " .. rec.short .. " --count 3 --interval 0.05 --fsync none")
    assert(c == 0, e)
    rec.empty, rec.partial = dir .. "/host-empty.mir", dir .. "/host-partial.mir"
    run(MISH .. " --system host --proc " .. host.empty .. " scripts/record.lua -o " .. rec.empty .. " --count 3 --interval 0.05")
    _, e, c = run(MISH .. " --system host --proc " .. host.partial .. " scripts/record.lua -o " .. rec.partial ..
      " --count 3 --interval 0.05 --fsync none")
    assert(c == 0, e)
  end)
  teardown(function() if dir then os.execute("rm -rf -- '" .. dir .. "'") end end)

  it("the inputs are what they claim: torn, damaged with samples left, short, and no recording of nothing", function()
    assert.equal(1, select(3, run(MISH .. " scripts/verify.lua " .. rec.torn)))
    assert.equal(2, select(3, run(MISH .. " scripts/verify.lua " .. rec.damaged)))
    assert.is_true(readable(rec.damaged) >= 3, "samples before the damage")
    assert.equal(3, readable(rec.short))
    assert.is_nil(io.open(rec.empty), "record.lua wrote a recording of a host that read nothing")
    assert.equal(3, readable(rec.partial))
  end)

  it("a recording damaged in its only key frame: a replay says the damage, not only that no sample is left (exit 2)", function()
    local f = assert(io.open(rec.short, "rb"))
    local bytes = f:read("a")
    f:close()
    local ruined = dir .. "/ruined.mir"
    f = assert(io.open(ruined, "wb"))
    local r, at = require("mi").core.rec_open(rec.short), nil
    repeat local ev = r:next() if ev and ev.type == "sample" then at = ev.offset + 64 end until not ev or at
    r:close()
    assert.is_number(at)   -- inside the first sample, the key the others build on
    f:write(bytes:sub(1, at), (bytes:sub(at + 1, at + 16):gsub(".", function(x) return string.char(x:byte() ~ 0x5a) end)), bytes:sub(at + 17))
    f:close()
    assert.equal(0, readable(ruined))
    local out, err, code = run(MISH .. " --replay " .. ruined .. " scripts/cpu.lua --count 2 --json")
    assert.equal(2, code, err)
    assert.equal("", out)
    assert.truthy(err:find("damaged region", 1, true), err)
  end)

  local names = listed()
  it("lists the scripts (the audit covers each)", function()
    assert.is_true(#names >= 12, table.concat(names, " "))
  end)

  for _, name in ipairs(names) do
    local d = SCRIPTS[name] or {}
    local kind = d.kind or "sampler"
    local ids = setmetatable(d.ids or {}, { __index = IDS })
    -- The command that runs the script on input `what` (empty, partial, torn, damaged, short); nil: not applicable.
    local function applies(what)
      if what == "hostrec" then return kind == "sampler" end
      return not (what == "short" and kind ~= "sampler" and kind ~= "record")   -- the others have no --count to fall short of
    end
    local function command(what)
      local file = what == "hostrec" and rec.partial or rec[what]
      local sys = host[what] and (" --system host --proc " .. host[what]) or (" --replay " .. file)
      local script = " scripts/" .. name .. ".lua"
      if kind == "sampler" then return MISH .. sys .. script .. " --count 10 --interval 0.1 --json" end
      if kind == "config" then return MISH .. sys .. script .. " --json" end
      if kind == "coverage" then return MISH .. sys .. script .. " --seconds 1" end
      if kind == "record" then return MISH .. sys .. script .. " -o " .. dir .. "/out-" .. what .. ".mir --count 10 --interval 0.1 --fsync none" end
      return MISH .. script .. " " .. file .. (name == "export" and "" or " --json")
    end
    -- Checks that stderr (or verify's report) says what was missing on input `what`.
    local function said(what, out, err)
      local want = d.says and d.says[what]
      if what == "hostrec" and d.says and d.says.partial == false then want = false end
      if want == nil then want = SAYS[what] end
      if want == false then return end
      if kind == "reader" and what == "empty" then want = "host%-empty%.mir" end   -- no recording was made: named as unreadable
      local text = name == "verify" and (out .. err) or err
      assert.truthy(text:find(want), name .. " on " .. what .. " says " .. want .. ":\n" .. err)
      local once = select(2, err:gsub("nothing measured", ""))
      assert.is_true(once <= 1, name .. " said it more than once:\n" .. err)
    end

    for _, what in ipairs({ "empty", "partial", "torn", "damaged", "short", "hostrec" }) do
      if applies(what) then
        it(name .. " on " .. what .. " input: exit as documented, says what was missing, no figure without data", function()
          local cmd = command(what)
          local out, err, code = run(cmd)
          local want = d.exit and d.exit[what] or 0
          assert.equal(want, code, cmd .. "\n" .. err)
          said(what, out, err)
          assert.falsy(err:find("attempt to", 1, true), err)
          if kind == "sampler" or kind == "config" then
            if what == "empty" or what == "partial" or what == "hostrec" then   -- no figure but the allowed ones holds a number
              local allowed = what ~= "empty" and d.partial or {}
              local lines = 0
              for line in out:gmatch("[^\n]+") do
                lines = lines + 1
                for _, kv in ipairs(numbers(line)) do
                  assert(ids[kv[1]] or allowed[kv[1]], string.format("%s on %s: %s = %s was not measured\n%s", name, what, kv[1], kv[2], line))
                end
              end
              assert.is_true(lines > 0, name .. " printed nothing")
              if name == "config" then
                local values = {}
                for item, v in out:gmatch('{"item":(%d+)[^{}]-"value":([^,}]+)}') do values[tonumber(item)] = v end
                for _, item in ipairs(HOST_READ) do assert.equal("null", values[item], item .. " was not read:\n" .. out) end
              end
            elseif kind == "sampler" then   -- no sample past the recording's end
              local n = tonumber(err:match("ended after (%d+) sample"))
              assert.is_number(n, err)
              local last, lines = 0, 0
              for line in out:gmatch("[^\n]+") do
                lines = lines + 1
                local s = line:match('"sample":(%d+)')
                if s then last = math.max(last, tonumber(s)) end
              end
              if last == 0 then last = lines end   -- (glance's records have no sample number: one a line)
              assert.equal(n, last, out)
              assert.is_true(n >= 1 and n < readable(rec[what]), n .. " intervals between the samples")
            end
          elseif kind == "record" and code == 0 and not host[what] then
            assert.is_true(readable(dir .. "/out-" .. what .. ".mir") <= readable(rec[what]))
          elseif kind == "coverage" and code ~= 0 then
            assert.equal("", out)   -- no report of zeros
          elseif kind == "reader" and code ~= 3 then
            local n = readable(rec[what])
            if name == "summary" then assert.equal(n, tonumber(out:match('"window_samples":(%d+)')), out) end
            if name == "verify" then assert.equal(n, tonumber(out:match('"samples":(%d+)')), out) end
            if name == "export" then
              assert.equal(n, select(2, out:gsub(",global,0,,,gmt_idle,", "")), out:sub(1, 2000))   -- one line a sample
            end
            if name == "export" and what == "partial" then   -- what the host never measures is written empty, and said
              assert.truthy(out:find(",global,0,,,gmc_response_to_pt5,\n", 1, true), out:sub(1, 2000))
              assert.falsy(out:find(",global,0,,,gmc_response_to_pt5,0\n", 1, true), out:sub(1, 2000))
              assert.truthy(err:find("never measures", 1, true), err)
            end
            if name == "summary" and what == "partial" then   -- the host lacked meminfo and diskstats: no row of them
              assert.falsy(out:find('"item":"gmc_cur_free_main_mem_pg"', 1, true), out)
              assert.falsy(out:find('"domain":"io"', 1, true), out)
              -- --all shows what the host never measures (the response histogram) as missing, not 0, and says so
              local all, e2 = run(MISH .. " scripts/summary.lua " .. rec.partial .. " --all --json")
              local obj = all:match('{[^{}]*"item":"gmc_response_to_pt5"[^{}]*}')
              assert.truthy(obj, all:sub(1, 2000))
              assert.truthy(obj:find('"total":null', 1, true) and obj:find('"avg":null', 1, true), obj)
              assert.truthy(e2:find("never measures", 1, true), e2)
            end
          end
        end)
      end
    end
  end
end)

describe("#30.4 glance without a terminal at the end of a recording", function()
  it("prints its frames and says how many it had of the --count asked for, exit 0", function()
    local dir = io.popen("mktemp -d /tmp/mish-glance.XXXXXX"):read("l")
    finally(function() os.execute("rm -rf -- '" .. dir .. "'") end)
    local file = dir .. "/g.mir"
    local _, e, c = run(MISH .. " scripts/record.lua -o " .. file .. " --count 4 --interval 0.05 --fsync none")
    assert.equal(0, c, e)
    local out, err, code = run(MISH .. " --replay " .. file .. " scripts/glance.lua --count 9 --interval 0.05")
    assert.equal(0, code, err)
    local frames = select(2, out:gsub("\nCPU 0 %[", ""))
    assert.is_true(frames >= 1, out)
    assert.truthy(err:find("the recording ended after " .. frames .. " sample" .. (frames == 1 and "" or "s") .. " of the 9 asked for", 1, true), err)
    out, err, code = run(MISH .. " --replay " .. file .. " scripts/glance.lua --interval 0.05 --csv")   -- no --count: until the end
    assert.equal(0, code, err)
    assert.truthy(err:find("the recording ended after %d+ samples?\n"), err)
  end)
end)

describe("#30 cli.undriven: the figures a source never measures show as missing", function()
  it("names the host's undriven items (dispatcher, memory manager, AS, ES; the histograms) and none on the simulator", function()
    local mi, cli = require("mi"), require("mi.cli")
    local root = H.tmp_path("proc")
    partial_root(root)
    local s = mi.open({ system = mi.system({ host = true, proc = root, age_ms = 0 }) })
    finally(function() s:close() end)
    local set, list = cli.undriven(s, "processor", { "gmt_idle", "gmt_dispatcher_ics", "gmt_mem_mgr_sys_fetch_ics", "gmt_as_process",
      "gmt_cs_process", "gmt_es_process" })
    assert.same({ "gmt_dispatcher_ics", "gmt_mem_mgr_sys_fetch_ics", "gmt_as_process", "gmt_es_process" }, list)
    assert.is_nil(set.gmt_idle)
    assert.equal(10, #select(2, cli.undriven(s, "global", { 21000, 21001, 21002, 21003, 21004, 21005, 21006, 21007, 21008, 21009 })))
    local sim = H.session()
    finally(function() sim:close() end)
    assert.same({}, select(2, cli.undriven(sim, "processor", { "gmt_dispatcher_ics", "gmt_as_process" })))
  end)
end)
