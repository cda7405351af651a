-- helpers.lua: shared setup for the busted specs — a private registry file, deterministic
-- simulated systems in virtual time, and temporary files that never outlive their test.
local busted = require("busted")

-- Temporary files: every name os.tmpname() gives a spec (/tmp/lua_XXXXXX) is remembered, and when
-- the test that asked for it ends — passed, failed or pending — that name and every name made from
-- it (NAME.*, NAME-*: "-xshare", ".mir", ".lock", ...) are removed, directories too; a name asked for
-- outside a test (in a describe block) goes when its file ends. The empty file os.tmpname() creates
-- is kept until then, so no other process is given the name meanwhile.
local tmpname = os.tmpname
local made = { test = {}, file = {} }
local in_test = false
-- Returns a fresh temporary name (os.tmpname, remembered for removal at the end of its test or file).
function os.tmpname()
  local p = tmpname()
  local list = in_test and made.test or made.file
  list[#list + 1] = p
  return p
end
-- Removes each remembered name of a list and the names made from it; empties the list.
local function sweep(list)
  local args = {}
  for i, p in ipairs(list) do
    list[i] = nil
    if p:find("^/tmp/lua_[%w_]+$") then args[#args + 1] = p .. " " .. p .. ".* " .. p .. "-*" end
  end
  if #args > 0 then os.execute("rm -rf -- " .. table.concat(args, " ")) end
end
busted.subscribe({ "test", "start" }, function() in_test = true return nil, true end)
busted.subscribe({ "test", "end" }, function() in_test = false sweep(made.test) return nil, true end)
busted.subscribe({ "file", "end" }, function() sweep(made.test) sweep(made.file) return nil, true end)

local tmp = os.tmpname()
os.remove(tmp)
-- every system in the specs reads and writes this registry, never the user's
require("mi.core") -- mi.core reads $MI_AIFKUF when opened and passes it to every system Lua creates
local H = {}
H.registry = tmp
-- Returns a session on a fresh, deterministic simulated system (virtual time).
function H.session(opts)
  local mi = require("mi")
  opts = opts or {}
  local sys = mi.system({ workload = opts.workload or "oltp", cpus = opts.cpus or 2, seed = opts.seed or 42 })
  return mi.open({ system = sys }), sys
end
-- Returns a fresh temporary path ending in "-" .. tag (nothing is created there; removed with its test).
function H.tmp_path(tag)
  return os.tmpname() .. "-" .. tag
end
-- Runs a shell command; returns its stdout, its stderr and its exit status (0 on success).
function H.run_split(cmd)
  local out, err = os.tmpname(), os.tmpname()
  local ok, _, code = os.execute(cmd .. " > " .. out .. " 2> " .. err)
  local f = io.open(out) local o = f:read("a") f:close()
  f = io.open(err) local e = f:read("a") f:close()
  os.remove(out) os.remove(err)
  return o, e, ok and 0 or code
end
-- Runs a shell command; returns its output (stderr included) and whether it succeeded.
function H.run(cmd)
  local f = io.popen(cmd .. " 2>&1")
  local out = f:read("a")
  local ok = f:close()
  return out, ok
end
-- Returns the whole text of the file at path (an error if it cannot be read).
function H.read_file(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end
-- Writes text to the file rel under root, creating its directory (fixture /proc trees).
function H.put_file(root, rel, text)
  local dir = (root .. "/" .. rel):match("^(.*)/[^/]+$")
  os.execute("mkdir -p '" .. dir .. "'")
  local f = assert(io.open(root .. "/" .. rel, "w"))
  f:write(text)
  f:close()
end
-- Returns how many of the MI's 2 KB pages one kernel page of this machine is (the host converts).
function H.page_2k()
  local p = io.popen("getconf PAGESIZE")
  local n = math.tointeger(tonumber(p:read("l")))
  p:close()
  return n // 2048
end
-- Copies spec/fixtures/NAME into a fresh temporary directory, removed when the running test ends
-- (busted's finally, given by the test: it is not a global of this file); returns the directory.
function H.fixture_copy(name, finally)
  local dir = os.tmpname()
  os.remove(dir)
  finally(function() os.execute("rm -rf '" .. dir .. "'") end)
  assert(os.execute("mkdir -p '" .. dir .. "' && cp -r spec/fixtures/" .. name .. "/. '" .. dir .. "'"))
  return dir
end
-- A simulated system sharing a store at a temporary path (oltp, 2 CPUs, seed 8) whose owner
-- counts process CPU time and disc I/O (25047, 25060), 3 s along, and a read-write attach of
-- it; returns the owner's system and session, and the attached system.
function H.shared_owner()
  local mi = require("mi")
  local path = H.tmp_path("share")
  local sys = mi.system { workload = "oltp", cpus = 2, seed = 8, share = path }
  local own = mi.open { system = sys }
  assert(own:on("process", { 25047, 25060 }).ok, "the owner's ON")
  sys:advance(3000)
  return sys, own, mi.attach(path, { write = true })   -- it turns on items the owner does not (#27.8)
end
_G.H = H
return H
