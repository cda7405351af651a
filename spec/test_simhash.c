/* test_simhash.c — the simulator's counters, every value of every domain, hashed (#31): a
 * speed-up of the model's writers must leave each counter as it was, bit for bit. Included by
 * test_core.c (its CHECK counters).
 *
 * The hashes below were recorded at main c541cd5 (before #31's writer work on the watched
 * hour). A change that changes the model ON PURPOSE (a new counter, a new draw) re-records them:
 * run `SIMHASH_PRINT=1 ./spec/test_core | grep simhash` and copy the printed values into
 * simhash_want[], saying in the commit why the model changed. A change meant to be faster
 * only must not need that. */

/* FNV-1a over the bytes of v into *h. */
static void sh_mix(uint64_t *h, uint64_t v) {
  for (int b = 0; b < 8; b++) { *h ^= (v >> (8 * b)) & 0xff; *h *= 0x100000001b3ull; }
}

/* The words of the counted counters of a domain, ascending (for each counter's span). */
static int sh_word_cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* A hash of every counted cell of every domain of sys that is not zero, as (domain, item,
 * entity, cell within the counter, value): the store's layout (where a counter's word is,
 * spare room in a row) does not enter it, only what a GET could see. Also the transactions and
 * the live processes. */
static uint64_t simhash_all(mi_system *sys) {
  const mi_host_view *v = (const mi_host_view *)(const void *)sys;
  uint64_t h = 0xcbf29ce484222325ull;
  for (int d = 0; d < MI_DOM_COUNT; d++) {
    const mi_host_lane *ln = &v->lane[d];
    int n = mi_domain_counters(d), nw = 0;
    if (!ln->cells || n <= 0) { sh_mix(&h, 0xd0d0 + d); continue; }
    int32_t *words = malloc(sizeof *words * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
      int32_t o = v->off[mi_host_counter(mi_domain_item(d, i)->item).id];
      if (o >= 0) words[nw++] = o;
    }
    qsort(words, (size_t)nw, sizeof *words, sh_word_cmp);
    const int64_t *row0 = (const int64_t *)(const void *)v->lane + ln->cells;
    for (int i = 0; i < n; i++) {
      int32_t item = mi_domain_item(d, i)->item, o = v->off[mi_host_counter(item).id];
      if (o < 0) continue;
      int32_t end = ln->stride;   /* the counter's cells: up to the next counter's word */
      for (int j = 0; j < nw; j++) if (words[j] > o) { end = words[j]; break; }
      for (int e = 0; e < ln->nent; e++)
        for (int32_t k = 0; k < end - o; k++) {
          int64_t x = row0[(size_t)e * (size_t)ln->stride + (size_t)(o + k)];
          if (x) { sh_mix(&h, (uint64_t)d); sh_mix(&h, (uint64_t)item); sh_mix(&h, (uint64_t)e); sh_mix(&h, (uint64_t)k); sh_mix(&h, (uint64_t)x); }
        }
    }
    sh_mix(&h, (uint64_t)nw);
    free(words);
  }
  sh_mix(&h, (uint64_t)mi_sim_transactions(sys));
  sh_mix(&h, (uint64_t)mi_host_proc_count(sys));
  return h;
}

/* The runs: a workload, how much is watched (2 everything: every global, process and device
 * item; 1 the bench's measured hour: every global item and its 10 process items; 0 nothing),
 * simulated seconds. */
