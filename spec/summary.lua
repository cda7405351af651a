-- summary.lua: the count `make test` ends with. Reads what each part of the test run wrote and
-- prints one line per part and, last, "N passed, M failed" (", K skipped" where any were skipped).
-- A skipped check is never counted as passed; a part that did not finish counts one failure.
--   lua5.4 spec/summary.lua part c|busted|examples|fuzz FILE [STATUS]   one part's line
--   lua5.4 spec/summary.lua total C_OUT C_STATUS BUSTED_OUT EXAMPLES_OUT FUZZ_OUT
-- How each part reports (the files are the parts' whole output):
--   c         spec/test_core: "FAIL ..." per failed check, then "N passed, M failed[, K skipped]" last;
--             STATUS is its exit status: not 0 with no failure counted (a crash) is one failure
--   busted    TAP: "ok N - # SKIP ..." (pending) is skipped, other "ok" lines passed, "not ok" failed;
--             no "1..N" plan (busted died) or fewer results than the plan counts the missing as failed;
--             with "# file: NAME" lines (spec/busted_par.sh), each file's part has its own plan
--   examples, fuzz   spec/examples.sh, spec/fuzz/run.sh: "ok ..." passed, "not ok ..." failed, "# skip..."
--             skipped (a line per skipped check or group of checks); each ends with its own
--             "examples: ..." / "fuzz: ..." count line, else it died (one failure)
-- Exit status: 0 when nothing failed, 1 otherwise.

-- The lines of a file (none if it cannot be read).
local function lines(path)
  local f = io.open(path)
  if not f then return {} end
  local t = {}
  for l in f:lines() do t[#t + 1] = l end
  f:close()
  return t
end

-- Counts of the C tests' output and exit status: passed, failed, skipped.
local function c_part(path, status)
  local p, f, k
  local fails = 0
  for _, l in ipairs(lines(path)) do
    local a, b, c = l:match("^(%d+) passed, (%d+) failed, (%d+) skipped$")
    if not a then a, b = l:match("^(%d+) passed, (%d+) failed$") end
    if a then p, f, k = tonumber(a), tonumber(b), tonumber(c or 0) end
    if l:find("^FAIL ") then fails = fails + 1 end
  end
  if not p then p, f, k = 0, fails, 0 end   -- it ended before its count: what it said failed
  if tonumber(status) ~= 0 and f == 0 then f = 1 end   -- a crash (or a failure it did not count)
  return p, f, k
end

-- Counts of busted's TAP output: passed, failed, skipped. The output of several busted runs
-- (spec/busted_par.sh) has a "# file: NAME" line before each run's part: each part needs its own
-- plan, and results missing from a part's plan count as failed.
local function busted_part(path)
  local p, f, k = 0, 0, 0
  local seen, plan, n = false, nil, 0   -- the current part: started, its plan, its results
  local function close()
    if not seen then return end
    if not plan then f = f + 1                     -- busted ended before its plan
    elseif n < plan then f = f + plan - n end      -- results missing from the plan
  end
  for _, l in ipairs(lines(path)) do
    if l:find("^# file: ") then close(); seen, plan, n = true, nil, 0
    else
      seen = true
      if l:find("^ok %d+ %- # SKIP") then k = k + 1; n = n + 1
      elseif l:find("^ok ") then p = p + 1; n = n + 1
      elseif l:find("^not ok ") then f = f + 1; n = n + 1
      elseif l:find("^1%.%.%d+$") then plan = tonumber(l:match("%d+$")) end
    end
  end
  if not seen then f = f + 1 end                   -- no output at all
  close()
  return p, f, k
end

-- Counts of an "ok - ..." / "not ok - ..." / "# skip..." reporter ending in "TAG: ...": passed, failed, skipped.
local function lines_part(path, tag)
  local p, f, k, ended = 0, 0, 0, false
  for _, l in ipairs(lines(path)) do
    if l:find("^ok .*# SKIP") or l:find("^# skip") then k = k + 1
    elseif l:find("^ok ") then p = p + 1
    elseif l:find("^not ok ") then f = f + 1
    elseif l:find("^" .. tag .. ": %d+ passed") then ended = true end
  end
  if not ended then f = f + 1 end
  return p, f, k
end

local NAMES = { c = "C core", busted = "Lua specs", examples = "examples", fuzz = "fuzz" }

-- Counts of one part: passed, failed, skipped.
local function part(kind, path, status)
  if kind == "c" then return c_part(path, status)
  elseif kind == "busted" then return busted_part(path)
  elseif kind == "examples" or kind == "fuzz" then return lines_part(path, kind)
  end
  io.stderr:write("summary.lua: unknown part '" .. tostring(kind) .. "' (c, busted, examples or fuzz)\n")
  os.exit(2)
end

-- "N passed, M failed" with ", K skipped" where K > 0.
local function count_line(p, f, k)
  return string.format("%d passed, %d failed", p, f) .. (k > 0 and string.format(", %d skipped", k) or "")
end

local mode = arg[1]
if mode == "part" and #arg >= 3 then
  local p, f, k = part(arg[2], arg[3], arg[4])
  print(NAMES[arg[2]] .. ": " .. count_line(p, f, k))
  os.exit(f == 0 and 0 or 1)
elseif mode == "total" and #arg == 6 then
  local P, F, K = 0, 0, 0
  for _, x in ipairs({ { "c", arg[2], arg[3] }, { "busted", arg[4] }, { "examples", arg[5] }, { "fuzz", arg[6] } }) do
    local p, f, k = part(x[1], x[2], x[3])
    P, F, K = P + p, F + f, K + k
  end
  print(count_line(P, F, K))
  os.exit(F == 0 and 0 or 1)
end
io.stderr:write("usage: lua5.4 spec/summary.lua part c|busted|examples|fuzz FILE [STATUS]\n" ..
                "       lua5.4 spec/summary.lua total C_OUT C_STATUS BUSTED_OUT EXAMPLES_OUT FUZZ_OUT\n")
os.exit(2)
