-- attach_ro_spec.lua: #27.8 — readers attach read-only. The owner (this process, root) shares a
-- 0644 store in a private 0755 directory; a reader running as another user (setpriv) reads real
-- values from it, and no reader's read path changes a byte of the store file.
local mi = require("mi")
local core = require("mi.core")

local run = H.run   -- spec/helpers.lua

-- The md5 of a file (hex), or nil.
local function md5(path)
  local f = io.popen("md5sum " .. path .. " 2>/dev/null")
  local out = f:read("a")
  f:close()
  return out:match("^(%x+)")
end

-- A private directory (mktemp -d, then 0755 so another user may enter it), removed by the caller.
local function private_dir()
  local f = io.popen("mktemp -d")
  local d = f:read("l")
  f:close()
  os.execute("chmod 0755 " .. d)
  return d
end

-- How this process runs a command as user nobody, or nil and why not.
local function as_nobody()
  local uid = io.popen("id -u"):read("l")
  if uid ~= "0" then return nil, "runs as root only (uid " .. tostring(uid) .. ")" end
  if os.execute("command -v setpriv >/dev/null 2>&1") == true then
    return "setpriv --reuid=nobody --regid=nogroup --clear-groups "
  end
  if os.execute("command -v runuser >/dev/null 2>&1") == true then return "runuser -u nobody -- " end
  return nil, "neither setpriv nor runuser is installed"
end

describe("#27.8 readers attach read-only", function()
  local dir, sys
  before_each(function()
    dir = private_dir()
  end)
  after_each(function()
    if sys then sys:close() sys = nil end
    os.execute("rm -rf " .. dir)
  end)

  it("#27.8 another user reads a 0644 store read-only, and its reads change no byte of it", function()
    local who, why = as_nobody()
    if not who then pending("#27.8 reading as another uid: " .. why) return end
    local path = dir .. "/shop.store"
    sys = mi.system { workload = "oltp", cpus = 2, seed = 7, share = path, collect = "all" }
    sys:advance(3000)
    core.publish_every(sys, 0)   -- the owner idles from here: the file moves only if a reader writes it
    local owner = mi.open { system = sys }
    owner:on("global", { 21184 })
    local want = owner:get("global", { 21184 })[21184]
    local mode = io.popen("stat -c %a " .. path):read("l")
    assert.equal("644", mode)
    local before = md5(path)
    assert.is_string(before)
    local out, ok = run(who .. "lua/mish -e " ..
      "'local a = mi.attach(\"" .. path .. "\", {trust = true}); local r = mi.open{system = a}; " ..
      "r:on(\"global\", {21184, 21000}); local g = r:get(\"global\"); " ..
      "print(\"cs=\" .. g[21184], \"ro=\" .. tostring(a:info().readonly), \"uid=\" .. io.popen(\"id -u\"):read(\"l\")); " ..
      "print(pcall(mi.attach, \"" .. path .. "\", {trust = true, write = true}))'")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("cs=" .. want, 1, true), out)
    assert.is_truthy(out:find("ro=true", 1, true), out)
    assert.is_nil(out:find("uid=0", 1, true), out)
    -- read-write needs write permission on the file: a 0644 store of another user refuses it
    assert.is_truthy(out:find("false%s+cannot attach"), out)
    assert.equal(before, md5(path), "a read-only reader as another user changed the store file")
    -- a read-only reader that may write the file (this user) does not either: every read path
    out, ok = run("lua/mish --attach " .. path .. " -e " ..
      "'s:on(\"global\", {21184, 21000}); s:on(\"process\", {25047}); s:on(\"io\", {23000}); " ..
      "for i = 1, 3 do s:get(\"global\"); s:get(\"process\"); s:get(\"io\") end; print(\"reads=ok\")'")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("reads=ok", 1, true), out)
    assert.equal(before, md5(path), "a read-only reader's reads changed the store file")
    owner:close()
  end)

  it("#27.8 an ON of an item nobody collects says how to get it; --attach-rw turns it on", function()
    local path = dir .. "/plain.store"
    sys = mi.system { workload = "oltp", cpus = 2, seed = 7, share = path }
    sys:advance(1000)
    local out = run("lua/mish --attach " .. path .. " -e 'print(s:on(\"global\", {21184}))' 2>&1")
    assert.is_truthy(out:find("-32009", 1, true), out)
    assert.is_truthy(out:find("--attach-rw", 1, true), out)
    local ok
    out, ok = run("lua/mish --attach-rw " .. path .. " -e 's:on(\"global\", {21184}); print(\"cs=\" .. s:get(\"global\")[21184])'")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("cs=%d+"), out)
    out = run("lua/mish --attach " .. path .. " --attach-rw " .. path .. " -e 'print(1)' 2>&1")
    assert.is_truthy(out:find("do not go together", 1, true), out)
    out = run("lua/mish --collect all -e 'print(1)' 2>&1")
    assert.is_truthy(out:find("needs --share", 1, true), out)
  end)
end)