static const struct simhash_run {
  const char *what, *wl;
  int cpus, sessions, jobs, disks, memory_pages, watch, secs;
} simhash_runs[] = {
  {"bench's measured hour", "oltp", 8, 995, 0, 8, 0, 1, 62},
  {"bench's machine, everything", "oltp", 8, 995, 0, 8, 0, 2, 32},
  {"image shop, everything", "image", 0, 0, -1, 0, 0, 2, 122},
  {"sql shop, everything", "sql", 0, 0, -1, 0, 0, 2, 122},
  {"ipc, everything", "ipc", 0, 0, -1, 0, 0, 2, 122},
  {"memory pressure, 1 CPU, everything", "memory-pressure", 1, 0, -1, 0, 0, 2, 122},
  {"batch, measured", "batch", 0, 0, -1, 0, 0, 1, 122},
  {"oltp, nothing watched", "oltp", 0, 0, -1, 0, 0, 0, 122},
};
/* The hashes at main c541cd5, one per run. */
static const uint64_t simhash_want[] = {
  0xcf96c2f53189b14eull, 0x0f74484834ab7a76ull, 0xf323af211a6353f8ull, 0x13bef8677c3bc540ull,
  0x4f4443e7d1d75ac1ull, 0x5854f653500f1ca2ull, 0x57669db380a1db40ull, 0xb2d908f989991c64ull,
};

/* Runs r and returns its hash. */
static uint64_t simhash_run(const struct simhash_run *r) {
  mi_workload w = *mi_workload_builtin(r->wl);
  if (r->cpus) w.cpus = r->cpus;
  if (r->sessions) w.sessions = r->sessions;
  if (r->jobs >= 0) w.jobs = r->jobs;
  if (r->disks) { w.disks = r->disks; w.terminals = 20; }
  if (r->memory_pages) w.memory_pages = r->memory_pages;
  mi_system *sys = mi_sim_new(&w, 0);
  if (!sys) return 0;
  mi_session *s = NULL;
  status_type st;
  if (r->watch) {
    s = mi_session_new(sys);
    mi_session_set_priv(s, 1);
    mi_globinstall(s, &st, 666);
    mi_accesson(s, &st, 666);
    static int32_t all[1100], stats[1100];
    int32_t m = 1, k = 0;
    for (int i = 0; i < mi_domain_counters(MI_DOM_GLOBAL) && k < 1099; i++) all[k++] = mi_domain_item(MI_DOM_GLOBAL, i)->item;
    all[k] = 0;
    mi_globon(s, &st, all, stats, &m, 0);
    if (r->watch == 1) {
      int32_t pit[] = {20001, 25047, 25048, 25049, 25060, 25066, 25167, 25168, 25172, 25195, 0};
      mi_procon(s, &st, pit, stats, &m, NULL, 0);
    } else {
      k = 0;
      for (int i = 0; i < mi_domain_counters(MI_DOM_PROCESS) && k < 1099; i++) all[k++] = mi_domain_item(MI_DOM_PROCESS, i)->item;
      all[k] = 0;
      mi_procon(s, &st, all, stats, &m, NULL, 0);
      k = 0;
      for (int i = 0; i < mi_domain_counters(MI_DOM_IO) && k < 1099; i++) all[k++] = mi_domain_item(MI_DOM_IO, i)->item;
      all[k] = 0;
      for (int32_t type = 1; type <= 10; type++) { int32_t ldev = -type; mi_ioon(s, &st, all, stats, &m, &ldev, 0); }
    }
  }
  mi_sim_advance(sys, 2000);
  mi_sim_advance(sys, (int64_t)r->secs * 1000 - 2000);
  uint64_t h = simhash_all(sys);
  if (s) mi_session_free(s);
  mi_system_free(sys);
  return h;
}

/* #31: every run's counters hash as they did at main before the watched hour's writer work. */
static void test_sim_counters_unchanged(void) {
  int n = (int)(sizeof simhash_runs / sizeof simhash_runs[0]);
  _Static_assert(sizeof simhash_want / sizeof simhash_want[0] == sizeof simhash_runs / sizeof simhash_runs[0], "a hash per run");
  for (int i = 0; i < n; i++) {
    uint64_t h = simhash_run(&simhash_runs[i]);
    if (getenv("SIMHASH_PRINT")) printf("simhash %d %s: 0x%016llxull\n", i, simhash_runs[i].what, (unsigned long long)h);
    char what[160];
    snprintf(what, sizeof what, "#31 the simulator's counters as before (%s)", simhash_runs[i].what);
    CHECK(h == simhash_want[i], what);
  }
}
