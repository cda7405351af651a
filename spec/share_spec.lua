-- share_spec.lua: #12 — a system shared in a file (mi.system{share = PATH}) and read through
-- mi.attach(PATH), in the same Lua state and from a second mish process (mish --attach).
local mi = require("mi")

local tmp_path, run = H.tmp_path, H.run   -- spec/helpers.lua

describe("#12 shared stores", function()
  it("mi.attach reads what mi.system{share=} publishes, in the same Lua state", function()
    local path = tmp_path("same")
    local sys = mi.system { workload = "oltp", cpus = 2, seed = 7, share = path, collect = "process" }   -- for its read-only readers (#27.8)
    local owner = mi.open { system = sys }
    owner:on("global", { 21176, 21177, 21184 })
    sys:advance(2000)
    local att = mi.attach(path)
    assert.equal("attached", att:info().source)
    assert.equal(path, att:info().share)
    assert.equal(sys:info().processes, att:info().processes)
    assert.equal(sys:info().cpus, att:info().cpus)
    local reader = mi.open { system = att }
    reader:on("global", { 21176, 21177, 21184 })
    local a = reader:get("global")
    local b = owner:get("global")
    assert.equal(b[21184], a[21184])
    assert.is_true(a[21177] > 0)
    -- the reader sees the owner's processes, with names
    reader:on("process", { 25047 })
    local procs = reader:get("process", { 25047 })
    assert.is_true(#procs > 0)
    assert.is_string(procs[1].program_name)
    owner:close()
    sys:close()
    -- once the owner freed the store, an attached reader is told, and a new attach is refused
    local d, st = reader:get("global")
    assert.is_nil(d and d[21176])
    assert.is_truthy(tostring(st):find("owner is gone"))
    local ok, err = pcall(mi.open, { system = att })
    assert.is_false(ok)
    assert.is_truthy(err:find("owner is gone"))
    reader:close()
    -- #27.1: the owner removed the file it made
    assert.is_nil(io.open(path))
    ok, err = pcall(mi.attach, path)
    assert.is_false(ok)
    assert.is_truthy(err:find("No such file", 1, true), err)
    att:close()
  end)

  it("refuses a foreign file, a missing file and a second owner with clear messages", function()
    local path = tmp_path("bad")
    local f = io.open(path, "w")
    f:write("not a store at all, just text\n")
    f:close()
    local ok, err = pcall(mi.attach, path)
    assert.is_false(ok)
    assert.is_truthy(err:find("not a mish store"))
    os.remove(path)
    ok, err = pcall(mi.attach, path)
    assert.is_false(ok)
    assert.is_truthy(err:find("cannot be opened or mapped (No such file or directory)", 1, true), err)
    assert.is_falsy(err:find(": mish:", 1, true), err)   -- one "mish:" at most, from the caller
    local sys = mi.system { workload = "idle", share = path }
    ok, err = pcall(mi.system, { workload = "idle", share = path })
    assert.is_false(ok)
    assert.is_truthy(err:find("a live store is there"))
    ok, err = pcall(mi.attach, 42)
    assert.is_false(ok)
    assert.is_truthy(err:find("path expected"))
    sys:close()
    os.remove(path)
  end)

  it("a second mish process measures the store with --attach", function()
    local path = tmp_path("mish")
    local sys = mi.system { workload = "oltp", cpus = 3, seed = 9, share = path }
    local owner = mi.open { system = sys }
    owner:on("global", { 21184 })
    sys:advance(5000)
    local want = owner:get("global")[21184]
    local out, ok = run("lua/mish --attach " .. path ..
      " -e 's:on(\"global\", {21184}); print(\"cs=\" .. s:get(\"global\")[21184]); print(\"cpus=\" .. s:info().cpus)'")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("cs=" .. want, 1, true), out)
    assert.is_truthy(out:find("cpus=3", 1, true), out)
    owner:close()
    sys:close()
    out, ok = run("lua/mish --attach " .. path .. " -e 'print(1)'")
    assert.is_falsy(ok)
    assert.is_truthy(out:find("No such file", 1, true), out)   -- #27.1: the owner removed its file
  end)

  it("examples/embed --share publishes its own counters and removes the file at the end", function()
    local path = tmp_path("embed")
    local out, ok = run("examples/embed --share " .. path .. " 2 3")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("SORTER2", 1, true), out)
    assert.is_nil(io.open(path))
  end)

  it("mish --share publishes the shell's system and removes its file at exit", function()
    local path = tmp_path("shell")
    local out, ok = run("lua/mish --share " .. path .. " --workload idle -e " ..
      "'local a = mi.attach(\"" .. path .. "\"); print(\"procs=\" .. a:info().processes, s:info().processes)'")
    assert.is_true(ok, out)
    assert.is_truthy(out:match("procs=(%d+)%s+%1"), out)
    assert.is_nil(io.open(path))
    out, ok = run("lua/mish --share " .. path .. " --attach " .. path .. " -e 'print(1)'")
    assert.is_falsy(ok)
    assert.is_truthy(out:find("do not go together"), out)   -- one line naming both (#16.3)
  end)
  it("mish --share publishes THE default its options choose; --attach makes the attached system the default (#12)", function()
    local path = tmp_path("default")
    local out, ok = run("lua/mish --share " .. path .. " --workload batch --cpus 4 -e " ..
      "'local i = s:info(); print(\"share=\" .. tostring(i.share), i.cpus, i.workload.name, " ..
      "require(\"mi.core\").system(\"default\"):info().share == i.share)'")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("share=" .. path, 1, true), out)
    assert.is_truthy(out:find("\t4%s+batch%s+true"), out)
    -- a live owner in the background, an attached shell measuring it through every way in
    os.execute("(lua/mish --share " .. path .. " --workload batch --cpus 4 -e 'mi.sleep(3)' >/dev/null 2>&1 &)")
    for _ = 1, 40 do
      local f = io.open(path)
      if f then f:close() break end
      os.execute("sleep 0.05")
    end
    out, ok = run("lua/mish --attach " .. path .. " -e " ..
      "'local L = mi.literal; local raw = L.session(); L.GETPRIVMODE(raw); L.AIFGLOBINSTALL(raw, 666); " ..
      "L.AIFACCESSON(raw, 666); local _, _, lit = L.AIFSCGET(raw, {3002, 0}, 0); " ..
      "print(s:info().source, s:info().cpus, mi.default_system():info().cpus, " ..
      "require(\"mi.core\").system(\"default\"):info().source, lit[1] == s:config(3002)[3002])'")
    assert.is_true(ok, out)
    assert.is_truthy(out:find("attached%s+4%s+4%s+attached%s+true"), out)
    os.execute("sleep 3.2")
    assert.is_nil(io.open(path))
  end)
end)

