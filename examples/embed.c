/* embed.c — a program that measures itself through the Measurement Interface.
 *
 * It creates its own MI system with the writer API (mi_host.h): one CPU, a disk at LDEV 1,
 * and one MI process per worker. A Lua analysis script (examples/embed_report.lua) is
 * loaded first and enables the counters it wants; then the workers do real work —
 * sorting arrays and writing the results to a scratch file — while the program books
 * what they did: CPU time measured with the thread CPU clock goes to the CS queue and to
 * the process, each file write to the disk and the process, with its size and duration.
 * Finally the script's report() reads the counters back through MIGLOBGET/MIPROCGET/
 * MIIOGET and prints an analysis.
 *
 * It also installs counters of its own (mi_userdef.h, NonStop Measure's USERDEF): the orders
 * it places (one sort job per worker per round), the length of its work list of waiting jobs
 * (a time-weighted queue), the time a sorter is busy, and per worker process the numbers it
 * sorted (64-bit). The script enables and reports them by name like built-in items.
 *
 * With --share PATH the program publishes its counters in the file PATH while it runs (each
 * step's writes bracketed by mi_host_begin/mi_host_publish), so another terminal can watch
 * it live with `lua/mish --attach PATH`; the file is removed at the end.
 *
 * Usage: examples/embed [--share PATH] [workers] [rounds] [script]
 *        (defaults 3, 20, examples/embed_report.lua) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lauxlib.h"
#include "lualib.h"
#include "mi_host.h"
#include "mi_userdef.h"
#include "mi_lua.h"

#define MAX_WORKERS 16
#define N_INTS 200000

/* Ticks of a clock, at the system's ticks per millisecond. */
static int64_t ticks_of(clockid_t id, int32_t tpm) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000 * tpm + (int64_t)ts.tv_nsec * tpm / 1000000;
}

