/* test_system.c — systems: long paths, the host memory total, the health publisher, a dead waiter,
 * item descriptions. Part of spec/test_core.c (#included there: one program, its helpers and
 * statics shared; included in order of definition). */

/* #11 (fuzz): a registry or share path too long is refused, never cut to another file's name. */
static void test_long_paths(void) {
  char path[5000];
  size_t n = (size_t)snprintf(path, sizeof path, "/tmp/mish-long-%d", (int)getpid());
  mkdir(path, 0755);
  for (int k = 0; k < 3; k++) { path[n] = '/'; memset(path + n + 1, 'a' + k, 180); n += 181; path[n] = 0; mkdir(path, 0755); }
  snprintf(path + n, sizeof path - n, "/registry");
  mi_system *sys = mi_system_new(&(mi_system_options){.registry = path});
  CHECK(sys != NULL, "a 600-byte registry path is accepted whole (it was cut at 511 bytes)");
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  status_type st;
  mi_globinstall(s, &st, 4711);
  EQ(st.all, 0, "AIFGLOBINSTALL writes the registry at its long path");
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "the registry file is at the path given, not at a cut one");
  if (f) fclose(f);
  mi_system_free(sys);
  unlink(path);
  char huge[4200];
  memset(huge, 'x', sizeof huge - 1); huge[0] = '/'; huge[sizeof huge - 1] = 0;
  errno = 0;
  CHECK(mi_system_new(&(mi_system_options){.registry = huge}) == NULL && errno == ENAMETOOLONG,
        "a registry path of 4096 bytes or more is refused with ENAMETOOLONG");
  CHECK(mi_system_new(&(mi_system_options){.share = huge}) == NULL, "so is a share path as long");
  snprintf(path + n, sizeof path - n, "/registry.lock");   /* the writer lock beside it (never removed by the core) */
  unlink(path);
  for (int k = 3; k > 0; k--) { path[n] = 0; rmdir(path); n -= 181; }
  path[n] = 0; rmdir(path);
}

/* The memory size 3039 is MemTotal in 2 KB pages, held at 2^31-1 when more would not fit the
 * 32-bit item, never wrapped (fuzz input proc/memtotal-over-4tb-held-at-int32-max). */
static void test_host_memtotal_holds(void) {
  char root[64];
  mi_session *s;
  mi_system *sys = host_fixture_sys(root, 100, 1, &s);
  EQ(mi_host_config(sys, 3039), 4000000, "3039 is MemTotal / 2");
  put_file(root, "meminfo", "MemTotal: 14073749674393812 kB\nMemFree: 2000000 kB\n");
  mi_linux_refresh(sys);
  EQ(mi_host_config(sys, 3039), INT32_MAX, "a MemTotal over 4 TB holds 3039 at 2^31-1, not wrapped");
  put_file(root, "meminfo", "MemTotal: 4294967296 kB\nMemFree: 2000000 kB\n");
  mi_linux_refresh(sys);
  EQ(mi_host_config(sys, 3039), INT32_MAX, "exactly 2^31 pages holds at 2^31-1");
  mi_session_free(s);
  mi_system_free(sys);
  rm_tree(root);
}

/* #12: mi_linux_health_get while mi_system_publish_every's thread refreshes the host: the copy is
 * taken inside a write section, so it is one refresh's figures (ThreadSanitizer: make test TSAN=1) */
static void test_health_publisher(void) {
  char err[256];
  mi_source_args a = {.age_ms = -1};
  mi_system *sys = mi_system_open("host", NULL, &a, err, sizeof err);
  CHECK(sys != NULL, "#12 a host system opens for the health/publisher check");
  if (!sys) return;
  EQ(mi_system_publish_every(sys, 1), 0, "#12 the host system publishes from a thread every ms");
  int64_t last = 0;
  int monotone = 1, sane = 1;
  double until = mono_s() + 0.3;
  while (mono_s() < until) {
    mi_linux_health h;
    if (mi_linux_health_get(sys, &h) != 0) { sane = 0; break; }
    if (h.refreshes < last) monotone = 0;
    if (h.incomplete > h.refreshes) sane = 0;
    last = h.refreshes;
  }
  mi_system_publish_every(sys, 0);
  CHECK(monotone && sane, "#12 health read while a publisher thread refreshes: counts only grow, incomplete <= refreshes");
  CHECK(last > 0, "#12 the publisher thread refreshed the host");
  mi_system_free(sys);
}

