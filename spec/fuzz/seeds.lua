-- seeds.lua: writes the hand-made seed inputs of spec/fuzz/corpus/<harness>/ and the inputs that
-- reproduce open defects in spec/fuzz/crashes/<harness>/ (lua5.4 spec/fuzz/seeds.lua [corpus-dir] [crash-dir]).
-- Each seed spells out calls in the byte language the harness decodes (see the fz_* readers in
-- fuzz_common.h and each harness's LLVMFuzzerTestOneInput); MI_FUZZ_TRACE=1 shows what a seed does.
local dir = (arg and arg[1]) or "spec/fuzz/corpus"
local crashes = (arg and arg[2]) or "spec/fuzz/crashes"

local function u8(...) local t = {} for _, b in ipairs({ ... }) do t[#t + 1] = string.char(b & 255) end return table.concat(t) end
local function u16(x) return string.pack("<I2", x) end
local function u32(x) return string.pack("<I4", x & 0xffffffff) end
local function write(h, name, bytes, where)
  where = where or dir
  os.execute("mkdir -p " .. where .. "/" .. h)
  local f = assert(io.open(where .. "/" .. h .. "/" .. name, "wb"))
  f:write(bytes)
  f:close()
end

-- ---------------------------------------------------------------- fuzz_aif
-- an item of the list: k >= 230 then fz_int32 with k >= 192: the number itself
local function item(n) return u8(230, 255) .. u32(n) end
-- an item list: short shape, n items, aligned pointer
local function list(items) local t = { u8(0, #items) } for _, n in ipairs(items) do t[#t + 1] = item(n) end t[#t + 1] = u8(255) return table.concat(t) end
local UID, NOUID, HANDLE = u8(150), u8(0), u8(255)
local ALIGNED = u8(255)
-- ON: session, list, stats, mapping, mapping cell, ldev selector + cell, pid + cell, uid, form
local function on(op, ses, items, mapping, ldev, pid)
  local l = ldev and u8(200, 255) .. u32(ldev) or u8(0)   -- pick_ldev: a number / -1
  local p = pid and u8(250, 0, 255) .. u32(pid) or u8(0)
  return u8(op, ses) .. list(items) .. ALIGNED .. u8(mapping) .. ALIGNED .. l .. ALIGNED .. p .. ALIGNED .. UID .. HANDLE
end
-- GET: session, list, mapping, size (records of the list), buffer, stats, selector, count, pid, key, uid, form
-- (a GET list starts with 255: a list of its own, not the caller's last list again)
local function get(op, ses, items, mapping, records, sel, size_bytes)
  local s = op == 7 and u8(sel and sel + 2 or 1) or (sel and u8(200, 255) .. u32(sel) or u8(0))
  return u8(op, ses, 255) .. list(items) .. u8(mapping) .. (size_bytes or u8(0, (records or 1) - 1)) .. ALIGNED .. ALIGNED
    .. s .. ALIGNED .. ALIGNED .. u8(0) .. ALIGNED .. u8(0) .. u32(0) .. ALIGNED .. UID .. HANDLE
end
local function off(op, ses) return u8(op, ses, 0, 255, 0, 255) .. UID .. HANDLE end
-- writer: a pair add (total and class together) for an entity
local function pair(k, entity_bytes, cls, v) return u8(16, 8, k) .. entity_bytes .. u32(cls) .. u8(0, v) end
local function birth(pid) return u8(16, 0, 0) .. u16(pid - 8) .. u8(3, 65, 66, 67, 0, 0) .. u8(2, 0, 0) .. u8(3) .. u8(0) end
local SETUP = u8(0xC0, 1, 3, 4)   -- three sessions, access on for each; 2 CPUs, 3 disks, 4 terminals

write("aif", "global_pairs", SETUP
  .. on(0, 0, { 21201, 21261, 21164, 21176 }, 1)
  .. pair(0, u8(0), 7, 5) .. pair(0, u8(0), 650, 3) .. pair(0, u8(0), 719, 200)
  .. get(3, 0, { 21201, 21261, 21164, 21176 }, 1) .. get(3, 0, { 21261, 21201 }, 2)
  .. get(7, 0, { 20040, 27006, 27023 }, 1, 9, -1)
  .. off(8, 0))
write("aif", "process_pairs", SETUP
  .. birth(120) .. birth(121)
  .. on(1, 1, { 20001, 20002, 25167, 25243, 25047 }, 1)
  .. pair(3, u8(0, 0), 4, 9) .. pair(3, u8(0, 1), 700, 1)
  .. get(5, 1, { 20001, 20002, 25167, 25243 }, 1, 12)
  .. u8(16, 2, 0, 0) -- the first process the harness made dies
  .. get(5, 1, { 20001, 20002, 25167, 25243 }, 1, 12) .. get(5, 1, { 20001, 20002 }, 2, 1)
  .. off(9, 1))
write("aif", "io_pairs_disks", SETUP
  .. on(2, 0, { 20020, 23048, 23050, 23049, 23051 }, 2, -2)
  .. pair(1, u8(0, 1), 33, 4) .. pair(2, u8(0, 2), 9, 8)
  .. get(6, 0, { 20020, 23048, 23050, 23049, 23051 }, 2, 8, -2)
  .. get(6, 0, { 20020, 23050 }, 2, 1, -1)
  .. off(10, 0))
-- two sessions, mappings that differ (warning 20002), a GET too small (-20008), then the same list again
write("aif", "mapping_and_small_buffer", SETUP
  .. on(0, 0, { 21254, 21201 }, 0) .. on(0, 1, { 21261, 21164 }, 2)
  .. get(3, 0, { 21254, 21201 }, 0, nil, nil, u8(140, 0, 3))
  .. get(3, 0, { 21254, 21201 }, 0) .. get(3, 1, { 21261, 21164 }, 1)
  .. off(8, 1) .. off(8, 0))
-- configuration: AIFSCGET of a few items, AIFSCPUT with the three verification arrays
-- a configuration list: items, aligned list, then per item an aligned value pointer and its value
-- (a number, or the current value), then the aligned pointer array
local function cfg_items(items, vals)
  local t = { u8(0, #items) }
  for _, n in ipairs(items) do t[#t + 1] = u8(n - 3001) end
  t[#t + 1] = u8(255)
  for i = 1, #items do
    t[#t + 1] = u8(255)
    t[#t + 1] = vals and u8(100, 255) .. u32(vals[i]) or u8(0)
  end
  t[#t + 1] = u8(255)
  return table.concat(t)
end
write("aif", "config_put_verified", SETUP
  .. u8(11, 0) .. cfg_items({ 3001, 3002, 3015, 3037 }) .. ALIGNED .. UID .. HANDLE
  .. u8(12, 0) .. cfg_items({ 3001, 3004 }, { 6, 40 }) .. ALIGNED .. u8(150)
  .. cfg_items({ 3002, 3015 }) .. ALIGNED .. UID .. HANDLE
  .. u8(12, 1) .. cfg_items({ 3001 }, { 9 }) .. ALIGNED .. u8(150) .. cfg_items({ 3001 }, { 12345 }) .. ALIGNED .. UID .. HANDLE
  .. u8(11, 1) .. cfg_items({ 3001, 3003, 3043 }) .. ALIGNED .. UID .. u8(0))
write("aif", "time_and_access", SETUP
  .. u8(13, 0, 0) .. u32(1700000000) .. u8(5, 255, 0) .. u32(1000) .. u8(255, 7) .. UID .. HANDLE
  .. u8(14, 1, 0, 0) .. HANDLE .. u8(14, 1, 1, 0) .. HANDLE .. u8(14, 1, 2, 200, 200) .. u32(4242) .. HANDLE
  .. u8(15, 2, 10) .. on(0, 2, { 21176 }, 1) .. u8(15, 2, 200) .. on(0, 2, { 21176 }, 1)
  .. u8(13, 2, 0) .. u32(0) .. u8(0, 0, 0) .. u32(0) .. u8(0, 7) .. UID .. u8(0))

-- ---------------------------------------------------------------- fuzz_proc
-- the tree: every file well-formed, cpu lines, a few processes; then changes and reads
local function tree(np)
  local t = { u8(0, 0, 0, 0, 0) }               -- kinds of stat, meminfo, vmstat, diskstats, interrupts
  for _ = 1, 5 do t[#t + 1] = u8(0) end        -- no garbage
  t[#t + 1] = u8(2)                            -- two cpuN lines
  for c = 0, 1 do t[#t + 1] = u8(0) for f = 1, 8 do t[#t + 1] = u8(0) .. u16(100 * c + f) end end
  for f = 1, 8 do t[#t + 1] = u8(0) .. u16(1000 + f) end
  t[#t + 1] = u8(0)                            -- btime 1700000000
  for _ = 1, 2 + 3 + 44 + 36 do t[#t + 1] = u8(0) .. u16(50) end   -- running, blocked, memory, disks, interrupts
  t[#t + 1] = u8(np)
  for i = 1, np do
    t[#t + 1] = u8(0, i, 0, 0, 255, 0, 0)    -- pid, present, stat well-formed (not truncated), status, io
    t[#t + 1] = u8(3, 0, 1, 2)                  -- comm "abc"
    for _ = 1, 8 do t[#t + 1] = u8(0) .. u16(10 * i) end
    t[#t + 1] = u8(0)
  end
  return table.concat(t)
end
local function pon(ses, domain, favs) local t = { u8(2 + domain, ses, #favs) } for _, k in ipairs(favs) do t[#t + 1] = u8(0, k) end t[#t + 1] = u8(100, 0) return table.concat(t) end
local function pget(op, ses, favs) local t = { u8(op, ses, #favs) } for _, k in ipairs(favs) do t[#t + 1] = u8(0, k) end t[#t + 1] = u8(100, 255) return table.concat(t) end
-- tree changes: a process works; the CPUs work; a process comes or goes; a file breaks or mends
local function work(i) return u8(0, 0, 4, i) .. u8(0, 9, 0, 9, 0, 2, 0, 1, 0, 1) end
local cpus_work = u8(0, 0, 0) .. string.rep(u8(0, 7), 8)
local function toggle(i) return u8(0, 0, 3, i) end
local function file_kind(f, kind, garbage) return u8(0, 0, 6, f, kind) .. (garbage and u8(#garbage) .. garbage or "") end
write("proc", "cpu_and_processes", tree(4)
  .. pon(0, 0, { 0, 2, 3, 4 }) .. pon(0, 1, { 0, 1, 2, 5, 6 }) .. u8(13)
  .. work(0) .. work(1) .. cpus_work
  .. pget(5, 0, { 0, 2, 3 }) .. pget(7, 0, { 5, 6, 2 }) .. pget(10, 0, { 0, 1, 4 })
  .. toggle(1)
  .. pget(7, 0, { 5, 2 }) .. pget(7, 0, { 5 }) .. u8(12))
write("proc", "files_break_and_mend", tree(2)
  .. pon(1, 0, { 0, 2, 3 }) .. pon(1, 1, { 5, 6 })
  .. file_kind(0, 220, "cpu 1 2 x\n") .. pget(5, 1, { 0, 2 }) .. file_kind(0, 0) .. pget(5, 1, { 0, 2 })
  .. u8(0, 0, 7, 0, 230, 0, 3, 41, 41, 41) .. pget(7, 1, { 5 }) .. u8(11, 1, 1) .. u8(9))
write("proc", "disks_and_devices", tree(1)
  .. pon(0, 2, { 0, 1, 2, 3, 4 }) .. u8(0, 0, 8) .. string.rep(u8(0, 3), 44) .. pget(9, 0, { 0, 1, 2, 3, 4, 5 })
  .. pon(0, 0, { 4 }) .. u8(0, 0, 9) .. string.rep(u8(0, 1), 36) .. pget(10, 0, { 6, 0 }))
-- #14.4 identity: six processes (pids 3 41 79 117 155 193: a kernel thread, sessions with and
-- without a terminal, shells, a session leader, an exe-less one; root and users 1001, 1003, 1005)
-- read with program, user, job/session and type (fuzz_proc.c derives those facts from the pid)
local ident = tree(6):gsub("abc", "xyz")
do   -- give processes 2, 4, 6 a user: the uid byte of each process is the u8(0) after its 8 figures
  local parts, n = {}, 0
  local head = #ident - 6 * (7 + 4 + 8 * 3 + 1)
  parts[1] = ident:sub(1, head)
  for i = 1, 6 do
    local p = ident:sub(head + 1 + (i - 1) * 36, head + i * 36)
    if i % 2 == 0 then p = p:sub(1, 35) .. u8(200) .. u16(1000 + i - 1) end
    parts[#parts + 1] = p
    n = n + 1
  end
  ident = table.concat(parts)
end
write("proc", "identity", ident .. pon(0, 1, { 5 }) .. pget(7, 0, { 2, 3, 4, 11 }) .. toggle(2) .. pget(8, 0, { 11, 3, 2 }))

-- ---------------------------------------------------------------- fuzz_workload
-- base workload, mi_workload_set calls (field index, value), caps, raw or not, a first advance; then
-- ONs (domain, mapping, extra items, 21164), advances, PUTs, OFFs and GETs (domain, mapping, extras)
local function wset(field, value_bytes) return u8(150, field, 255) .. value_bytes end
local function small(n) return u8(0) .. u16(n) end   -- pick_double: lo + n % 64
local function edge(i) return u8(100, i) end         -- lo, hi, lo - 1, hi + 1, below lo, above hi
local function special(i) return u8(170, i) end      -- 0, -0, 1, -1, 0.5, 1e300, -1e300, inf, -inf, nan, ...
local NOCAP, NORAW = u8(255, 255), u8(255)
local function won(d) return u8(d, 100, 0) .. (d == 0 and u8(0) or "") end   -- the small map
local function wget(d, map) return u8(6, d, map, 0) end
local function wadvance(ms) return u8(3) .. u16(ms) end
write("workload", "oltp_pairs", u8(1, 2) .. wset(0, small(1)) .. wset(1, small(2)) .. NOCAP .. NORAW .. u8(20)
  .. won(0) .. won(1) .. won(2) .. wadvance(2500)
  .. wget(0, 1) .. wget(1, 1) .. wget(2, 2) .. wget(3, 0) .. u8(4, 0, 0, 5) .. wadvance(900) .. wget(2, 0) .. wget(1, 2))
write("workload", "range_edges", u8(4, 5) .. wset(1, edge(1)) .. wset(2, edge(3)) .. wset(5, special(9))
  .. wset(9, edge(0)) .. wset(15, special(14)) .. NOCAP .. NORAW .. u8(10)
  .. won(2) .. wadvance(2000) .. wget(2, 1) .. u8(5, 2) .. wget(2, 1))
write("workload", "raw_struct", u8(2, 0) .. NOCAP .. u8(0) .. u8(0x02) .. u8(255) .. u32(905) .. u8(10)
  .. won(1) .. won(2) .. wadvance(1000) .. wget(1, 0) .. wget(2, 1))

-- ---------------------------------------------------------------- fuzz_registry
-- mode, the ID to install (1 + u32 % 100000), a probe ID, then the file
local function reg(mode, install, probe, text) return u8(mode, 0) .. u32(install - 1) .. u8(200) .. u32(probe) .. text end
write("registry", "ids", reg(0, 4242, 666, "666\n1234\n  77  \n+5\n"))
write("registry", "junk_lines", reg(0, 9, 12, "# a comment\n12abc\n-3\n0\n2147483647\n2147483648\n\n\r\n99999999999\n"))
write("registry", "directory", reg(6, 100, 100, ""))
write("registry", "install_existing", reg(0, 31, 31, "31\n"))

-- ---------------------------------------------------------------- fuzz_select
-- n descriptors, each: how (low 3 bits: type 2, -2, 3, -3, 2, -2, 0, 4; 0xFF raw struct bytes;
-- bit 7: a len byte follows), a field mask (1 pid, 2 program, 4 user, 8 js_type, 16 js_num,
-- 32 ptype, 64 ldev lo/span, 128 devtype) and the fields in that order; a text is a length
-- byte (bit 7: raw bytes) and its characters; then 4 entities (type, pid, ptype, js kind, js
-- number, ldev/4, devtype, program FILE GROUP ACCOUNT texts, user USER GROUP ACCOUNT texts).
local function txt(s) return u8(0x80 | #s) .. s end
local function ent(ty, pid, pt, jk, jn, ldev4, dt, names)
  local t = { u8(ty, pid, pt, jk, jn, ldev4, dt) }
  for _, n in ipairs(names) do t[#t + 1] = txt(n) end
  return table.concat(t)
end
local ENTS = ent(0, 5, 3, 1, 2, 0, 0, { "EDITOR", "PUB", "PROD", "MGR", "PUB", "PROD" })
  .. ent(0, 6, 0, 0, 0, 0, 0, { "LOAD", "PUB", "SYS", "OPERATOR", "PUB", "SYS" })
  .. ent(1, 0, 0, 0, 0, 2, 1, { "", "", "", "", "", "" })
  .. ent(0, 7, 2, 2, 3, 0, 0, { "ci", "pub", "sys", "joe", "x", "acct" })
write("select", "include_exclude", u8(3) .. u8(0, 2) .. txt("*.PUB.PROD") .. u8(0, 4) .. txt("MGR.*")
  .. u8(1, 32, 0) .. ENTS)
write("select", "wildcards_case", u8(2) .. u8(0, 2) .. txt("e?i*") .. u8(1, 2 | 4) .. txt("*.*.SYS") .. txt("?*.S*") .. ENTS)
write("select", "jobs_and_ldevs", u8(3) .. u8(0, 8 | 16, 2, 3, 0) .. u8(2, 64 | 128, 1, 3, 1) .. u8(3, 128, 3) .. ENTS)
write("select", "bad_pattern", u8(2) .. u8(0, 2) .. txt("A..B") .. u8(0, 2) .. txt("A.B.C.D") .. ENTS)
write("select", "bad_len_raw", u8(2) .. u8(0x80, 0, 12) .. u8(0xFF) .. string.rep("\1", 200) .. ENTS)
write("select", "excludes_only", u8(2) .. u8(1, 1, 6) .. u8(3, 64, 0, 200) .. ENTS)

-- ---------------------------------------------------------------- fuzz_lua_workload
local mfile = io.open("examples/workloads/month_end.lua", "rb")
if mfile then write("lua_workload", "month_end.lua", mfile:read("a")) mfile:close() end
write("lua_workload", "small.lua", "return { cpus = 2, sessions = 5, jobs = 1, think_dist = 'constant' }\n")
write("lua_workload", "out_of_range.lua", "return { disks = 1000 }\n")
write("lua_workload", "loops.lua", "while true do end\n")
write("lua_workload", "not_a_table.lua", "return 42\n")
write("lua_workload", "syntax_error.lua", "return { cpus = }\n")

-- ---------------------------------------------------------------- fuzz_http_conn
-- byte 0: connections - 1 (bits 0-1) and what /metrics gives (bits 2-3: small, a status, out of memory,
-- 20 KB); then operations o, a: o & 3 the connection, (o >> 2) % 6 what (0 send, 1 deliver, 2 read
-- (a+1)*37 bytes, 3 read all, 4 the clock moves a*100 ms, 5 hang up and reconnect)
local function send(c, bytes)   -- queues and delivers bytes on connection c, 256 at a time
  local t = {}
  for i = 1, #bytes, 256 do
    local ch = bytes:sub(i, i + 255)
    t[#t + 1] = u8(c, #ch - 1) .. ch
  end
  return table.concat(t)
end
local function readall(c) return u8(12 + c, 0) end
local function tick(c, ms) return u8(16 + c, ms // 100) end
local GET = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
write("http_conn", "two_clients", u8(1) .. send(0, GET) .. readall(0)
  .. send(1, "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") .. readall(1))
write("http_conn", "pipelined_unread_big", u8(12 + 0) .. send(0, string.rep(GET, 8)) .. string.rep(u8(8, 3), 20) .. readall(0))
write("http_conn", "slowloris_deadline", u8(1) .. send(0, "GET /met") .. tick(0, 6000) .. send(0, "r") .. tick(0, 5000)
  .. send(1, "GET / HTTP/1.1\r\n\r\n") .. readall(1))
write("http_conn", "interleaved_halves", u8(3) .. send(0, "GET /metr") .. send(1, "\r\n\r\nGET http://h:1/metrics HTTP/1.1\r\nAcc")
  .. send(2, "POST / HTTP/1.1\r\n\r\n") .. send(0, "ics HTTP/1.1\r\nConnection: close\r\n\r\n")
  .. send(1, "ept: application/openmetrics-text\r\n\r\n") .. readall(2) .. readall(1) .. readall(0))
write("http_conn", "errors_and_oversize", u8(4 + 1) .. send(0, "GET /metrics HTTP/9.9\r\n\r\n") .. readall(0)
  .. send(1, "GET / HTTP/1.1\r\nX: " .. string.rep("a", 8300)) .. readall(1) .. u8(20, 0) .. send(0, GET) .. readall(0))
write("http_conn", "stalled_answer_expires", u8(8 + 1) .. send(0, GET .. GET) .. u8(8, 0) .. tick(0, 9000) .. u8(8, 0)
  .. tick(0, 9900) .. tick(0, 100) .. send(1, GET) .. readall(1))

-- ================================================================ open defects (spec/fuzz/crashes)
-- aif: a GET too small for a second list overwrites the first list's cached plans (#11.1)
write("aif", "plan-cache-poisoned-by-failed-get", SETUP .. on(0, 0, { 21176, 21177 }, 0)
  .. get(3, 0, { 21176, 21177 }, 0, nil, nil, u8(200) .. u32(8))
  .. get(3, 0, { 21254, 21254 }, 0, nil, nil, u8(200) .. u32(2884))
  .. get(3, 0, { 21176, 21177 }, 0, nil, nil, u8(200) .. u32(8)), crashes)
-- aif: the per-class writers on a simple counter write past its cell
write("aif", "objcl-writer-on-simple-counter", SETUP .. on(0, 0, { 21176 }, 1)
  .. u8(16, 6, 0, 0) .. u16(0) .. u8(0, 0) .. u32(700) .. u8(0, 1), crashes)
write("aif", "semcl-writer-on-simple-counter", SETUP .. on(0, 0, { 21176 }, 1)
  .. u8(16, 6, 1, 0) .. u16(0) .. u8(0, 0) .. u8(200) .. u8(0, 1), crashes)
-- aif: a source sets item 3043 (ticks per ms) to 0; AIFTIME divides by it
write("aif", "ticks-per-ms-set-to-zero-divides", SETUP .. u8(16, 12, 0, 43, 0, 0, 255)
  .. u8(13, 0, 0) .. u32(1700000) .. u8(5, 255, 0) .. u32(1000) .. u8(255, 7) .. UID .. HANDLE, crashes)
-- aif: a GET of item -2147483648: mi_item_fast computes item - 20000 in int
write("aif", "get-item-number-near-int32-min-overflows", SETUP .. on(0, 0, { 21176 }, 1)
  .. get(3, 0, { -2147483648, 21176 }, 1), crashes)
-- aif: MIIOON of the LDEV pseudo-item alone, then MIIOGET: rows are NULL (NULL + 0)
write("aif", "ioget-with-only-pseudo-items-null-rows", SETUP .. on(2, 0, { 20020 }, 1, -2)
  .. get(6, 0, { 20020 }, 1, 4, -2), crashes)
-- aif: 400 000 processes born and dead: every later pid lookup walks the whole hash (timeout)
local churn = {}
for i = 1, 100 do churn[i] = u8(16, 15) .. u16(4095) .. u32(i * 100000) .. u8(0) end
write("aif", "timeout-pid-hash-after-400k-deaths", SETUP .. table.concat(churn) .. on(1, 0, { 20001, 25047 }, 1), crashes)

-- proc: a tree whose one process has a stat with nothing after ')': fields come from the last file read
local function tree1(kind_bytes, comm, start)
  local t = { u8(0, 0, 0, 0, 0), u8(0, 0, 0, 0, 0), u8(0) }
  for f = 1, 8 do t[#t + 1] = u8(0) .. u16(1000 + f) end
  t[#t + 1] = u8(0)
  for _ = 1, 2 + 3 + 44 + 36 do t[#t + 1] = u8(0) .. u16(5000) end
  t[#t + 1] = u8(1) .. u8(0, 1, 0) .. kind_bytes .. u8(#comm) .. comm
  for f = 1, 8 do t[#t + 1] = (f == 4 and start) or (u8(0) .. u16(10)) end
  t[#t + 1] = u8(0)
  return table.concat(t)
end
write("proc", "stat-ending-after-paren-reads-stale-buffer", tree1(u8(0, 0, 0, 0), string.rep(u8(0), 8))
  .. u8(3, 0, 3, 0, 0, 0, 1, 0, 5, 100, 0) .. u8(0, 0, 8) .. string.rep(u8(0, 200), 44) .. u8(7, 0, 1, 0, 5, 100, 255), crashes)
-- proc: a process start time near 2^63 jiffies: btime x 1000 + starttime x 1000 / hz overflows
write("proc", "huge-starttime-overflows", tree1(u8(0, 255, 0, 0), "abc", u8(250) .. u32(0) .. u32(0xC0000000)), crashes)

-- registry: lines longer than the reader's 64-byte buffer, no newline at the end, a path over 511 bytes
write("registry", "line-over-63-chars-split-into-ids", reg(0, 2, 0, string.rep("1", 70) .. "\n"), crashes)
write("registry", "id-after-62-blanks-read-as-two", reg(0, 2, 0, string.rep(" ", 62) .. "12345\n"), crashes)
write("registry", "install-after-last-line-without-newline", reg(0, 6625, 0, "4"), crashes)
write("registry", "registry-path-over-511-bytes-truncated", reg(7, 13345, 0, "666\n"), crashes)

-- workload: raw struct fields mi_sim_new takes unchecked: 2000 disks, a NaN think time
write("workload", "raw-struct-2000-disks-index-out-of-bounds", u8(4, 0) .. NOCAP .. u8(0, 0x02, 255) .. u32(2000)
  .. u8(100) .. u8(3) .. u16(1400), crashes)
write("workload", "raw-struct-nan-think-time", u8(2, 0) .. NOCAP .. u8(0, 0x10) .. special(9) .. small(0) .. small(0)
  .. u8(100) .. u8(3) .. u16(1400), crashes)
-- aif: with the store near its cell limit (2800), 21164 turns processor counters on without looking at the
-- result: the ON says 0 but MIPRCSRGET says -20013; and one user's MIGLOBOFF turns off another's processors
local LIMITED = u8(0xC2, 1, 1, 3, 4)   -- three sessions, access on, max_cells 2800
local PRC = { 20040, 27000, 27040 }
write("aif", "pauses-on-at-cell-limit-leaves-processors-off", LIMITED .. on(1, 1, { 25047 }, 1)
  .. on(0, 0, { 21164 }, 1) .. get(7, 0, PRC, 1, 9), crashes)
write("aif", "globoff-turns-off-another-users-processors", LIMITED .. on(1, 1, { 25047 }, 1)
  .. on(0, 0, { 21164 }, 1) .. off(9, 1) .. on(0, 2, { 21164 }, 1) .. get(7, 2, PRC, 1, 9) .. off(8, 0)
  .. get(7, 2, PRC, 1, 9), crashes)

-- ---------------------------------------------------------------- fuzz_attach
-- flags (bit 0: another file size, bit 1: any size), patches (region, offset in the region, kind:
-- 0 an int32 by fz_int32 / 110 an int64 by fz_int64 / 170 raw bytes), the size choice, then the
-- reader's bytes (zeros: the template's item lists, mapping 0, all LDEVs). Regions: 0 header,
-- 1 limits and configuration, 2 process bookkeeping and pid hash, 3 process table, 4 counter
-- bookkeeping, 5 user records, 6 udef table, 7 arena bookkeeping, 8 writer block, 9 arena, 10 anywhere.
local function int32(region, off, v) return u8(region) .. u32(off) .. u8(0, 255) .. u32(v) end
local function int64(region, off, v) return u8(region) .. u32(off) .. u8(110, 0, 255) .. u32(v) end
local function raw(region, off, bytes) return u8(region) .. u32(off) .. u8(170, #bytes - 1) .. bytes end
local function attach(flags, patches, size) return u8(flags, #patches) .. table.concat(patches) .. (size or "") .. string.rep(u8(0), 48) end
write("attach", "template", attach(0, {}))
write("attach", "not-a-store", attach(0, { raw(0, 0, "NOTMISH!") }))
write("attach", "other-version", attach(0, { int32(0, 8, 7) }))
write("attach", "size-field-4096", attach(0, { int64(0, 16, 4096) }))
write("attach", "file-cut-by-4096", attach(1, {}, u8(2)))
write("attach", "owner-pid-1", attach(0, { int32(0, 40, 1) }))
write("attach", "closed", attach(0, { int32(0, 44, 1) }))
write("attach", "registry-path-changed", attach(0, { raw(0, 64, "x") }))
write("attach", "mapping-and-counts", attach(0, { int32(4, 0, 7), int32(1, 0, 1) }))
-- attach: a live process (pid 1) named as the lock holder: the reader's first ON waits for it forever (#7)
write("attach", "fake-lock-holder-pid-1-hangs-the-reader", attach(0, { int32(0, 4160, 1) }), crashes)
