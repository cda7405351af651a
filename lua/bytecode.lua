-- bytecode.lua SRC OUT: compiles a Lua source to bytecode (debug information kept, so errors
-- still name their lines), for mish's searcher to load instead of parsing the source (#17.3).
local src, out = arg[1], arg[2]
if not (src and out) then io.stderr:write("usage: bytecode.lua SRC OUT\n") os.exit(2) end
local chunk = assert(loadfile(src))
local f = assert(io.open(out .. ".tmp", "wb"))
assert(f:write(string.dump(chunk)))
assert(f:close())
assert(os.rename(out .. ".tmp", out))