/* Compares two ints for qsort. */
static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const char *share = NULL;
  if (argc > 2 && strcmp(argv[1], "--share") == 0) { share = argv[2]; argv += 2; argc -= 2; }
  int workers = argc > 1 ? atoi(argv[1]) : 3, rounds = argc > 2 ? atoi(argv[2]) : 20;
  const char *script = argc > 3 ? argv[3] : "examples/embed_report.lua";
  if (workers < 1 || workers > MAX_WORKERS || rounds < 1) {
    fprintf(stderr, "usage: embed [--share PATH] [workers 1-%d] [rounds >= 1] [script]\n", MAX_WORKERS);
    return 2;
  }

  /* 1. the measured system: this program */
  mi_system_options opt = {.share = share};
  mi_system *sys = mi_system_new(&opt);
  if (!sys) { fprintf(stderr, "embed: cannot create the MI system%s%s\n", share ? " in " : "", share ? share : ""); return 1; }
  int32_t tpm = mi_host_ticks_per_ms(sys);
  mi_host_set_cpus(sys, 1);
  mi_host_set_device(sys, 1, 1);   /* LDEV 1: a disk (the scratch file's) */
  mi_host_set_now(sys, ticks_of(CLOCK_REALTIME, tpm));
  int slot[MAX_WORKERS];
  for (int w = 0; w < workers; w++) {
    char name[16];
    snprintf(name, sizeof name, "SORTER%d", w + 1);
    mi_proc_desc d = {.pid = 1000 + w, .program = name, .program_group = "PUB", .program_account = "EMBED",
                      .user = "EMBED", .user_group = "PUB", .account = "EMBED", .proc_type = MI_PT_USER};
    slot[w] = mi_host_proc_create(sys, &d);
  }
  mi_ctr g_cs = mi_host_counter(21184), g_idle = mi_host_counter(21177), g_cs_blocks = mi_host_counter(21172);
  mi_ctr p_cpu = mi_host_counter(25047), p_launch = mi_host_counter(25049), p_write = mi_host_counter(25168);
  mi_ctr p_wsize = mi_host_counter(25170);
  mi_ctr d_wt = mi_host_counter(23049), d_wsize = mi_host_counter(23041), d_wrtt = mi_host_counter(23023);
  mi_ctr c_cs = mi_host_counter(27023), c_idle = mi_host_counter(27006);
  /* the program's own counters: installed now, so the script can enable them by name */
  mi_udef u_orders, u_list, u_busy, u_sorted;
  if (mi_udef_install(sys, &(mi_udef_desc){.name = "orders_placed", .kind = MI_UDEF_ACCUM, .unit = "orders",
                                            .help = "sort jobs placed on the work list"}, &u_orders) ||
      mi_udef_install(sys, &(mi_udef_desc){.name = "work_list", .kind = MI_UDEF_QUEUE, .unit = "jobs",
                                            .help = "jobs waiting on the work list (time-weighted)"}, &u_list) ||
      mi_udef_install(sys, &(mi_udef_desc){.name = "sorter_busy", .kind = MI_UDEF_BUSY,
                                            .help = "time a sorter was sorting"}, &u_busy) ||
      mi_udef_install(sys, &(mi_udef_desc){.name = "ints_sorted", .kind = MI_UDEF_FACCUM, .unit = "ints", .per_process = 1,
                                            .help = "numbers the worker sorted"}, &u_sorted)) {
    fprintf(stderr, "embed: cannot install the user-defined counters\n");
    mi_system_free(sys);
    return 1;
  }

  /* 2. the analysis script: it enables its counters now and returns report() */
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "mi.core", luaopen_mi_core, 0);
  lua_pop(L, 1);
  mi_lua_path_from_exe(L, "../lua");   /* examples/../lua */
  mi_lua_push_system(L, sys);
  lua_setglobal(L, "system");
  if (luaL_dofile(L, script) != LUA_OK || !lua_isfunction(L, -1)) {
    fprintf(stderr, "embed: %s: %s\n", script, lua_isstring(L, -1) ? lua_tostring(L, -1) : "must return a report function");
    lua_close(L);
    mi_system_free(sys);   /* with --share it removes the store file it made */
    return 1;
  }
  int report = luaL_ref(L, LUA_REGISTRYINDEX);

  /* 3. real work, booked as it happens */
  char path[] = "/tmp/mish-embed-XXXXXX";
  int fd = mkstemp(path);
  FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!out) { perror("embed: scratch file"); return 1; }
  int *a = malloc(sizeof(int) * N_INTS);
  uint64_t seed = 12345;
  long checksum = 0;
  for (int r = 0; r < rounds; r++) {
    /* a round: one order per worker goes on the work list */
    mi_host_begin(sys);
    mi_host_set_now(sys, ticks_of(CLOCK_REALTIME, tpm));
    mi_udef_add(sys, u_orders, 0, workers);
    mi_udef_set(sys, u_list, 0, workers);
    mi_udef_set(sys, u_busy, 0, 1);
    mi_host_publish(sys);
    for (int w = 0; w < workers; w++) {
      int64_t wall0 = ticks_of(CLOCK_REALTIME, tpm), cpu0 = ticks_of(CLOCK_THREAD_CPUTIME_ID, tpm);
      int n = N_INTS / (w + 1);   /* worker k sorts 1/k of the array: uneven on purpose */
      for (int i = 0; i < n; i++) { seed = seed * 6364136223846793005ull + 1442695040888963407ull; a[i] = (int)(seed >> 33); }
      qsort(a, (size_t)n, sizeof *a, cmp_int);
      checksum += a[n / 2];
      int64_t cpu = ticks_of(CLOCK_THREAD_CPUTIME_ID, tpm) - cpu0;
      /* write the top of the result, one write per worker per round */
      int64_t io0 = ticks_of(CLOCK_REALTIME, tpm);
      size_t bytes = sizeof *a * (size_t)(n < 4096 ? n : 4096);
      fwrite(a, 1, bytes, out);
      fflush(out);
      int64_t rtt = ticks_of(CLOCK_REALTIME, tpm) - io0;
      int64_t now = ticks_of(CLOCK_REALTIME, tpm), idle = now - wall0 - cpu;
      /* book the step: readers (mish --attach, other threads) see all of it or none of it */
      mi_host_begin(sys);
      mi_host_add(sys, g_cs, 0, cpu); mi_host_add(sys, c_cs, 0, cpu); mi_host_add(sys, g_cs_blocks, 0, 1);
      mi_host_add(sys, p_cpu, slot[w], cpu); mi_host_add(sys, p_launch, slot[w], 1);
      mi_host_add(sys, d_wt, 1, 1); mi_host_add(sys, d_wsize, 1, (int64_t)bytes); mi_host_add(sys, d_wrtt, 1, rtt);
      mi_host_add(sys, p_write, slot[w], 1); mi_host_add(sys, p_wsize, slot[w], (int64_t)bytes);
      /* the rest of the wall time this step is "idle" for the one CPU */
      if (idle > 0) { mi_host_add(sys, g_idle, 0, idle); mi_host_add(sys, c_idle, 0, idle); }
      mi_host_set_now(sys, now);
      mi_udef_add(sys, u_sorted, slot[w], n);
      mi_udef_set(sys, u_list, 0, workers - w - 1);   /* this worker's job left the list */
      if (w == workers - 1) mi_udef_set(sys, u_busy, 0, 0);
      mi_host_publish(sys);
    }
  }
  fclose(out);
  unlink(path);
  free(a);

  /* 4. the script analyses what the program did */
  lua_rawgeti(L, LUA_REGISTRYINDEX, report);
  lua_pushinteger(L, checksum);
  int rc = lua_pcall(L, 1, 0, 0);
  if (rc != LUA_OK) fprintf(stderr, "embed: report: %s\n", lua_tostring(L, -1));
  lua_close(L);
  mi_system_free(sys);   /* with --share it removes the store file it made */
  return rc == LUA_OK ? 0 : 1;
}
