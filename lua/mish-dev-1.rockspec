-- lua/mish-dev-1.rockspec: the `mi` Lua module with the C core linked in (`luarocks make lua/mish-dev-1.rockspec` from a clone).
-- Copyright (c) 2026 the mish authors; MIT licence (see LICENSE).
rockspec_format = "3.0"
package = "mish"
version = "dev-1"
source = { url = "git+file://./" }
description = {
  summary = "HP MPE/iX Measurement Interface (MIGLOBON ... AIFTIME) for Lua 5.4, over a simulated HP 3000 or Linux",
  detailed = [[
The mi module: the manual's sixteen procedures with names instead of numbers and tables instead of
buffers (mi.open, s:on, s:get, mi.describe, mi.find), and mi.literal for the calls one to one. The C core
(core/) is built by the project's Makefile and linked into mi/core.so.]],
  license = "MIT",
  labels = { "measurement", "performance", "hp3000" },
}
dependencies = { "lua >= 5.4, < 5.5" }
build = {
  type = "make",
  -- gen.lua (run by the interpreter luarocks builds for) makes the catalog tables first
  build_target = "lua/mi/core.so",
  build_variables = { CFLAGS = "$(CFLAGS)", LUA = "$(LUA)", LUA_INC = "-I$(LUA_INCDIR)" },
  install_target = "install-rock",
  install_variables = { INST_LUADIR = "$(LUADIR)", INST_LIBDIR = "$(LIBDIR)" },
}
