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

# the layers, one folder each: catalog, store (segment, systems, door 1's switchboard), AIF procedures,
# queries (door 2), sources; the public headers stay in core/ (-Icore)
CORE_SRC = core/catalog/catalog.c $(STORE_SRC) $(AIF_SRC) core/query/query.c core/gen/catalog_data.c $(SOURCE_SRC) $(RECORD_SRC)
STORE_SRC = core/store/store.c core/store/seg.c core/store/defsys.c
AIF_SRC  = core/aif/aif.c core/aif/session.c core/aif/upper.c core/aif/aiftime.c core/aif/config.c core/aif/registry.c
# the sources: they see mi_host.h and mi_source.h only (mi_internal.h #errors under MI_SOURCE_BUILD)
SOURCE_SRC = core/sources/sources.c core/sources/sim.c core/sources/linux.c core/sources/replay.c
# recordings (#13): the recorder and the reader (core/RECORDING.md)
RECORD_SRC = core/record/writer.c core/record/reader.c
CORE_OBJ = $(CORE_SRC:.c=.o)
CORE_HDR = core/mi.h core/mi_query.h core/mi_host.h core/mi_source.h core/mi_sim.h core/mi_linux.h core/mi_catalog.h core/mi_internal.h core/gen/mi_status.h core/mi_record.h core/record/format.h
CATALOG  = $(wildcard core/catalog/*.tsv)
# the compiler and flags of the last build: a change (e.g. SANITIZE=1 and back) rebuilds everything
BUILD_ID := $(CC) $(ALLCFLAGS) $(LUA_LIB)
$(shell printf '%s\n' '$(BUILD_ID)' | cmp -s - .build-flags || printf '%s\n' '$(BUILD_ID)' > .build-flags)
CORE_HDR += .build-flags

# fuzzing: clang and libFuzzer (Debian: clang, libclang-rt-dev); harnesses built from CORE_SRC
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_B       = spec/fuzz/build
FUZZ_CFLAGS  = -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer $(WARN) \
               -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CORE    = $(CORE_SRC:%.c=$(FUZZ_B)/%.o)
FUZZ_HDR     = $(filter-out .build-flags,$(CORE_HDR)) spec/fuzz/fuzz_common.h
FUZZ_BIN     = $(FUZZ_B)/fuzz_aif $(FUZZ_B)/fuzz_proc $(FUZZ_B)/fuzz_registry $(FUZZ_B)/fuzz_workload \
               $(FUZZ_B)/fuzz_lua_workload $(FUZZ_B)/fuzz_record

.PHONY: all test examples bench coverage echo clean fuzz fuzz-harnesses
all: core/libmi.a core/libmi.so spec/test_core examples/testmiaif1 examples/testmiaif2 examples/embed lua/mi/core.so lua/mish

core/gen/catalog_data.c core/gen/mi_status.h: $(CATALOG) core/catalog/gen.lua
	@mkdir -p core/gen
	$(LUA) core/catalog/gen.lua core/catalog core/gen

core/sources/%.o: core/sources/%.c $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -DMI_SOURCE_BUILD -Icore -c $< -o $@

core/%.o: core/%.c $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore -c $< -o $@

core/libmi.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

core/libmi.so: $(CORE_OBJ)
	$(CC) -shared $(SANFLAGS) -o $@ $^ $(LDLIBS)

spec/test_core: spec/test_core.c spec/test_record.c core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore spec/test_core.c core/libmi.a $(LDLIBS) -o $@

examples/embed: examples/embed.c lua/mi_core.c lua/mi_lua.h core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore -Ilua $(LUA_INC) examples/embed.c lua/mi_core.c core/libmi.a $(LUA_LIB) $(LDLIBS) -o $@

examples/%: examples/%.c examples/mish_env.h core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore $< core/libmi.a $(LDLIBS) -o $@

lua/mi/core.so: lua/mi_core.c core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -shared -Icore $(LUA_INC) lua/mi_core.c core/libmi.a $(LDLIBS) -o $@

lua/mish: lua/mish.c lua/mi_core.c lua/mi_lua.h core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -DMISH_READLINE -Icore $(LUA_INC) lua/mish.c lua/mi_core.c core/libmi.a $(LUA_LIB) -lreadline $(LDLIBS) -o $@

test: all
ifneq ($(TSAN),)
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0" ./spec/test_core > .test_c.out 2>&1; rc=$$?; \
	  grep -E 'FAIL|WARNING: ThreadSanitizer' .test_c.out | head -20; tail -n 1 .test_c.out; \
	  test $$rc -eq 0 || { echo "ThreadSanitizer or a test failed (exit $$rc): see .test_c.out"; exit 1; }
else
	@./spec/test_core > .test_c.out; tail -n 2 .test_c.out | head -n 1; grep FAIL .test_c.out || true
	@MI_AIFKUF=$$(mktemp -u) $(SANRUN) $(BUSTED) -o TAP > .test_lua.out 2>&1; \
	  grep -E '^not ok|^# ' .test_lua.out | head -50; \
	  echo "Lua specs: $$(grep -c '^ok' .test_lua.out) passed, $$(grep -c '^not ok' .test_lua.out) failed"
	@MI_AIFKUF=$$(mktemp -u) ./spec/examples.sh > .test_ex.out 2>&1; \
	  grep -A12 '^not ok' .test_ex.out | head -60; tail -n 1 .test_ex.out
	@FUZZ_CC=$(FUZZ_CC) MAKE=$(MAKE) ./spec/fuzz/run.sh check > .test_fuzz.out 2>&1; \
	  grep -E '^# skip' .test_fuzz.out; grep -A25 '^not ok' .test_fuzz.out | head -60; tail -n 1 .test_fuzz.out
	@c=$$(tail -n 1 .test_c.out); lp=$$(grep -c '^ok' .test_lua.out); lf=$$(grep -c '^not ok' .test_lua.out); \
	  cp=$$(echo "$$c" | awk '{print $$1}'); cf=$$(echo "$$c" | awk '{print $$3}'); \
	  grep -q '^1\.\.' .test_lua.out || lf=$$((lf + 1)); \
	  ep=$$(grep -c '^ok' .test_ex.out); ef=$$(grep -c '^not ok' .test_ex.out); \
	  grep -q '^examples: ' .test_ex.out || ef=$$((ef + 1)); \
	  fp=$$(grep -c '^ok' .test_fuzz.out); ff=$$(grep -c '^not ok' .test_fuzz.out); \
	  grep -q '^fuzz: ' .test_fuzz.out || ff=$$((ff + 1)); \
	  echo "$$((cp + lp + ep + fp)) passed, $$((cf + lf + ef + ff)) failed"; test $$((cf + lf + ef + ff)) -eq 0
endif

# every example and script, a couple of short intervals each, on the simulated system
examples: all
	./spec/examples.sh

spec/bench: spec/bench.c spec/bench_record.c lua/mi_core.c core/libmi.a $(CORE_HDR)
	$(CC) $(ALLCFLAGS) -Icore $(LUA_INC) spec/bench.c lua/mi_core.c core/libmi.a $(LUA_LIB) $(LDLIBS) -o $@

bench: spec/bench
	./spec/bench

# the generated item-coverage report of the simulated system (deterministic; a spec keeps it current)
coverage: lua/mish
	./lua/mish scripts/coverage.lua --out core/catalog/COVERAGE-sim.md
	./lua/mish scripts/coverage.lua --host-map --out core/catalog/COVERAGE-host.md

# each fuzz harness for FUZZ_SECONDS seconds (new crashes land in spec/fuzz/crashes/<harness>/)
fuzz: all
	@FUZZ_CC=$(FUZZ_CC) MAKE=$(MAKE) ./spec/fuzz/run.sh fuzz $(FUZZ_SECONDS)

fuzz-harnesses: $(FUZZ_BIN)

$(FUZZ_B)/%.o: %.c $(FUZZ_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -Icore $(LUA_INC) -c $< -o $@

$(FUZZ_B)/fuzz_%: spec/fuzz/fuzz_%.c $(FUZZ_CORE) $(FUZZ_HDR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Icore $< $(FUZZ_CORE) $(LDLIBS) -o $@

$(FUZZ_B)/fuzz_lua_workload: spec/fuzz/fuzz_lua_workload.c $(FUZZ_B)/lua/mi_core.o $(FUZZ_CORE) $(FUZZ_HDR) lua/mi_lua.h
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Icore -Ilua $(LUA_INC) $< $(FUZZ_B)/lua/mi_core.o $(FUZZ_CORE) \
	  $(LUA_LIB) $(LDLIBS) -o $@

echo:
	@echo "CC=$(CC) LUA=$(LUA) LUA_INC=$(LUA_INC) LUA_LIB=$(LUA_LIB)"
	@echo "CFLAGS=$(ALLCFLAGS)"
	@echo "FUZZ_CC=$(FUZZ_CC) FUZZ_SECONDS=$(FUZZ_SECONDS)"

clean:
	rm -f .build-flags core/*.o core/*/*.o core/libmi.a core/libmi.so spec/test_core spec/bench lua/mish lua/mi/core.so .test_*.out examples/testmiaif1 examples/testmiaif2 examples/embed
	rm -rf core/gen $(FUZZ_B)