describe("#27.1 --share never destroys a file", function()
  local function slurp(p) local f = io.open(p, "rb"); if not f then return nil end; local d = f:read("a"); f:close(); return d end

  it("refuses a text file, a recording-like file, a symlink and a directory, leaving each untouched", function()
    local path = tmp_path("notes")
    local f = assert(io.open(path, "w")); f:write("precious notes\n"); f:close()
    local ok, err = pcall(mi.system, { workload = "idle", share = path })
    assert.is_false(ok)
    assert.is_truthy(err:find("not a mish store is there", 1, true), err)
    assert.equal("precious notes\n", slurp(path))
    -- the shell: a one-line error, exit status non-zero, the file untouched
    local out, okm = run("lua/mish --share " .. path .. " -e 'print(1)'")
    assert.is_falsy(okm)
    assert.is_truthy(out:find("mish never replaces it", 1, true), out)
    assert.equal("precious notes\n", slurp(path))
    -- a symbolic link to it
    local link = tmp_path("link")
    assert.is_true(os.execute("ln -s " .. path .. " " .. link))
    ok, err = pcall(mi.system, { workload = "idle", share = link })
    assert.is_false(ok)
    assert.is_truthy(err:find("symbolic link", 1, true), err)
    assert.equal("precious notes\n", slurp(path))
    assert.is_true(os.execute("test -L " .. link))
    os.remove(link)
    -- a directory
    local dir = tmp_path("dir")
    assert.is_true(os.execute("mkdir " .. dir))
    ok, err = pcall(mi.system, { workload = "idle", share = dir })
    assert.is_false(ok)
    assert.is_truthy(err:find("directory", 1, true), err)
    assert.is_true(os.execute("test -d " .. dir))
    os.remove(dir)
    os.remove(path)
  end)

  it("a stale store of ours (its owner died) is replaced; the live one is not", function()
    local path = tmp_path("stale")
    -- an owner killed without cleanup leaves its store behind
    run("lua/mish --share " .. path .. " -e 'os.execute(\"kill -9 $PPID\")'")
    local left = io.open(path)
    assert.is_truthy(left, "the killed owner left its store")
    left:close()
    local sys = mi.system { workload = "idle", share = path }
    assert.equal(path, sys:info().share)
    local ok, err = pcall(mi.system, { workload = "idle", share = path })
    assert.is_false(ok)
    assert.is_truthy(err:find("a live store is there", 1, true), err)
    sys:close()
    assert.is_nil(io.open(path))
  end)

  it("mi.attach takes a trust option and checks its arguments", function()
    local path = tmp_path("trust")
    local sys = mi.system { workload = "idle", share = path }
    local att = mi.attach(path, { trust = true })
    assert.equal("attached", att:info().source)
    att:close()
    local ok, err = pcall(mi.attach, path, 5)
    assert.is_false(ok)
    assert.is_truthy(err:find("table of options expected", 1, true), err)
    sys:close()
  end)
end)
