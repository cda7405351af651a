# install_check.sh — sourced by examples.sh (uses its check/verify/skip): #16.14-16.16, the project used from
# outside its tree. `make install` into a temporary DESTDIR; a C program (the README's) built through
# pkg-config and run; `require "mi"` in stock lua5.4; both man pages render without warnings;
# `luarocks make` from a copy of the tree; `make uninstall` leaves nothing behind.
inst=/tmp/mish-ex-$$.inst; D=$inst/root; P=/usr/local; mkdir -p "$inst"
# under SANITIZE the library and Lua module carry the ASan runtime: load it first, as `make test` does
asan=""; [ -n "${SANITIZE:-}" ] && asan="LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0"
check "make install PREFIX=$P DESTDIR=<tmp> (#16.14)" ${MAKE:-make} -s install PREFIX=$P DESTDIR="$D"
installed() {
  for f in bin/mish lib/libmi.a lib/libmi.so lib/libmi.so.0 lib/libmi.so.0.1.0 lib/pkgconfig/mi.pc \
           include/mi/mi.h include/mi/mi_status.h include/mi/mi_catalog.h share/lua/5.4/mi/init.lua \
           share/lua/5.4/mi/cli.lua lib/lua/5.4/mi/core.so share/man/man1/mish.1 share/man/man3/libmi.3 \
           share/mish/scripts/cpu.lua; do
    test -e "$D$P/$f" || { echo "missing $P/$f"; return 1; }
  done
  test "$(readlink "$D$P/lib/libmi.so")" = libmi.so.0 && test "$(readlink "$D$P/lib/libmi.so.0")" = libmi.so.0.1.0 &&
    readelf -d "$D$P/lib/libmi.so.0.1.0" | grep -q 'SONAME.*\[libmi.so.0\]' && ! grep -rq 'gen/' "$D$P/include/mi"
}
verify "installed: mish, libmi.so.0.1.0 (SONAME libmi.so.0) and its links, libmi.a, include/mi/ (no gen/ path), mi.pc, Lua modules, man pages, scripts (#16.14)" installed
# the README's program, built as a user would: cc prog.c $(pkg-config --cflags --libs mi)
readme_prog() {
  sed -n '/^```c$/,/^```$/p' README.md | sed '1d;$d' > "$inst/idle.c" && test -s "$inst/idle.c" &&
  PKG_CONFIG_PATH="$D$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D" sh -c \
    'cd "$1" && ${CC:-cc} -Wall -Wextra -Werror idle.c -o idle $(pkg-config --cflags --libs mi)' - "$inst" &&
  env $asan LD_LIBRARY_PATH="$D$P/lib" "$inst/idle"
}
check "the README's C program builds through pkg-config against the install and runs (#16.14)" readme_prog
verify "it printed the two counters and success (#16.14)" grep -Eq '^idle [0-9]+ paused [0-9]+: success$' "$out"
# #28.6: every symbol the installed libmi.so exports is declared in an installed header, and each
# installed header alone compiles (-Werror) into a program that links every function it declares
# against the installed library through pkg-config
declared() {
  undeclared=""
  for s in $(nm -D --defined-only "$D$P/lib/libmi.so.0.1.0" | awk '$2 == "T" { print $3 }'); do
    grep -qw "$s" "$D$P"/include/mi/*.h || undeclared="$undeclared $s"
  done
  test -z "$undeclared" || { echo "exported but in no installed header:$undeclared"; return 1; }
  test "$(nm -D --defined-only "$D$P/lib/libmi.so.0.1.0" | awk '$2 == "T"' | wc -l)" -gt 100
}
check "every function libmi.so exports is declared in an installed header (#28.6)" declared
per_header() {
  n=0
  for h in "$D$P"/include/mi/*.h; do
    b=$(basename "$h" .h); c="$inst/hdr_$b.c"
    fns=$(sed -n 's/^MI_API [^(]*[^a-zA-Z0-9_(]\([a-zA-Z_][a-zA-Z0-9_]*\)(.*/\1/p' "$h" | sort -u)
    { echo "#include <$b.h>"; echo "#include <stdio.h>"; echo "typedef void (*fn)(void);"
      echo "static fn volatile tab[] = { NULL,"; for f in $fns; do echo "  (fn)$f,"; done; echo "};"
      echo "int main(void) {"; echo "  int n = 0;"
      echo "  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) n += tab[i] != NULL;"
      printf '  printf("%%d\\n", n);\n'; echo "  return 0;"; echo "}"; } > "$c"
    PKG_CONFIG_PATH="$D$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D" sh -c \
      'cd "$1" && ${CC:-cc} -std=c11 -Wall -Wextra -Werror -Wno-pedantic "$2" -o "$3" $(pkg-config --cflags --libs mi)' - \
      "$inst" "hdr_$b.c" "hdr_$b" || { echo "$b.h does not build alone"; return 1; }
    got=$(env $asan LD_LIBRARY_PATH="$D$P/lib" "$inst/hdr_$b") || return 1
    test "$got" = "$(echo "$fns" | grep -c .)" || { echo "$b.h: $got of its functions linked"; return 1; }
    case "$b" in mi_status) ;; *) test -n "$fns" || { echo "$b.h declares no function"; return 1; } ;; esac
    grep -q '^ \* For: ' "$h" || { echo "$b.h does not say who it is for"; return 1; }
    n=$((n + 1))
  done
  test "$n" -ge 12 || { echo "only $n installed headers"; return 1; }
}
check "each installed header says who it is for and builds alone into a program linking all its functions (#28.6)" per_header
lua_path="$D$P/share/lua/5.4/?.lua;$D$P/share/lua/5.4/?/init.lua;;"; lua_cpath="$D$P/lib/lua/5.4/?.so;;"
check "require \"mi\" in stock lua5.4 from the installed paths (#16.14)" env $asan LUA_PATH="$lua_path" LUA_CPATH="$lua_cpath" \
  lua5.4 -e 'local mi = require "mi"; assert(package.searchpath("mi", package.path):find("/share/lua/5.4/mi/init.lua", 1, true))
             assert(mi.open():on("global", "gmt_idle").ok); print(mi.describe(21177))'
