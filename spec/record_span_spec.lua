-- record_span_spec.lua: span marks (p39). Each index record says the span and the steps back of
-- the file before it, so an open reads the last one and the frames after it; a mark that lies is
-- caught by reading (a step it left out is believed) and by verify (bad_marks, exit 2), and the
-- windowed tools (summary, export, a replay) lose no sample of a file whose clock goes back.
local mi = require("mi")
local core = mi.core
local MISH = "./lua/mish"

local run = H.run_split   -- spec/helpers.lua: stdout, stderr, exit status

-- Records n samples a second apart of a fresh simulated system into path (appending), its clock
-- first moved on by skip seconds; keys every 2 samples and an index every 2 keys (many marks).
local function record(path, n, skip)
  local sys = mi.system({ workload = "oltp", cpus = 2, seed = 42 })
  if skip and skip > 0 then sys:advance(skip * 1000) end
  local r = mi.record({ system = sys, path = path, fsync = "none", key_every = 2, index_every = 2,
    items = { "gmt_idle", "gmt_paused" } })
  for _ = 2, n do sys:advance(1000) assert(r:sample()) end
  r:close()
  sys:close()
end

-- Every sample's time, in file order, reading every record.
local function times(path)
  local r = core.rec_open(path)
  local t = {}
  while true do
    local ev = r:next()
    if not ev then break end
    if ev.type == "sample" then t[#t + 1] = ev.time end
  end
  r:close()
  return t
end

-- CRC-32C (Castagnoli) of bytes i..j of s.
local CRC = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do c = (c & 1) ~= 0 and ((c >> 1) ~ 0x82F63B78) or (c >> 1) end
  CRC[i] = c
end
local function crc32c(s, i, j)
  local c = 0xFFFFFFFF
  for k = i, j do c = CRC[(c ~ s:byte(k)) & 0xFF] ~ (c >> 8) end
  return c ~ 0xFFFFFFFF
end

-- A copy of recording path whose last index record's span mark says no step back (its CRC made
-- whole again: only what it says is wrong), written to out.
local function lie(path, out)
  local f = assert(io.open(path, "rb"))
  local b = f:read("a")
  f:close()
  local last, off = nil, 1
  while off + 40 <= #b + 1 do
    local len, ty = string.unpack("<I4I2", b, off + 4)
    if ty == 7 then last = off end
    off = off + len
  end
  assert(last, "an index record")
  local len = string.unpack("<I4", b, last + 4)
  local p = last + 32 + 8   -- past the head and the previous index's offset
  local function v()   -- a varint at p
    local x, s = 0, 0
    repeat
      local c = b:byte(p)
      p = p + 1
      x = x | ((c & 0x7F) << s)
      s = s + 7
    until c < 0x80
    return x
  end
  local n = v()
  for _ = 1, 2 * n + 5 do v() end   -- the keys, then the mark's offset, count, earliest, latest, last
  assert(b:byte(p) > 0 and b:byte(p) < 0x80, "a mark with steps back (one byte)")
  b = b:sub(1, p - 1) .. "\0" .. b:sub(p + 1)
  local body = last + len - 9   -- the last payload byte
  b = b:sub(1, body) .. string.pack("<I4", crc32c(b, last, body)) .. b:sub(body + 5)
  f = assert(io.open(out, "wb"))
  f:write(b)
  f:close()
end

describe("p39 span marks: an open reads the last index's", function()
  local file, bad
  before_each(function() file = H.tmp_path("span.mir") bad = H.tmp_path("span-lie.mir") end)
  after_each(function() os.remove(file) os.remove(bad) end)

  it("p39 a clock set back by a real writer is found at open, and --from/--to windows lose no sample", function()
    record(file, 20, 3600)   -- an hour on
    record(file, 20)         -- then a clock an hour earlier, appended
    local r = core.rec_open(file)
    assert.equal(1, r:info().steps_back)
    local tpm = r:info().tpm
    local rc, h = r:verify()
    r:close()
    assert.same({ 0, 0, 1, 40 }, { rc, h.bad_marks, h.steps_back, h.samples })
    local t = times(file)
    assert.equal(40, #t)
    local first = math.min(table.unpack(t))
    for _, w in ipairs({ { "+0s", "+9.5s" }, { "+5s", "+3600s" }, { "+3605s", "+3619s" }, { "+10s", "+3610s" } }) do
      local a = first + tonumber(w[1]:match("[%d.]+")) * 1000 * tpm
      local z = a + tonumber(w[2]:match("[%d.]+")) * 1000 * tpm   -- "to" +x counts from "from"
      local want = 0
      for _, x in ipairs(t) do if x >= a and x <= z then want = want + 1 end end
      assert.is_true(want > 0, w[1])
      local o, e, c = run(MISH .. " scripts/summary.lua " .. file .. " --from " .. w[1] .. " --to " .. w[2] .. " --json")
      assert.equal(0, c, e)
      assert.equal(want, tonumber(o:match('"window_samples":(%d+)')), w[1] .. ".." .. w[2])
      o, e, c = run(MISH .. " scripts/export.lua " .. file .. " --from " .. w[1] .. " --to " .. w[2] .. " --csv")
      assert.equal(0, c, e)
      assert.equal(want, select(2, o:gsub(",global,0,,,gmt_idle,", "")), w[1] .. ".." .. w[2])
    end
    -- a replay plays it whole (every sample) and refuses a window: its clock is not the file's
    local sys = mi.replay(file)
    while core.replay_step(sys, 1) == 1 do end
    assert.equal(40, core.replay_samples(sys))
    sys:close()
    assert.is_false(pcall(mi.replay, file, { from = "+10s" }))
  end)

  it("p39 a mark that hides a step back: believed at open, not once reading meets the step; verify says so", function()
    record(file, 20, 3600)
    record(file, 20)
    lie(file, bad)
    local r = core.rec_open(bad)
    local tpm = r:info().tpm
    assert.equal(0, r:info().steps_back)   -- the open took the last mark's word: it read no frame before it
    local n, back = 0, 0
    while true do
      local ev = r:next()
      if not ev then break end
      if ev.type == "sample" then n = n + 1 if ev.back then back = back + 1 end end
    end
    assert.same({ 40, 1, 1 }, { n, back, r:info().steps_back })   -- met, and believed from then on
    r:close()
    local o, _, c = run(MISH .. " scripts/verify.lua " .. bad)
    assert.equal(2, c)
    assert.matches("1 index record%(s%) whose span mark disagrees with the samples before it", o)
    assert.matches("the recorded clock goes back 1 time%(s%)", o)
    o, _, c = run(MISH .. " scripts/verify.lua " .. bad .. " --json")
    assert.equal(2, c)
    assert.matches('"bad_marks":1', o)
    -- summary and export say it, and lose nothing: their reader believes the frames
    local t = times(bad)
    local first = math.min(table.unpack(t))
    local want = 0
    for _, x in ipairs(t) do if x >= first + 5000 * tpm and x <= first + 3605000 * tpm then want = want + 1 end end
    local e
    o, e, c = run(MISH .. " scripts/summary.lua " .. bad .. " --from +5s --to +3600s --json")
    assert.equal(0, c, e)
    assert.matches("span mark disagrees", e)
    assert.equal(want, tonumber(o:match('"window_samples":(%d+)')))
    o, e, c = run(MISH .. " scripts/export.lua " .. bad .. " --from +5s --to +3600s --csv")
    assert.equal(0, c, e)
    assert.equal(want, select(2, o:gsub(",global,0,,,gmt_idle,", "")))
  end)
end)
