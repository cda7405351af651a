# mish — the MPE/iX Measurement Interface as a C library with a Lua 5.4 shell.
# Settings first (override on the command line), then rules.  `make echo` shows them.

CC       ?= cc
LUA      ?= lua5.4
LUA_INC  ?= $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
LUA_LIB  ?= $(shell pkg-config --libs lua5.4 2>/dev/null || echo -llua5.4)
BUSTED   ?= $(LUA) /usr/bin/busted
# under SANITIZE the Lua interpreter needs the ASan runtime loaded first
SANRUN   = $(if $(SANITIZE),LD_PRELOAD=$$($(CC) -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0,)
OPT      ?= -O2
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
SAN_ON   = -fsanitize=address -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# TSAN=1: ThreadSanitizer (`make test TSAN=1` runs the C tests, threads and processes included)
TSAN_ON  = -fsanitize=thread -fno-omit-frame-pointer
SANFLAGS = $(if $(SANITIZE),$(SAN_ON)) $(if $(TSAN),$(TSAN_ON))
CFLAGS  ?= $(OPT) -g
ALLCFLAGS = -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden $(WARN) $(CFLAGS) $(SANFLAGS)
LDLIBS   = -lm -pthread

# installing: `make install PREFIX=/usr/local DESTDIR=/tmp/stage`, `make uninstall` (same variables).
# mish; libmi.so.$(VERSION) (SONAME libmi.so.$(SOMAJOR)) and libmi.a; the public headers in include/mi/;
# mi.pc; the Lua modules where Debian's lua5.4 looks (LUA_LMOD, LUA_CMOD); man pages; the scripts.
VERSION  = 0.1.0
SOMAJOR  = 0
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
MANDIR  ?= $(PREFIX)/share/man
LUA_LMOD ?= $(PREFIX)/share/lua/5.4
LUA_CMOD ?= $(PREFIX)/lib/lua/5.4
PUBLIC_HDR = core/mi.h core/mi_query.h core/mi_host.h core/mi_source.h core/mi_sim.h core/mi_linux.h core/mi_catalog.h \
             core/mi_select.h core/mi_userdef.h core/mi_export.h core/mi_record.h
# where `mish -l` finds scripts: this tree's scripts/ for lua/mish, $(PREFIX)/share/mish/scripts once installed
MISH_SCRIPT_DIR ?= $(CURDIR)/scripts

# the layers, one folder each: catalog, store (segment, systems, door 1's switchboard), AIF procedures,
# queries (door 2), sources; the public headers stay in core/ (-Icore)
CORE_SRC = core/base/clock.c core/catalog/catalog.c $(STORE_SRC) $(AIF_SRC) core/query/query.c core/query/raw.c core/gen/catalog_data.c $(SOURCE_SRC) $(EXPORT_SRC) $(RECORD_SRC)
STORE_SRC = core/store/store.c core/store/seg.c core/store/defsys.c core/store/udef.c core/store/select.c core/store/config.c core/store/registry.c core/store/users.c
AIF_SRC  = core/aif/aif.c core/aif/session.c core/aif/upper.c core/aif/aiftime.c core/aif/config.c core/aif/readactive.c
# the sources: they see mi_host.h and mi_source.h only (mi_internal.h #errors under MI_SOURCE_BUILD)
SOURCE_SRC = core/sources/sources.c core/sources/defsys.c core/sources/sim.c core/sources/sim_workload.c core/sources/sim_counters.c core/sources/sim_rooms.c core/sources/sim_memory.c core/sources/sim_devices.c core/sources/sim_sched.c core/sources/sim_work.c core/sources/linux.c core/sources/linux_sys.c core/sources/replay.c
# the exporter (a reader of the public headers): formatter and HTTP server
EXPORT_SRC = core/export/openmetrics.c core/export/serve.c core/export/conn.c core/export/labels.c
# recordings (#13): the recorder and the reader (core/RECORDING.md)
RECORD_SRC = core/record/writer.c core/recfile/reader.c
CORE_OBJ = $(CORE_SRC:.c=.o)
CORE_HDR = core/base/clock.h core/catalog/catalog_int.h core/mi_testhook.h core/mi.h core/mi_export.h core/mi_query.h core/mi_select.h core/mi_host.h core/mi_source.h core/mi_sim.h core/mi_linux.h core/mi_catalog.h core/mi_internal.h core/mi_userdef.h core/gen/mi_status.h core/mi_record.h core/recfile/format.h core/export/conn.h core/export/labels.h core/sources/sim_model.h core/sources/linux_int.h
CATALOG  = $(wildcard core/catalog/*.tsv)
# the compiler and flags of the last build: a change (e.g. SANITIZE=1 and back) rebuilds everything
BUILD_ID := $(CC) $(ALLCFLAGS) $(LUA_LIB) $(MISH_SCRIPT_DIR) $(SOMAJOR)
$(shell printf '%s\n' '$(BUILD_ID)' | cmp -s - .build-flags || printf '%s\n' '$(BUILD_ID)' > .build-flags)
CORE_HDR += .build-flags

# the Lua binding mi.core, compiled once for lua/mish, lua/mi/core.so, examples/embed and spec/bench;
# core.so exports luaopen_mi_core only (lua/core.map)
LUA_SRC  = lua/mi_core.c lua/mi_system.c lua/mi_aif.c lua/mi_read.c lua/mi_catalog.c lua/mi_record.c lua/mi_stats.c lua/mi_cols.c
LUA_OBJ  = $(LUA_SRC:.c=.o)
LUA_HDR  = lua/mi_lua_int.h lua/mi_lua.h

# fuzzing: clang and libFuzzer (Debian: clang, libclang-rt-dev); harnesses built from CORE_SRC
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_B       = spec/fuzz/build
FUZZ_CFLAGS  = -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer $(WARN) \
               -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CORE    = $(CORE_SRC:%.c=$(FUZZ_B)/%.o)
FUZZ_HDR     = $(filter-out .build-flags,$(CORE_HDR)) spec/fuzz/fuzz_common.h
# systems made once per worker and reset between inputs (spec/fuzz/fuzz_pool.c)
FUZZ_POOL    = $(FUZZ_B)/spec/fuzz/fuzz_pool.o -Wl,--wrap=mi_system_new,--wrap=mi_system_free,--wrap=aligned_alloc,--wrap=calloc,--wrap=realloc,--wrap=free
# fuzz_record reads the recordings the reader maps into the heap (spec/fuzz/fuzz_record.c)
FUZZ_WRAP_record = -Wl,--wrap=mmap,--wrap=munmap
# fuzz_attach keeps its mappings of the store it attaches and counts a yield as time (spec/fuzz/fuzz_attach.c);
# it and fuzz_export keep their large mallocs (spec/fuzz/fuzz_keep.h)
FUZZ_WRAP_attach = -Wl,--wrap=mmap,--wrap=munmap,--wrap=clock_gettime,--wrap=sched_yield,--wrap=nanosleep,--wrap=malloc
FUZZ_WRAP_export = -Wl,--wrap=malloc
# fuzz_proc's tree is served from memory to the /proc reader (spec/fuzz/fuzz_memfs.c)
FUZZ_WRAP_proc = $(FUZZ_B)/spec/fuzz/fuzz_memfs.o -Wl,--wrap=open,--wrap=openat,--wrap=pread,--wrap=fstat,--wrap=fstatfs,--wrap=close,$\
                 --wrap=fdopendir,--wrap=readdir,--wrap=rewinddir,--wrap=closedir,--wrap=readlink,--wrap=readlinkat,--wrap=access
FUZZ_BIN     = $(FUZZ_B)/fuzz_aif $(FUZZ_B)/fuzz_proc $(FUZZ_B)/fuzz_registry $(FUZZ_B)/fuzz_workload \
               $(FUZZ_B)/fuzz_lua_workload $(FUZZ_B)/fuzz_select $(FUZZ_B)/fuzz_http $(FUZZ_B)/fuzz_http_conn $(FUZZ_B)/fuzz_export $(FUZZ_B)/fuzz_record \
               $(FUZZ_B)/fuzz_attach

.PHONY: all test examples bench bench-load bench-peers coverage echo clean fuzz fuzz-harnesses install uninstall install-rock
# the Lua modules, and their bytecode (mish loads a module's .luac when it is as new as its .lua)
LUA_MODS = $(addprefix lua/mi/,init.lua analysis.lua calls.lua records.lua shell.lua cli.lua recording.lua)
LUA_BC   = $(LUA_MODS:.lua=.luac)

all: core/libmi.a core/libmi.so spec/test_core examples/testmiaif1 examples/testmiaif2 examples/embed lua/mi/core.so lua/mish $(LUA_BC)

core/gen/catalog_data.c core/gen/mi_status.h: $(CATALOG) core/catalog/gen.lua
	@mkdir -p core/gen
	$(LUA) core/catalog/gen.lua core/catalog core/gen

core/sources/%.o: core/sources/%.c $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -DMI_SOURCE_BUILD -Icore -c $< -o $@

# the readers above the query room (recorder, recording reader, exporter) see the public headers
# only: door 2 (mi_query.h) is their way into the store (mi_internal.h #errors under MI_READER_BUILD)
$(filter core/record/% core/recfile/% core/export/%,$(CORE_OBJ)): ALLCFLAGS += -DMI_READER_BUILD

# The query's gather (every GET's inner loop) started wherever the link left it: on a 64-byte
# boundary MIPROCGET 2700 x 10 read 22-24 us on this project's machines, 32 bytes on 18-19 us (the
# same instructions; an unrelated change to spec/bench.c moved it and looked like a 20% loss).
# Its functions on 64-byte boundaries and its loops on 32 give the fast placement whatever links
# beside it (core/SOURCES.md).
core/query/query.o: ALLCFLAGS += -falign-functions=64 -falign-loops=32
# The same for the recorder's sample: its raw read (raw_rows) and its encoder (put_body,
# write_entities) read 0.25-0.26 ms a sample where the link left them, 0.22 on 64-byte boundaries.
core/query/raw.o core/record/writer.o: ALLCFLAGS += -falign-functions=64

core/%.o: core/%.c $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore -c $< -o $@

core/libmi.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

core/libmi.so: $(CORE_OBJ)
	$(CC) -shared -Wl,-soname,libmi.so.$(SOMAJOR) $(SANFLAGS) -o $@ $^ $(LDLIBS)

spec/test_core: spec/test_core.c $(filter-out spec/test_core.c,$(wildcard spec/test_*.c)) examples/mish_env.h spec/record_fixture.h core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore spec/test_core.c core/libmi.a $(LDLIBS) -o $@

lua/%.o: lua/%.c $(LUA_HDR) $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore $(LUA_INC) -c $< -o $@

examples/embed: examples/embed.c $(LUA_OBJ) core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore -Ilua $(LUA_INC) examples/embed.c $(LUA_OBJ) core/libmi.a $(LUA_LIB) $(LDLIBS) -o $@

examples/%: examples/%.c examples/mish_env.h core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore $< core/libmi.a $(LDLIBS) -o $@

lua/mi/core.so: $(LUA_OBJ) lua/core.map core/libmi.a
	$(CC) $(ALLCFLAGS) -shared -Wl,--version-script=lua/core.map $(LUA_OBJ) core/libmi.a $(LDLIBS) -o $@

lua/mi/%.luac: lua/mi/%.lua lua/bytecode.lua
	$(LUA) lua/bytecode.lua $< $@

lua/mish: lua/mish.c $(LUA_OBJ) lua/mi_lua.h core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -DMISH_READLINE -DMISH_SCRIPT_DIR='"$(MISH_SCRIPT_DIR)"' -Icore $(LUA_INC) lua/mish.c $(LUA_OBJ) \
	  core/libmi.a $(LUA_LIB) -lreadline $(LDLIBS) -o $@

# the mish that `make install` installs: built each time, for the PREFIX of that install
lua/mish-installed: lua/mish.c $(LUA_OBJ) lua/mi_lua.h core/libmi.a $(CORE_HDR) FORCE
	$(CC) $(ALLCFLAGS) -DMISH_READLINE -DMISH_SCRIPT_DIR='"$(PREFIX)/share/mish/scripts"' -DMISH_LUA_DIR='"$(LUA_LMOD)"' \
	  -Icore $(LUA_INC) lua/mish.c \
	  $(LUA_OBJ) core/libmi.a $(LUA_LIB) -lreadline $(LDLIBS) -o $@
FORCE:

# busted processes of `make test` (spec/busted_par.sh; empty: MISH_TEST_JOBS, else the CPU count)
TEST_JOBS ?=
# a phase of `make test` named on a terminal (#16.13), nothing when the output is piped
phase = test -t 1 && echo "make test: $(1)..." || true

test: all
ifneq ($(TSAN),)
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0" ./spec/test_core > .test_c.out 2>&1; rc=$$?; \
	  grep -E 'FAIL|WARNING: ThreadSanitizer' .test_c.out | head -20; tail -n 1 .test_c.out; \
	  test $$rc -eq 0 || { echo "ThreadSanitizer or a test failed (exit $$rc): see .test_c.out"; exit 1; }
else
	@$(call phase,C core tests then examples and fuzz harnesses; beside them the Lua specs in parallel)
	@( ./spec/test_core > .test_c.out 2>&1; echo $$? > .test_c.rc; \
	  reg=$$(mktemp -u); MI_AIFKUF=$$reg ./spec/examples.sh > .test_ex.out 2>&1; rm -f "$$reg" "$$reg.lock"; \
	  FUZZ_CC=$(FUZZ_CC) MAKE=$(MAKE) ./spec/fuzz/run.sh check > .test_fuzz.out 2>&1 ) & bg=$$!; \
	  BUSTED="$(BUSTED)" SANRUN="$(SANRUN)" ./spec/busted_par.sh .test_lua.out $(TEST_JOBS); wait $$bg; \
	  $(LUA) spec/summary.lua part c .test_c.out $$(cat .test_c.rc); grep FAIL .test_c.out || true; \
	  test "$$(cat .test_c.rc)" = 0 || echo "not ok - spec/test_core ended with status $$(cat .test_c.rc) (a crash counts as a failure)"; \
	  grep -E '^not ok|^# |^ok [0-9]+ - # SKIP' .test_lua.out | grep -v '^# file: ' | head -50; $(LUA) spec/summary.lua part busted .test_lua.out || true; \
	  grep -E '^# skip' .test_ex.out; grep -A12 '^not ok' .test_ex.out | head -60; \
	  $(LUA) spec/summary.lua part examples .test_ex.out || true; \
	  grep -E '^# skip' .test_fuzz.out; grep -A25 '^not ok' .test_fuzz.out | head -60; \
	  $(LUA) spec/summary.lua part fuzz .test_fuzz.out || true
	@$(LUA) spec/summary.lua total .test_c.out "$$(cat .test_c.rc)" .test_lua.out .test_ex.out .test_fuzz.out
endif

# every example and script, a couple of short intervals each, on the simulated system
examples: all
	./spec/examples.sh

spec/bench: spec/bench.c spec/bench_record.c spec/bench_host.c spec/bench_common.h $(LUA_OBJ) core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore $(LUA_INC) spec/bench.c $(LUA_OBJ) core/libmi.a $(LUA_LIB) $(LDLIBS) -o $@

bench: spec/bench
	./spec/bench

# the same figures once under load: a busy loop on every CPU competes with the bench (its
# ratios are of CPU time or of runs taken in turn, so they should hold; the loops end with it)
bench-load: spec/bench
	@n=$$(getconf _NPROCESSORS_ONLN); pids=; for i in $$(seq $$n); do sh -c 'while :; do :; done' & pids="$$pids $$!"; done; \
	trap "kill $$pids" EXIT INT TERM; echo "under load: $$n busy loops beside the bench"; ./spec/bench

# the host beside PCP's pmFetch through a local context (no pmcd), one run; skipped without libpcp3-dev
bench-peers: core/libmi.a lua/mish $(CORE_HDR)
	@CC="$(CC)" CFLAGS="$(ALLCFLAGS)" LDLIBS="$(LDLIBS)" ./spec/bench_peers.sh

# the generated item-coverage report of the simulated system (deterministic; a spec keeps it current)
coverage: lua/mish
	./lua/mish scripts/coverage.lua --out core/catalog/COVERAGE-sim.md
	./lua/mish scripts/coverage.lua --host-map --out core/catalog/COVERAGE-host.md

# each fuzz harness for FUZZ_SECONDS seconds (new crashes land in spec/fuzz/crashes/<harness>/)
fuzz: all
	@FUZZ_CC=$(FUZZ_CC) MAKE=$(MAKE) ./spec/fuzz/run.sh fuzz $(FUZZ_SECONDS)

fuzz-harnesses: $(FUZZ_BIN)

# The engines compare their own state, not input bytes: the simulator, the store's write side, the
# query's gather and the exposition formatter are built without libFuzzer's comparison tracing (a
# third of fuzz_workload's and fuzz_export's time went to the trace-cmp hooks in sim_step, entity,
# account); their edges are still counted, and every parser and check of input (workload files,
# /proc, the store file's checks at attach in seg.c, HTTP) keeps it.
FUZZ_NOCMP   = $(addprefix $(FUZZ_B)/core/sources/,sim.o sim_counters.o sim_rooms.o sim_memory.o sim_devices.o sim_sched.o sim_work.o) \
               $(FUZZ_B)/core/query/query.o $(FUZZ_B)/core/export/openmetrics.o $(FUZZ_B)/core/store/store.o
$(FUZZ_NOCMP): FUZZ_COV = -fno-sanitize-coverage=trace-cmp

$(FUZZ_B)/%.o: %.c $(FUZZ_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_COV) -Icore $(LUA_INC) -c $< -o $@

$(FUZZ_B)/fuzz_%: spec/fuzz/fuzz_%.c $(FUZZ_CORE) $(FUZZ_B)/spec/fuzz/fuzz_pool.o $(FUZZ_HDR) spec/fuzz/fuzz_keep.h
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Icore $< $(FUZZ_CORE) $(FUZZ_POOL) $(FUZZ_WRAP_$*) $(LDLIBS) -o $@

# the in-memory tree is not the product: no coverage of its branches
$(FUZZ_B)/spec/fuzz/fuzz_memfs.o: spec/fuzz/fuzz_memfs.c spec/fuzz/fuzz_memfs.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_B)/fuzz_proc: $(FUZZ_B)/spec/fuzz/fuzz_memfs.o spec/fuzz/fuzz_memfs.h

$(FUZZ_B)/lua/%.o: lua/%.c $(FUZZ_HDR) $(LUA_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -Icore $(LUA_INC) -c $< -o $@

$(FUZZ_B)/fuzz_lua_workload: spec/fuzz/fuzz_lua_workload.c $(LUA_SRC:%.c=$(FUZZ_B)/%.o) $(FUZZ_CORE) $(FUZZ_B)/spec/fuzz/fuzz_pool.o $(FUZZ_HDR) $(LUA_HDR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Icore -Ilua $(LUA_INC) $< $(LUA_SRC:%.c=$(FUZZ_B)/%.o) $(FUZZ_CORE) \
	  $(FUZZ_POOL) $(LUA_LIB) $(LDLIBS) -o $@

install: all lua/mish-installed
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include/mi \
	  $(DESTDIR)$(LUA_LMOD)/mi $(DESTDIR)$(LUA_CMOD)/mi $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
	  $(DESTDIR)$(PREFIX)/share/mish/scripts
	install -m 755 lua/mish-installed $(DESTDIR)$(PREFIX)/bin/mish
	install -m 755 core/libmi.so $(DESTDIR)$(LIBDIR)/libmi.so.$(VERSION)
	ln -sf libmi.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libmi.so.$(SOMAJOR)
	ln -sf libmi.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libmi.so
	install -m 644 core/libmi.a $(DESTDIR)$(LIBDIR)/libmi.a
	install -m 644 $(PUBLIC_HDR) core/gen/mi_status.h $(DESTDIR)$(PREFIX)/include/mi/
	sed 's|"gen/mi_status.h"|"mi_status.h"|' core/mi.h > $(DESTDIR)$(PREFIX)/include/mi/mi.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' core/mi.pc.in \
	  > $(DESTDIR)$(LIBDIR)/pkgconfig/mi.pc
	install -m 644 $(LUA_MODS) $(DESTDIR)$(LUA_LMOD)/mi/
	install -m 644 $(LUA_BC) $(DESTDIR)$(LUA_LMOD)/mi/
	install -m 755 lua/mi/core.so $(DESTDIR)$(LUA_CMOD)/mi/core.so
	install -m 644 lua/mish.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 core/libmi.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 644 scripts/*.lua $(DESTDIR)$(PREFIX)/share/mish/scripts/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/mish $(DESTDIR)$(LIBDIR)/libmi.so* $(DESTDIR)$(LIBDIR)/libmi.a \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/mi.pc $(DESTDIR)$(MANDIR)/man1/mish.1 $(DESTDIR)$(MANDIR)/man3/libmi.3 \
	  $(DESTDIR)$(LUA_CMOD)/mi/core.so $(addprefix $(DESTDIR)$(LUA_LMOD)/mi/,$(notdir $(LUA_MODS) $(LUA_BC)))
	rm -rf $(DESTDIR)$(PREFIX)/include/mi $(DESTDIR)$(PREFIX)/share/mish
	-rmdir $(DESTDIR)$(LUA_LMOD)/mi $(DESTDIR)$(LUA_CMOD)/mi 2>/dev/null

# what `luarocks make` (lua/mish-dev-1.rockspec) installs: the mi modules with the C core linked in
install-rock: lua/mi/core.so
	install -d $(INST_LUADIR)/mi $(INST_LIBDIR)/mi
	install -m 644 $(LUA_MODS) $(INST_LUADIR)/mi/
	install -m 755 lua/mi/core.so $(INST_LIBDIR)/mi/core.so

echo:
	@echo "CC=$(CC) LUA=$(LUA) LUA_INC=$(LUA_INC) LUA_LIB=$(LUA_LIB)"
	@echo "CFLAGS=$(ALLCFLAGS)"
	@echo "FUZZ_CC=$(FUZZ_CC) FUZZ_SECONDS=$(FUZZ_SECONDS)"

clean:
	rm -f .test_c.rc .build-flags core/*.o core/*/*.o core/libmi.a core/libmi.so spec/test_core spec/bench spec/bench_peers lua/mish lua/mish-installed lua/mi/core.so lua/*.o lua/mi/*.luac .test_*.out examples/testmiaif1 examples/testmiaif2 examples/embed
	rm -rf core/gen $(FUZZ_B)
