-- cli_spec.lua: what the analysis scripts share (mi.cli) — option parsing, JSON, and the
-- per-process and per-disk rates that top, disk and glance all print.
local cli = require("mi.cli")

-- A stand-in session: MI_Time units of 125 us (rounding factor 1000, 8000 ticks per ms).
local s = { ms = function(_, t) return t * 1000 / 8000 end }

local function proc(pid, t, rd, wt, faults, name)
  return { pid = pid, program_name = name or "PROG.PUB.SYS", user_name = "MGR.SYS", js_number = "#S7",
           state = "alive", pmt_process_time = t, pmc_disc_read = rd, pmc_disc_write = wt,
           pmc_pg_fault_objcl_ = faults }
end

describe("mi.cli", function()
  it("parses options with defaults, inline values and flags", function()
    local spec = { name = "t", about = "a test", options = { { "n", "N", "rows", 10 }, { "by", "KEY", "key", "cpu" } } }
    local o = cli.parse(spec, { "--interval=0.5", "--count", "3", "--by", "io", "--json" })
    assert.equal(0.5, o.interval)
    assert.equal(3, o.count)
    assert.equal("io", o.by)
    assert.is_true(o.json)
    assert.equal(10, o.n)
    assert.is_nil(o.csv)
  end)

  it("takes an option's one-letter spelling (-o FILE for --out FILE) and shows both in --help", function()
    local spec = { name = "t", about = "a test", sampling = false, options = { { "out", "FILE", "where", nil, short = "o" } } }
    assert.equal("x.mir", cli.parse(spec, { "-o", "x.mir" }).out)
    assert.equal("y.mir", cli.parse(spec, { "--out", "y.mir" }).out)
    assert.equal("z.mir", cli.parse(spec, { "--out=z.mir" }).out)
    local rc, out = (function()
      local f = io.popen("lua/mish scripts/record.lua --help")
      local text = f:read("a")
      return select(3, f:close()), text
    end)()
    assert.equal(0, rc)
    assert.truthy(out:find("\n  -o, --out FILE ", 1, true), out)
  end)

  it("encodes JSON: arrays, sorted objects, escapes, non-finite numbers as null", function()
    assert.equal('[1,2.5,"a\\"b\\n"]', cli.json({ 1, 2.5, 'a"b\n' }))
    assert.equal('{"a":true,"b":null,"c":[]}', cli.json({ b = 0 / 0, a = true, c = {} }))
    assert.equal('"\\u0001"', cli.json("\1"))
  end)

  it("turns two process samples into per-process rates", function()
    local prev = { [10] = proc(10, 0, 5, 5, { 1, 1 }), [11] = proc(11, 4000, 0, 0, { 0, 0 }) }
    local cur = { [10] = proc(10, 4000, 15, 25, { 3, 5 }), [11] = proc(11, 4000, 0, 0, { 0, 0 }),
                  [12] = proc(12, 800, 2, 0, { 1, 0 }, "NEWBORN.PUB.SYS") }
    local rows = cli.process_rates(s, prev, cur, 1000)
    table.sort(rows, function(a, b) return a.pid < b.pid end)
    assert.equal(3, #rows)
    -- 4000 MI_Time = 500 ms of CPU in a 1000 ms interval
    assert.near(50, rows[1].cpu_pct, 1e-9)
    assert.near(30, rows[1].io_s, 1e-9)          -- 10 reads + 20 writes in one second
    assert.near(6, rows[1].faults_s, 1e-9)       -- (3 - 1) + (5 - 1)
    assert.equal("PROG", rows[1].program)
    assert.equal("MGR", rows[1].user)
    assert.equal("#S7", rows[1].js)
    assert.equal(0, rows[2].cpu_pct)             -- idle through the interval
    -- a process born in the interval counts from zero
    assert.equal("NEWBORN", rows[3].program)
    assert.near(10, rows[3].cpu_pct, 1e-9)
    assert.near(2, rows[3].io_s, 1e-9)
  end)

  it("shows a host process's program and user by their first part, whatever characters they hold", function()
    local cur = { [9] = { pid = 9, pmt_process_time = 0, js_number = "", program_name = "LUA5_4.BIN.USR",
                          user_name = "ROOT.ROOT" },
                  [10] = { pid = 10, pmt_process_time = 0, js_number = "", program_name = "KWORKER?", user_name = "0.0" } }
    local rows = cli.process_rates(s, {}, cur, 1000)
    table.sort(rows, function(a, b) return a.pid < b.pid end)
    assert.equal("LUA5_4", rows[1].program)
    assert.equal("ROOT", rows[1].user)
    assert.equal("KWORKER?", rows[2].program)
    assert.equal("0", rows[2].user)
  end)

  it("reads 0 for process counters that were not sampled", function()
    local prev = { [5] = { pid = 5, pmt_process_time = 0 } }
    local cur = { [5] = { pid = 5, pmt_process_time = 8000, js_number = "" } }
    local r = cli.process_rates(s, prev, cur, 2000)[1]
    assert.near(50, r.cpu_pct, 1e-9)
    assert.equal(0, r.io_s)
    assert.equal(0, r.faults_s)
    assert.equal("-", r.js)
  end)

  it("turns two I/O samples into per-LDEV rates, round trips and queues", function()
    local function dev(ldev, rd, wt, rsz, wsz, rrt, wrt, q, qmax)
      return { ldev = ldev, imc_completed_read = rd, imc_completed_write = wt, imc_read_xfer_size = rsz,
               imc_write_xfer_size = wsz, imt_rd_round_trip_time = rrt, imt_wt_round_trip_time = wrt,
               imc_q_current = q, imc_q_maximum = qmax }
    end
    local prev = { dev(2, 10, 10, 0, 0, 0, 0, 0, 0), dev(1, 0, 0, 0, 0, 0, 0, 0, 0) }
    local cur = { dev(1, 4, 0, 8192, 0, 320, 0, 1, 3), dev(2, 10, 10, 0, 0, 0, 0, 0, 1), dev(3, 9, 9, 9, 9, 9, 9, 9, 9) }
    local rows = cli.disk_rates(s, prev, cur, 500)
    assert.equal(2, #rows)                       -- LDEV 3 was not in the earlier sample
    assert.same({ 1, 2 }, { rows[1].ldev, rows[2].ldev })
    local r = rows[1]
    assert.near(8, r.reads_s, 1e-9)              -- 4 reads in half a second
    assert.equal(0, r.writes_s)
    assert.near(16, r.kb_s, 1e-9)                -- 8 KB in half a second
    assert.near(10, r.rtt_ms, 1e-9)              -- 320 MI_Time = 40 ms over 4 I/Os
    assert.equal(1, r.queue)
    assert.equal(3, r.queue_max)
    assert.equal(4, r.ios)
    assert.equal(0, rows[2].rtt_ms)              -- no I/O: no round trip, not a division by zero
  end)
end)