check "the installed mish runs its scripts from share/mish (#16.14)" env LUA_PATH="$lua_path" \
  "$D$P/bin/mish" "$D$P/share/mish/scripts/config.lua" --match fence
every_module() {
  for f in lua/mi/*.lua; do
    b=$(basename "$f")
    test -f "$D$P/share/lua/5.4/mi/$b" && test -f "$D$P/share/lua/5.4/mi/${b}c" || { echo "not installed: mi/$b or its bytecode"; return 1; }
  done
}
check "every module of lua/mi is installed, each with its bytecode (#16.14, #17.3)" every_module
check "the installed mish runs the export script (it needs mi.cli and mi.recording) (#16.14)" env LUA_PATH="$lua_path" \
  "$D$P/bin/mish" "$D$P/share/mish/scripts/export.lua" --help
if command -v man > /dev/null 2>&1; then
  man_clean() { for m in "$D$P/share/man/man1/mish.1" "$D$P/share/man/man3/libmi.3"; do
      w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>&1 > "$inst/page") || return 1
      test -z "$w" || { echo "$m: $w"; return 1; }
      grep -q "SEE ALSO" "$inst/page" || return 1
    done; }
  check "man -l renders mish(1) and libmi(3) without warnings (#16.14)" man_clean
else
  skip "man is not installed (Debian: man-db), the man pages not rendered"
fi
# installed for real (no DESTDIR) under a prefix Lua does not search: mish still finds its modules
prefixed() {
  ${MAKE:-make} -s install PREFIX="$inst/prefix" && env -u LUA_PATH -u LUA_PATH_5_4 "$inst/prefix/bin/mish" \
    -e 'print(package.searchpath("mi", package.path)); print(mi.describe(21177))' &&
  ${MAKE:-make} -s uninstall PREFIX="$inst/prefix" && test -z "$(find "$inst/prefix" -type f -o -type l)"
}
check "an install under another PREFIX: its mish finds mi there, uninstall removes it (#16.14)" prefixed
verify "that mish loaded mi from the prefix (#16.14)" grep -q "$inst/prefix/share/lua/5.4/mi/init.lua" "$out"
uninstalled() { ${MAKE:-make} -s uninstall PREFIX=$P DESTDIR="$D" && test -z "$(find "$D" -type f -o -type l)"; }
check "make uninstall removes every installed file (#16.14)" uninstalled
# luarocks make from a copy of the tree (tracked and new files, no build products), into a temp tree
if command -v luarocks > /dev/null 2>&1 && git rev-parse --git-dir > /dev/null 2>&1; then
  rock() {
    mkdir -p "$inst/src" && git ls-files --cached --others --exclude-standard | tar cf - -T - | tar xf - -C "$inst/src" &&
    (cd "$inst/src" && luarocks --lua-version 5.4 make --tree "$inst/rocks" lua/mish-dev-1.rockspec) &&
    env $asan LUA_PATH="$inst/rocks/share/lua/5.4/?.lua;$inst/rocks/share/lua/5.4/?/init.lua;;" \
      LUA_CPATH="$inst/rocks/lib/lua/5.4/?.so;;" lua5.4 -e 'assert(require("mi").item(21177).description)'
  }
  check "luarocks make (lua/mish-dev-1.rockspec) builds mi with the C core; stock lua5.4 requires it (#16.15)" rock
else
  skip "luarocks is not installed (Debian: luarocks) or this is no git checkout, the rockspec not built"
fi
check "LICENSE is MIT with a copyright line (#16.16)" sh -c 'grep -q "^MIT License" LICENSE && grep -q "^Copyright (c) " LICENSE'
rm -rf "$inst"
