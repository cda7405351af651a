-- mi.recording: what the tools that read recordings share (summary, export): the file
-- argument and window options, the file's state on stderr when it is not whole, and a walk
-- over the samples of a window with wall-clock times.
local mi = require("mi")
local core = mi.core

local R = {}
R.DOMAINS = { "global", "process", "io", "processor" }
-- What a --from/--to time may be (said when one is refused).
R.TIME_FORMS = "ISO 8601, a date, a time of day such as 10:51, @TICKS, or an offset in range: a decimal number and s, m, h or d, " ..
  "such as +10m from the start or -1.5h from the end"

-- Splits argv into the recording FILE (the first non-option) and the rest.
function R.args(argv)
  mi.arg_check(type(argv) == "table", 1, "recording.args", "argument list", argv)
  local file, rest = nil, {}
  local i = 1
  while argv[i] do
    local a = argv[i]
    if not file and not a:match("^%-") then file = a else rest[#rest + 1] = a end
    i = i + 1
  end
  return file, rest
end

-- Opens file for reading, saying on stderr what is wrong with it (never silent); exits 3 if unreadable.
function R.open(name, file)
  if not file then io.stderr:write(name, ": a recording FILE is required (try --help)\n") os.exit(3) end
  local ok, r = pcall(core.rec_open, file)
  if not ok then io.stderr:write(name, ": ", tostring(r), "\n") os.exit(3) end
  local _, h = mi.recording_state(file, io.stderr)
  -- a span mark that lied, or counts samples damage took: this reader's span is the frames' too (p39)
  if h and ((h.bad_marks or 0) > 0 or h.damaged_regions > 0 or h.seq_gaps > 0) then r:verify() end
  return r
end

-- ISO 8601 UTC text of a recorded time in ticks (milliseconds shown).
function R.stamp(ticks, tpm)
  mi.arg_check(math.type(ticks) == "integer", 1, "recording.stamp", "ticks (an integer)", ticks)
  mi.arg_check(math.type(tpm) == "integer" and tpm > 0, 2, "recording.stamp", "ticks per millisecond (an integer > 0)", tpm)
  local ms = ticks // tpm
  return os.date("!%Y-%m-%dT%H:%M:%S", ms // 1000) .. string.format(".%03dZ", ms % 1000)
end

-- Says on stderr that the window [a, b] (ticks) of the recording r holds no sample, and exits 2 (#30.4).
function R.empty(name, r, a, b)
  mi.arg_check(type(name) == "string", 1, "recording.empty", "tool name", name)
  mi.arg_check(type(r) == "userdata", 2, "recording.empty", "recording reader", r)
  mi.arg_check(math.type(a) == "integer", 3, "recording.empty", "ticks", a)
  mi.arg_check(math.type(b) == "integer", 4, "recording.empty", "ticks", b)
  local info = r:info()
  local first, last, tpm = info.first_time, info.last_time, info.tpm
  if b < a and a <= last and b >= first then
    io.stderr:write(name, ": the window is empty: it ends (", R.stamp(b, tpm), ") before it starts (", R.stamp(a, tpm), ")\n")
  else
    io.stderr:write(name, ": the window ", R.stamp(a, tpm), " .. ", R.stamp(b, tpm), " holds no sample of the recording (",
      R.stamp(first, tpm), " .. ", R.stamp(last, tpm), ")\n")
  end
  os.exit(2)
end

-- The window [from, to] in ticks from the --from/--to texts ("+x" from the file's start, "to" from
-- "from"; "-x" back from the file's end; a time of day the one nearest the start, "to" nearest
-- "from"), clamped to the file's span; exits 2 on a bad time or a window outside the file (#30.4).
function R.window(name, r, from, to)
  local info = r:info()
  local first, last = info.first_time, info.last_time
  local a, b = first, last
  if from then
    a = core.parse_time(from, from:sub(1, 1) == "-" and last or first, info.tpm)
    if not a then io.stderr:write(name, ": bad time '", from, "' (" .. R.TIME_FORMS .. ")\n") os.exit(2) end
  end
  if to then
    b = core.parse_time(to, to:sub(1, 1) == "-" and last or a, info.tpm)
    if not b then io.stderr:write(name, ": bad time '", to, "' (" .. R.TIME_FORMS .. ")\n") os.exit(2) end
  end
  if a > last or b < first or b < a then R.empty(name, r, a, b) end
  return math.max(a, first), math.min(b, last)
end

-- Calls fn(ev, seg, run) for each applied sample whose time is in [from, to], in file order (seg
-- counts segments: a restart begins a new one; run counts stretches of the clock: a new segment or
-- a sample earlier than the one before begins a new one, and no rate spans two) and on_segment(seg)
-- when a segment begins. Every sample of the file is visited when the window is its whole span,
-- those whose clock went back too. Returns the whole samples in the window that damage left
-- unreadable (#30.6: taken, but not data).
function R.walk(r, from, to, fn, on_segment)
  mi.arg_check(type(r) == "userdata", 1, "recording.walk", "recording reader", r)
  mi.arg_check(math.type(from) == "integer", 2, "recording.walk", "ticks", from)
  mi.arg_check(math.type(to) == "integer", 3, "recording.walk", "ticks", to)
  mi.arg_check(type(fn) == "function", 4, "recording.walk", "function", fn)
  local ordered = r:info().steps_back == 0   -- times in file order: past `to` nothing more is in the window
  r:seek(from)
  local seg, run, unreadable = 0, 0, 0
  while true do
    local ev = r:next()
    if not ev then break end
    if ev.type == "segment" then   -- a continued header (counters installed) is the same segment, grown
      if seg == 0 or not r:info().continued then seg = seg + 1; run = run + 1 end
      if on_segment then on_segment(seg) end
    elseif ev.type == "sample" then
      if ev.back then run = run + 1; ordered = false end   -- a span mark said none: past `to` is no end any more
      if ev.time > to and ordered then break end
      if ev.time >= from and ev.time <= to then
        if ev.skipped then unreadable = unreadable + 1 else fn(ev, seg, run) end
      end
    end
  end
  return unreadable
end

return R
