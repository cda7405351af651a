-- record.lua: records the measured system (sim, host, --attach PATH) into a file that
-- `mish --replay FILE script.lua`, scripts/summary.lua, verify.lua and export.lua read.
-- A recording holds the raw 64-bit cells, so rates come out the same live and replayed.
-- A host that reads nothing (a --proc that is no proc root) is not recorded: exit 1, no file.
local mi = require("mi")
local cli = require("mi.cli")

local opts = cli.parse({
  name = "record",
  about = "Records the system's counters to a file (appending to an existing recording).",
  sampling = false,
  options = {
    { "out", "FILE", "the recording to write (required)", short = "o" },
    { "interval", "N", "seconds between samples", 1 },
    { "duration", "N", "seconds to record (0 = until interrupted)", 0 },
    { "count", "N", "samples to take (instead of --duration)" },
    { "items", "LIST", "comma-separated items: names, numbers, globs, DOMAIN:* (default: what scripts/ need)" },
    { "fsync", "MODE", "none, interval or every", "interval" },
    { "quiet", nil, "no progress line (there is none unless stderr is a terminal)" },
  },
  footer = "example: mish scripts/record.lua -o day.mir --interval 1 --duration 3600\n" ..
           "         mish --replay day.mir scripts/top.lua",
})
if not opts.out then io.stderr:write("record: -o FILE (--out FILE) is required (try --help)\n") os.exit(2) end
if opts.interval <= 0 then io.stderr:write("record: --interval must be > 0\n") os.exit(2) end

local items
if opts.items then
  items = {}
  for x in opts.items:gmatch("[^,]+") do items[#items + 1] = math.tointeger(tonumber(x)) or x end
end
-- a host that reads nothing (a --proc that is no proc root) gives no recording: its zeros would be
-- read later as a measured idle machine (#30); checked before the file is made
if mi.default_system():info().source == "host" then
  local s = mi.open()
  s:on("global", { "gmt_idle" })
  s:get("global")
  local why = cli.watch(s)()
  s:close()
  if why then
    io.stderr:write("record: nothing measured: ", why, "; nothing recorded\n")
    os.exit(1)
  end
end
local n = opts.count and math.floor(opts.count) or (opts.duration > 0 and math.floor(opts.duration / opts.interval + 0.5) or 0)
local tty = not opts.quiet and os.execute("test -t 2") == true
local t0 = mi.clock()
local rec
-- Shows samples, size and rate on one line of the terminal.
local function progress(final)
  if not tty then return end
  local st = rec:stats()
  local secs = (mi.clock() - t0) / 1000
  io.stderr:write(string.format("\r%s: %d samples, %.1f KB, %.1f KB/sample (raw %.1f KB), %.0f s%s", opts.out, st.samples,
    st.bytes / 1024, st.last_bytes / 1024, st.last_raw_bytes / 1024, secs, final and "\n" or ""))
end
local i = 1   -- the first sample is written when the recording opens
local stop = false
local raises = mi._end_raises
mi._end_raises = true   -- a replayed recording that ends first ends the run, said below (#30.4)
-- the open and the samples in one pcall: an interruption (mish --record's shell ending as soon
-- as the recorder holds the file) anywhere after the open still gets its last sample below
local okl, err = pcall(function()
  rec = mi.record({ path = opts.out, items = items, fsync = opts.fsync })
  -- mish --record waits for this byte (its pipe's descriptor) before it runs its command
  local ready = tonumber(os.getenv("MISH_RECORD_READY") or "")
  if ready then
    local f = io.open("/dev/fd/" .. math.tointeger(ready), "w")
    if f then f:write("r") f:close() end
  end
  while not stop and (n == 0 or i < n) do
    mi.sleep(opts.interval)
    local good, e = rec:sample()
    if not good then error("cannot write " .. opts.out .. ": " .. tostring(e), 0) end
    i = i + 1
    progress(false)
  end
end)
mi._end_raises = raises
if not rec then
  if not tostring(err):find("interrupted") then io.stderr:write("record: ", tostring(err):gsub("^[^:]*:%d+: ", ""), "\n") end
  os.exit(1)
end
if not okl and err == mi.REPLAY_END then okl = true; cli.replay_ended(i, n) end
-- interrupted (Ctrl-C, or mish --record's shell ending): one last sample of the system as it is now
local interrupted = not okl and tostring(err):find("interrupted")
if interrupted then pcall(function() if rec:sample() then i = i + 1 end end) end
progress(true)
rec:close()
if not okl and not tostring(err):find("interrupted") then io.stderr:write("record: ", tostring(err), "\n") os.exit(1) end
