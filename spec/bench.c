/* bench.c — `make bench`: the hot paths, each against a baseline measured in the same run.
 * writer increments; MIGLOBGET of testmiaif1's 23 items vs a bare loop over the same cells;
 * MIPROCGET of 2,700 processes x 10 items vs a gather floor; the same 23 items into a Lua
 * table; the friendly s:get of global, process and I/O records; simulating one hour of an
 * 8-CPU, 2,000-process system; an absent-pid lookup in a fresh pid hash and after 100,000
 * process deaths; an attached reader's MIGLOBGET against the owner's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mi.h"
#include "mi_host.h"
#include "mi_sim.h"
#include "mi_linux.h"
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

int luaopen_mi_core(lua_State *L);
void mi_lua_push_system(lua_State *L, mi_system *sys);

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int32_t glob[] = {21176, 21177, 21178, 21179, 21180, 21181, 21182, 21183, 21184, 21185, 21186, 21317,
                         21187, 21188, 21189, 21191, 21192, 21193, 21233, 21306, 21307, 21313, 21314, 0};
volatile int64_t sink;
static int64_t bare_cells[8];
/* A compiler barrier after every add in the writer loops and their baselines: nothing is
 * hoisted or merged across adds, each one reloads what a source's add would. */
#define BARRIER() __asm__ volatile("" ::: "memory")

#include "bench_record.c"   /* recordings (#13) */