/* #12: a waiter for the write lock that died (a killed reader process) is not waited for forever:
 * the next writer sees it gone and clears the flag */
static void test_dead_waiter(void) {
  mi_session *s0;
  mi_system *sys = new_sys(&s0, NULL);
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, NULL, 0);
  __atomic_store_n(&sys->seg->h.waiting, (uint32_t)child, __ATOMIC_RELAXED);
  mi_host_begin(sys);
  mi_host_publish(sys);
  EQ(__atomic_load_n(&sys->seg->h.waiting, __ATOMIC_RELAXED), 0, "#12 a dead lock waiter is cleared by the next writer");
  pid_t live = fork();
  if (live == 0) { pause(); _exit(0); }
  __atomic_store_n(&sys->seg->h.waiting, (uint32_t)live, __ATOMIC_RELAXED);
  mi_host_begin(sys);
  mi_host_publish(sys);
  EQ(__atomic_load_n(&sys->seg->h.waiting, __ATOMIC_RELAXED), (uint32_t)live, "#12 a live waiter's flag stays for it to clear");
  kill(live, SIGKILL);
  waitpid(live, NULL, 0);
  __atomic_store_n(&sys->seg->h.waiting, 0, __ATOMIC_RELAXED);
  mi_system_free(sys);
}

/* mi_host_wants reads the user records below max_users only: the last user a full system can
 * take (the highest slot) is still seen, and stops being seen at its OFF. */
static void test_wants_sees_the_last_user(void) {
  mi_system_options o = {.max_users = 3};
  mi_session *a;
  mi_system *sys = new_sys(&a, &o);
  mi_session *b = mi_session_new(sys), *c = mi_session_new(sys);
  status_type st;
  int32_t g[] = {21184, 0}, p[] = {25047, 0}, stats[2], map = 1;
  mi_session_set_priv(b, 1); mi_session_set_priv(c, 1);
  mi_accesson(b, &st, 666); mi_accesson(c, &st, 666);
  mi_globon(a, &st, g, stats, &map, 0);
  mi_globon(b, &st, g, stats, &map, 0);
  EQ(mi_host_wants(sys, MI_DOM_PROCESS), 0, "nobody has processes on: not wanted");
  mi_procon(c, &st, p, stats, &map, NULL, 0);
  EQ(st.all, 0, "the third user of three turns processes on");
  EQ(c->slot, 2, "it holds the highest record a 3-user system takes");
  EQ(mi_host_wants(sys, MI_DOM_PROCESS), 1, "the process domain is wanted by the user in the last slot");
  mi_procoff(c, &st, NULL, 0);
  EQ(mi_host_wants(sys, MI_DOM_PROCESS), 0, "and no more after its OFF");
  mi_session_free(c); mi_session_free(b);
  mi_system_free(sys);
}

/* #16.7: every catalog item and configuration item carries a one-line description. */
static void test_i16_descriptions(void) {
  int empty = 0;
  for (int i = 0; i < mi_item_count(); i++) {
    const mi_item_info *it = mi_item_at(i);
    if (!it->description || !it->description[0] || strcmp(it->description, it->name) == 0) empty++;
  }
  EQ(empty, 0, "#16.7 every catalog item has a description other than its name");
  CHECK(mi_item_description(21177) && strstr(mi_item_description(21177), "idle"), "#16.7 21177 says idle");
  CHECK(mi_item_description(21500) == NULL, "#16.7 no description for an unknown item");
  CHECK(mi_config_description(3001) && mi_config_description(3001)[0], "#16.7 3001 has a description");
  CHECK(mi_config_description(3047) == NULL, "#16.7 no description past 3046");
}
