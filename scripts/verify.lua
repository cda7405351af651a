-- verify.lua: checks a recording record by record and says what it found: whole records,
-- the samples a reader can read (every tool counts the same: #30.6) and those damage left
-- unreadable, a torn tail (where), damaged regions skipped. Exit status: 0 clean, 1 torn tail only,
-- 2 damaged regions, missing records or index span marks that lie, 3 not a recording.
local mi = require("mi")
local cli = require("mi.cli")

local file
local argv = {}
for _, a in ipairs(arg or {}) do if not a:match("^%-") and not file then file = a else argv[#argv + 1] = a end end
local opts = cli.parse({
  name = "verify", sampling = false,
  about = "Checks a recording: complete records, torn tail, damaged regions (exit 0 clean, 1 torn, 2 damaged, 3 unreadable).",
  options = { { "csv", nil, "write one CSV line instead of text" }, { "json", nil, "write one JSON object instead of text" } },
  footer = "usage: mish scripts/verify.lua FILE [--csv|--json]",
}, argv)
if not file then io.stderr:write("verify: a recording FILE is required (try --help)\n") os.exit(3) end

local ok, r = pcall(mi.core.rec_open, file)
if not ok then io.stderr:write("verify: ", tostring(r), "\n") os.exit(3) end
local info = r:info()
local rc, h = r:verify()
local regions = {}
while true do
  local ev = r:next()
  if not ev then break end
  if ev.type == "damage" then regions[#regions + 1] = { offset = ev.offset, bytes = ev.bytes } end
end
r:close()
local state = rc == 0 and "clean" or rc == 1 and "torn" or "damaged"
local function stamp(t) return t >= 0 and os.date("!%Y-%m-%dT%H:%M:%SZ", t // (info.tpm * 1000)) or "" end
local out = { file = file, state = state, bytes = h.bytes, records = h.records, samples = h.samples, keys = h.keys,
  segments = h.segments, continued = h.continued, damaged_regions = h.damaged_regions, damaged_bytes = h.damaged_bytes,
  torn_at = h.torn_at >= 0 and h.torn_at or nil, torn_bytes = h.torn_at >= 0 and h.torn_bytes or nil,
  seq_gaps = h.seq_gaps, steps_back = h.steps_back, first_step_back = h.steps_back > 0 and h.first_step_back or nil,
  unreadable = h.unreadable, bad_marks = h.bad_marks,
  first = stamp(h.first_time), last = stamp(h.last_time), version = info.version,
  source = info.source, machine = info.machine }
if opts.json then
  out.regions = regions
  print(cli.json(out))
elseif opts.csv then
  local keys = { "file", "state", "bytes", "records", "samples", "keys", "segments", "continued", "damaged_regions", "damaged_bytes",
    "torn_at", "torn_bytes", "seq_gaps", "first", "last", "steps_back", "first_step_back", "unreadable", "bad_marks" }
  print(table.concat(keys, ","))
  local v = {}
  for i, k in ipairs(keys) do v[i] = out[k] == nil and "" or tostring(out[k]) end
  print(table.concat(v, ","))
else
  print(string.format("%s: %s", file, state))
  print(string.format("  format version %d, recorded by mish %s from %s on %s", info.version, info.mish_version, info.source, info.machine))
  print(string.format("  %d bytes, %d whole records, %d samples (%d keys)%s, %d segment(s), %s .. %s", h.bytes, h.records,
    h.samples, h.keys, h.unreadable > 0 and string.format(" and %d unreadable after damage", h.unreadable) or "", h.segments,
    out.first, out.last))
  if h.continued > 0 then
    print(string.format("  counters installed while recording: the layout grew %d time(s) (continued headers)", h.continued))
  end
  for _, g in ipairs(regions) do print(string.format("  damaged: %d bytes at offset %d skipped", g.bytes, g.offset)) end
  if h.seq_gaps > 0 then print(string.format("  %d gap(s) in the record sequence", h.seq_gaps)) end
  if h.bad_marks > 0 then
    print(string.format("  %d index record(s) whose span mark disagrees with the samples before it (not believed: every frame counts)", h.bad_marks))
  end
  if h.steps_back > 0 then
    print(string.format("  the recorded clock goes back %d time(s) (first at offset %d): every sample is kept, in file order",
      h.steps_back, h.first_step_back))
  end
  if h.torn_at >= 0 then print(string.format("  torn tail: %d bytes at offset %d (an append cuts it)", h.torn_bytes, h.torn_at)) end
  -- the line summary, export and a replay say on stderr (#30.6)
  if rc ~= 0 then print(string.format("%s: %s; %d sample(s) readable", file, mi.health_text(h), h.samples)) end
end
os.exit(rc)