int main(void) {
  mi_system_options o = {.registry = NULL};
  mi_system *sys = mi_system_new(&o);
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  status_type st;
  mi_globinstall(s, &st, 666);
  mi_accesson(s, &st, 666);
  int32_t stats[32], map = 1, buf[32];
  mi_globon(s, &st, glob, stats, &map, 0);

  /* MIGLOBGET vs a bare gather of the same 23 cells */
  mi_ctr cs[23];
  for (int i = 0; i < 23; i++) cs[i] = mi_host_counter(glob[i]);
  const long G = 2000000;
  double t0, get = 1e9, bare = 1e9, callv = 1e9;
  /* the baseline produces the same buffer: values in the AIF view (time items in MI_Time) */
  int istime[23], ref[32], same = 1;
  for (int k = 0; k < 23; k++) istime[k] = mi_item_lookup(glob[k])->unit == MI_UNIT_MI_TIME;
  for (int k = 0; k < 23; k++) mi_host_add(sys, cs[k], 0, 123456789 + k);
  mi_globget(s, &st, glob, ref, stats, sizeof ref, 1, 0);
  /* the floor: a loop loading the same 23 cells through pointers computed beforehand */
  const int64_t *gcell[23];
  {
    mi_host_block *v = ((const mi_host_view *)(const void *)sys)->blk;
    for (int k = 0; k < 23; k++) gcell[k] = (int64_t *)(void *)v + v->lane[MI_DOM_GLOBAL].cells + v->off[cs[k].id];
  }
  /* three alternating rounds, best of each side (as for every figure below) */
  for (int r = 0; r < 3; r++) {
    t0 = now_ns();
    for (long i = 0; i < G; i++) mi_globget(s, &st, glob, buf, stats, sizeof buf, 1, 0);
    double t = (now_ns() - t0) / G;
    if (t < get) get = t;
    t0 = now_ns();
    for (long i = 0; i < G; i++) {
      for (int k = 0; k < 23; k++) {
        int64_t v = __atomic_load_n(gcell[k], __ATOMIC_RELAXED);
        buf[k] = (int32_t)(istime[k] ? v / 1000 : v);
      }
      __asm__ volatile("" ::"r"(buf) : "memory");
    }
    t = (now_ns() - t0) / G;
    if (t < bare) bare = t;
    t0 = now_ns();   /* the bench's earlier baseline: one mi_host_value call per value */
    for (long i = 0; i < G; i++) {
      for (int k = 0; k < 23; k++) {
        int64_t v = mi_host_value(sys, cs[k], 0);
        buf[k] = (int32_t)(istime[k] ? v / 1000 : v);
      }
      __asm__ volatile("" ::"r"(buf) : "memory");
    }
    t = (now_ns() - t0) / G;
    if (t < callv) callv = t;
  }
  for (int k = 0; k < 23; k++) same &= buf[k] == ref[k];
  if (!same) printf("  (baseline buffer differs from MIGLOBGET's)\n");
  printf("MIGLOBGET 23 items:          %6.1f ns  bare loop (mi_host_value) %6.1f ns  ratio %.2f  (target <= 1.3; best of 3)\n",
         get, callv, get / callv);
  printf("  against a floor loading the 23 cells through precomputed pointers: %.1f ns, ratio %.2f\n", bare, get / bare);

  /* MIPROCGET 2700 x 10 */
  for (int p = 0; p < 2700; p++) {
    mi_proc_desc d = {0};
    d.pid = 1000 + p; d.program = "PROG"; d.user = "USER";
    mi_host_proc_create(sys, &d);
  }
  int32_t pitems[] = {20001, 25047, 25048, 25049, 25060, 25066, 25167, 25168, 25172, 25195, 0}, ps[10], n;
  mi_procon(s, &st, pitems, ps, &map, NULL, 0);
  size_t recsz = 8 + 9 * 4;
  uint8_t *pbuf = malloc(recsz * 2700);
  mi_ctr pc[9];
  for (int k = 0; k < 9; k++) pc[k] = mi_host_counter(pitems[k + 1]);
  const long P = 1000;
  double pget = 1e9, pbare = 1e9;
  /* the floor: a loop copying the same cells of each row (offsets computed beforehand) */
  const int64_t *prow0;
  int32_t pstride0, poff[9], ptime[9];
  {
    mi_host_block *v = ((const mi_host_view *)(const void *)sys)->blk;
    prow0 = (int64_t *)(void *)v + v->lane[MI_DOM_PROCESS].cells;
    pstride0 = v->lane[MI_DOM_PROCESS].stride;
    for (int k = 0; k < 9; k++) { poff[k] = v->off[pc[k].id]; ptime[k] = mi_item_lookup(pitems[k + 1])->unit == MI_UNIT_MI_TIME; }
  }
  for (int r = 0; r < 3; r++) {
    t0 = now_ns();
    for (long i = 0; i < P; i++) mi_procget(s, &st, pitems, pbuf, ps, (int32_t)(recsz * 2700), 1, NULL, &n, NULL, 0);
    double t = (now_ns() - t0) / P / 1000;
    if (t < pget) pget = t;
    if (n != 2700 || st.all) printf("  (MIPROCGET returned %d records, status %d)\n", n, mi_status_info(st));
    /* the floor: the same cells copied by a straight loop over precomputed offsets (no call
     * per value), the pid as a longint, time counters in MI_Time, as MIPROCGET writes them */
    t0 = now_ns();
    for (long i = 0; i < P; i++) {
      uint8_t *out = pbuf;
      for (int p = 0; p < 2700; p++) {
        longint_type pid;
        mi_longint_set(&pid, 1000 + p);
        memcpy(out, &pid, 8); out += 8;
        const int64_t *row = prow0 + (size_t)p * pstride0;
        for (int k = 0; k < 9; k++) {
          int64_t v = __atomic_load_n(&row[poff[k]], __ATOMIC_RELAXED);
          int32_t x = (int32_t)(ptime[k] ? v / 1000 : v);
          memcpy(out, &x, 4); out += 4;
        }
      }
      __asm__ volatile("" ::"r"(pbuf) : "memory");
    }
    t = (now_ns() - t0) / P / 1000;
    if (t < pbare) pbare = t;
  }
  printf("MIPROCGET 2700 x 10 items:   %6.1f us  bare gather %6.1f us  ratio %.2f  (target <= 1.5; best of 3)\n", pget, pbare, pget / pbare);

  /* writer increments. (a) a source's mix: 8 global counters and 8 counters of process
   * slots walking the 2,700 processes, in turn; baseline: the same adds straight to the
   * cells through precomputed offsets, no checks. (b) one cell over and over: a chain of
   * dependent adds, bound by store-to-load forwarding; baseline: a bare add to one cell. */
  {
    const long M = 4000000;
    int64_t *grow_ = NULL, *prow = NULL;
    int32_t gk[8], pk[8], pstride = 0;
    /* offsets read through the public view so the baseline touches the very same cells */
    mi_host_block *v = ((const mi_host_view *)(const void *)sys)->blk;
    grow_ = (int64_t *)(void *)v + v->lane[MI_DOM_GLOBAL].cells;
    prow = (int64_t *)(void *)v + v->lane[MI_DOM_PROCESS].cells; pstride = v->lane[MI_DOM_PROCESS].stride;
    for (int k = 0; k < 8; k++) { gk[k] = v->off[cs[k].id]; pk[k] = v->off[pc[k].id]; }
    /* five alternating rounds, best of each side: the figure a quiet machine gives */
    const int R = 5;
    int64_t before = mi_host_value(sys, pc[3], 17);
    double mix = 1e9, mix0 = 1e9, mixc = 1e9, one = 1e9, one0 = 1e9;
    const long N = 40000000;
    mi_ctr c = mi_host_counter(21184);
    for (int r = 0; r < R; r++) {
      t0 = now_ns();
      for (long i = 0, p = 0; i < M; i++, p = p == 2699 ? 0 : p + 1)
        for (int k = 0; k < 8; k++) {
          mi_host_add(sys, cs[k], 0, 3); BARRIER();
          mi_host_add(sys, pc[k], (int)p, 3); BARRIER();
        }
      double t = (now_ns() - t0) / (M * 16.0);
      if (t < mix) mix = t;
      t0 = now_ns();
      for (long i = 0, p = 0; i < M; i++, p = p == 2699 ? 0 : p + 1)
        for (int k = 0; k < 8; k++) {
          grow_[gk[k]] += 3; BARRIER();
          prow[p * pstride + pk[k]] += 3; BARRIER();
        }
      t = (now_ns() - t0) / (M * 16.0);
      if (t < mix0) mix0 = t;
      t0 = now_ns();
      for (long i = 0, p = 0; i < M; i++, p = p == 2699 ? 0 : p + 1)
        for (int k = 0; k < 8; k++) {
          mi_host_add_call(sys, cs[k], 0, 3); BARRIER();
          mi_host_add_call(sys, pc[k], (int)p, 3); BARRIER();
        }
      t = (now_ns() - t0) / (M * 16.0);
      if (t < mixc) mixc = t;
      t0 = now_ns();
      for (long i = 0; i < N; i++) { mi_host_add(sys, c, 0, 3); BARRIER(); }
      t = (now_ns() - t0) / N;
      if (t < one) one = t;
      t0 = now_ns();
      for (long i = 0; i < N; i++) { bare_cells[0] += 3; BARRIER(); }
      t = (now_ns() - t0) / N;
      if (t < one0) one0 = t;
    }
    /* both loops wrote slot 17 the same number of times */
    int64_t want = before + 3 * 3 * R * (M / 2700 + (17 < M % 2700));
    if (mi_host_value(sys, pc[3], 17) != want) printf("  (writer and baseline disagree on slot 17)\n");
    printf("writer increment, 16 ctrs:   %6.2f ns  bare adds %5.2f ns  ratio %.2f  (target <= 2 ns; best of %d)\n", mix, mix0, mix / mix0, R);
    printf("  the same through the exported mi_host_add_call: %.2f ns\n", mixc);
    printf("writer increment, one cell:  %6.2f ns  bare add  %5.2f ns  ratio %.2f  (store-forwarding bound; best of %d)\n", one, one0, one / one0, R);
  }

  /* the pid hash: a lookup of an absent pid with 1,000 live processes, in a fresh table and in
   * one that saw 100,000 births and deaths (deleted entries must not slow it down);
   * alternating rounds, best of each */
  {
    mi_system *ph[2] = {mi_system_new(&o), mi_system_new(&o)};
    for (int k = 0; k < 2; k++)
      for (int p = 0; p < 1000; p++) { mi_proc_desc d = {0}; d.pid = 7 + 13 * p; mi_host_proc_create(ph[k], &d); }
    for (int k = 0; k < 100000; k++) {
      mi_proc_desc d = {0}; d.pid = 1000000 + k;
      mi_host_proc_exit(ph[1], mi_host_proc_create(ph[1], &d));
    }
    double best[2] = {1e9, 1e9};
    const long L = 2000000;
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 2; k++) {
        int hits = 0;
        t0 = now_ns();
        for (long i = 0; i < L; i++) hits += mi_host_proc_slot(ph[k], 5000000 + i) >= 0;
        double t = (now_ns() - t0) / L;
        if (hits) printf("  (an absent pid was found)\n");
        if (t < best[k]) best[k] = t;
      }
    printf("pid lookup, absent pid:      %6.1f ns  after 100k deaths %6.1f ns  ratio %.2f  (target <= 2; best of 3)\n",
           best[0], best[1], best[1] / best[0]);
    mi_system_free(ph[0]);
    mi_system_free(ph[1]);
  }
  /* an attached reader's MIGLOBGET against the owner's, on a store shared in a file */
  {
    char spath[64];
    snprintf(spath, sizeof spath, "/tmp/mish-bench-%d", (int)getpid());
    unlink(spath);
    mi_system_options so = {.share = spath, .max_cells = 1 << 20};
    mi_system *own = mi_system_new(&so);
    int err = 0;
    mi_system *att = own ? mi_system_attach(spath, &err) : NULL;
    if (att) {
      mi_session *so_s = mi_session_new(own), *sa = mi_session_new(att);
      mi_session_set_priv(so_s, 1); mi_session_set_priv(sa, 1);
      mi_globinstall(so_s, &st, 666); mi_accesson(so_s, &st, 666);
      mi_globinstall(sa, &st, 666); mi_accesson(sa, &st, 666);   /* a memory-only registry is per process */
      int32_t m1 = 1, m2 = 1;
      mi_globon(so_s, &st, glob, stats, &m1, 0);
      mi_globon(sa, &st, glob, stats, &m2, 0);
      for (int k = 0; k < 23; k++) mi_host_add(own, cs[k], 0, 1000 + k);
      double town = 1e9, tatt = 1e9;
      int32_t b1[32], b2[32];
      for (int r = 0; r < 3; r++) {
        t0 = now_ns();
        for (long i = 0; i < G; i++) mi_globget(so_s, &st, glob, b1, stats, sizeof b1, 1, 0);
        double t = (now_ns() - t0) / G;
        if (t < town) town = t;
        t0 = now_ns();
        for (long i = 0; i < G; i++) mi_globget(sa, &st, glob, b2, stats, sizeof b2, 1, 0);
        t = (now_ns() - t0) / G;
        if (t < tatt) tatt = t;
      }
      if (memcmp(b1, b2, 23 * 4) != 0 || st.all) printf("  (the attached reader's buffer differs from the owner's)\n");
      printf("attached MIGLOBGET 23 items: %6.1f ns  owner's %6.1f ns  ratio %.2f  (target <= 1.2; best of 3)\n", tatt, town, tatt / town);
      mi_system_free(att);
    } else printf("attached MIGLOBGET: cannot share/attach (%s)\n", mi_status_message(err));
    mi_system_free(own);
    unlink(spath);
  }
  if (getenv("MISH_BENCH_QUICK")) { free(pbuf); mi_system_free(sys); return 0; }

  /* Lua: the same 23 items into a table */
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  luaL_requiref(L, "mi.core", luaopen_mi_core, 0);
  lua_pop(L, 1);
  const char *code =
    "local core = require('mi.core') local sys = core.system({workload='idle', seed=1}) local s = core.session(sys)\n"
    "s:priv(true) core.globinstall(s, 666) core.accesson(s, 666)\n"
    "local items = {21176,21177,21178,21179,21180,21181,21182,21183,21184,21185,21186,21317,21187,21188,21189,21191,21192,21193,21233,21306,21307,21313,21314}\n"
    "core.globon(s, items, 1, 0) local n, best = 100000, math.huge\n"
    "for r = 1, 3 do local t0 = os.clock()\n"
    "  for i = 1, n do local rc, st, v = core.globget(s, items, 1, 0) end\n"
    "  best = math.min(best, (os.clock() - t0) / n * 1e6) end\n"
    "return best";
  if (luaL_dostring(L, code) == LUA_OK) printf("Lua core.globget 23 items:   %6.2f us  (best of 3)\n", lua_tonumber(L, -1));
  else printf("Lua bench failed: %s\n", lua_tostring(L, -1));
  /* the friendly layer on this system (2,700 processes): s:get of the same 23 global items,
   * of 10 items of every process, of 8 items of 100 disks */
  for (int l = 1; l <= 100; l++) mi_host_set_device(sys, l, mi_devtype_find("disk")->code);
  mi_lua_push_system(L, sys);
  lua_setglobal(L, "SYS");
  const char *friendly =
    "package.path = 'lua/?.lua;lua/?/init.lua;' .. package.path\n"
    "local mi = require('mi') local s = mi.open{system = SYS}\n"
    "local function best(n, f) local b = math.huge for r = 1, 3 do local t0 = os.clock() for i = 1, n do f() end\n"
    "  b = math.min(b, (os.clock() - t0) / n * 1e6) end return b end\n"
    "assert(s:on('global', {21176,21177,21178,21179,21180,21181,21182,21183,21184,21185,21186,21317,21187,21188,21189,21191,21192,21193,21233,21306,21307,21313,21314}).ok)\n"
    "assert(s:on('process', {20001,25047,25048,25049,25060,25066,25167,25168,25172,25195}).ok)\n"
    "assert(s:on('io', {23000,23001,23002,23003,23009,23010,23013,23015}, {ldev = 'disk'}).ok)\n"
    "local g = best(100000, function() local v, st = s:get('global') end)\n"
    "local p = best(20, function() local v, st = s:get('process') assert(#v == 2700, #v) end)\n"
    "local d = best(1000, function() local v, st = s:get('io') assert(#v == 100) end)\n"
    "local core = require('mi.core') local pl = {20001,25047,25048,25049,25060,25066,25167,25168,25172,25195}\n"
    "local pr = best(20, function() local rc, st, v = core.procget(s.s, pl, 1) assert(#v == 2700, #v) end)\n"
    "s:close() return g, p, d, pr";
  if (luaL_dostring(L, friendly) == LUA_OK) {
    printf("Lua s:get('global') 23 items:     %8.2f us  (target <= 2 us; best of 3)\n", lua_tonumber(L, -4));
    printf("Lua s:get('process') 2700 x 10:   %8.2f ms  (target <= 2 ms; best of 3)  core.procget arrays %.2f ms  ratio %.2f\n",
           lua_tonumber(L, -3) / 1000, lua_tonumber(L, -1) / 1000, lua_tonumber(L, -3) / lua_tonumber(L, -1));
    printf("Lua s:get('io') 100 disks x 8:    %8.2f us  (target <= 100 us; best of 3)\n", lua_tonumber(L, -2));
  } else printf("Lua s:get bench failed: %s\n", lua_tostring(L, -1));
  lua_close(L);

  /* simulate one hour of 8 CPUs with 2000 processes: unobserved, then with a user measuring
   * every global item and 10 items of every process (all cells live) */
  for (int watched = 0; watched < 2; watched++) {
    mi_workload w = *mi_workload_builtin("oltp");
    w.cpus = 8; w.sessions = 995; w.jobs = 0; w.terminals = 20; w.disks = 8;
    mi_system *big = mi_sim_new(&w, 0);
    mi_session *ws = NULL;
    if (watched) {
      ws = mi_session_new(big);
      mi_session_set_priv(ws, 1);
      mi_globinstall(ws, &st, 666);
      mi_accesson(ws, &st, 666);
      static int32_t all[1100];
      int k = 0;
      for (int i = 0; i < mi_domain_counters(MI_DOM_GLOBAL); i++) all[k++] = mi_domain_item(MI_DOM_GLOBAL, i)->item;
      all[k] = 0;
      int32_t *gs = calloc(1100, sizeof *gs), m = 1;
      mi_globon(ws, &st, all, gs, &m, 0);
      mi_procon(ws, &st, pitems, ps, &m, NULL, 0);
      free(gs);
    }
    mi_sim_advance(big, 2000);
    t0 = now_ns();
    mi_sim_advance(big, 3600 * 1000);
    printf("simulate 1 h, 8 CPUs, %s: %5.2f s  (%d processes, %lld transactions; target <= 2 s)\n",
           watched ? "measured" : "idle MI", (now_ns() - t0) / 1e9, mi_host_proc_count(big),
           (long long)mi_sim_transactions(big));
    mi_system_free(big);
  }
  /* the host source: one full /proc refresh with at least 500 processes (sleeping children
   * fill up a quiet machine), against `ps -eo pid,comm,utime,stime,maj_flt` reading the same */
  static pid_t kids[600];
  int nkids = 0, have = 0;
  {
    mi_system *probe = mi_linux_new(NULL, 0);
    have = probe ? mi_host_proc_count(probe) : 0;
    mi_system_free(probe);
  }
  while (have + nkids < 500 && nkids < 600) {
    pid_t k = fork();
    if (k == 0) { pause(); _exit(0); }
    if (k < 0) break;
    kids[nkids++] = k;
  }
  mi_system *hs = mi_linux_new(NULL, 0);
  if (hs) {
    mi_session *h = mi_session_new(hs);
    mi_session_set_priv(h, 1);
    mi_globinstall(h, &st, 666);
    mi_accesson(h, &st, 666);
    int32_t hp[] = {25047, 25167, 25168, 25169, 25170, 0}, hst[5], hm = 1;
    mi_procon(h, &st, hp, hst, &hm, NULL, 0);   /* someone is watching every process */
    const int R = 50;
    int seen = 0;
    t0 = now_ns();
    for (int i = 0; i < R; i++) seen = mi_linux_refresh(hs);
    double refresh = (now_ns() - t0) / R / 1e6;
    t0 = now_ns();
    for (int i = 0; i < 10; i++)
      if (system("ps -eo pid,comm,utime,stime,maj_flt > /dev/null") != 0) break;
    double psms = (now_ns() - t0) / 10 / 1e6;
    printf("host refresh:                %6.2f ms  (%d processes; target <= 10 ms for 500)  ps %6.2f ms  ratio %.2f\n",
           refresh, seen, psms, refresh / psms);
    mi_system_free(hs);
  }
  for (int i = 0; i < nkids; i++) kill(kids[i], SIGTERM);
  for (int i = 0; i < nkids; i++) waitpid(kids[i], NULL, 0);
  free(pbuf);
  mi_system_free(sys);
  bench_record();
  return 0;
}
