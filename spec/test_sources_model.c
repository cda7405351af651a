/* test_sources_model.c — one option model (#28.2): each source describes its options once, in
 * its ops table, and the programs read them from the registry. The example source "fixed" below
 * is added the way core/README.md's "To add a source" says, and nothing else is edited for it:
 * its code and options table (here; a built-in's would be core/sources/fixed.c), its
 * registration (here mi_source_register; a built-in's one line in core/sources/sources.c, plus
 * its object in the Makefile). The registry's readers — mi_source_choose (what the Lua binding
 * opens with), examples/mish_env.h, and the listings mish's options and --help are made from —
 * take it with no change. Included by test_core.c (its CHECK/EQ counters). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"   /* the examples' pause and clock: not used here */
#include "../examples/mish_env.h"
#pragma GCC diagnostic pop

/* ---- the example source: fixed figures for tests ---- */
static int fixed_busy = -1;   /* what the last open was told (its state, for the checks) */

/* Opens "fixed[:BUSY]": a machine of a->cpus processors (default 1) each BUSY percent busy. */
static int fixed_open(mi_system *sys, const char *arg, const mi_source_args *a, char *err, size_t errlen) {
  fixed_busy = arg ? atoi(arg) : 50;
  if (fixed_busy < 0 || fixed_busy > 100) { snprintf(err, errlen, "fixed: bad busy share '%s'", arg); return -1; }
  mi_host_set_cpus(sys, a->cpus ? a->cpus : 1);
  return mi_source_attach(sys, mi_source_find("fixed"), NULL);
}

/* What a program may choose of it: its busy share (the spec's ARG) and its processors (an
 * option of one name with sim's: it applies to both kinds of system). */
static const mi_source_option fixed_options[] = {
  {"busy", MI_SOPT_INT, MI_SOPT_TO_ARG, 0, 100, "PCT", "the busy share in percent"},
  {"cpus", MI_SOPT_INT, MI_SOPT_TO_CPUS, 1, 4, "N", "the number of CPUs"},
  {NULL, 0, 0, 0, 0, NULL, NULL},
};
static const mi_source_ops fixed_ops = {"fixed", "fixed figures for tests (fixed:BUSY)", fixed_open, NULL, NULL, fixed_options};

/* Runs mish_env_default in a child with the environment env ("NAME=VALUE" pairs, NULL-ended):
 * its exit status, 0 when the default it made measures the fixed source with want_cpus CPUs
 * and busy share want_busy (3 if it measures something else). */
static int env_child(const char *const env[], int want_cpus, int want_busy) {
  fflush(NULL);
  pid_t c = fork();
  if (c == 0) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) { dup2(fd, 2); close(fd); }
    unsetenv("MISH_SYSTEM"); unsetenv("MISH_WORKLOAD"); unsetenv("MISH_CPUS"); unsetenv("MISH_PROC"); unsetenv("MISH_REPLAY");
    for (int k = 0; env[k]; k++) putenv((char *)env[k]);
    int cpus = mish_env_default("test");
    const char *src = mi_system_source_name(mi_default_system());
    _exit(cpus == want_cpus && strcmp(src, "fixed") == 0 && fixed_busy == want_busy ? 0 : 3);
  }
  int st = 0;
  if (c < 0 || waitpid(c, &st, 0) != c) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_i28_sources_model(void) {
  char err[256];
  mi_source_choice c;
  EQ(mi_source_register(&fixed_ops), 0, "#28.2 the example source registers (its one line)");
  const mi_source_ops *sim = mi_source_find("sim"), *fixed = mi_source_find("fixed");
  /* the tables: each source's options, once */
  CHECK(mi_source_option_at(sim, 0) && strcmp(mi_source_option_at(sim, 0)->name, "workload") == 0 &&
        strcmp(mi_source_option_at(sim, 1)->name, "cpus") == 0 && !mi_source_option_at(sim, 2) && !mi_source_option_at(sim, -1),
        "#28.2 sim's options: workload, cpus, and nothing past the end");
  CHECK(mi_source_option_find(mi_source_find("host"), "proc") && mi_source_option_find(mi_source_find("replay"), "speed") &&
        !mi_source_option_find(mi_source_find("host"), "cpus"), "#28.2 host has proc, replay speed, host no cpus");
  int i = 0;
  CHECK(mi_source_option_owner("busy", &i) == fixed && mi_source_at(i) == fixed, "#28.2 busy applies to the fixed source");
  i = 0;
  const mi_source_ops *first = mi_source_option_owner("cpus", &i);
  i++;
  const mi_source_ops *second = mi_source_option_owner("cpus", &i);
  CHECK(first == sim && second == fixed && !mi_source_option_owner("nosuch", NULL),
        "#28.2 cpus applies to sim and fixed (the kinds an option applies to), nosuch to none");
  /* the values, by their types */
  EQ(mi_source_option_check(mi_source_option_find(fixed, "busy"), "100", 0, err, sizeof err), 0, "#28.2 busy 100 is in range");
  CHECK(mi_source_option_check(mi_source_option_find(fixed, "busy"), "101", 0, err, sizeof err) == -1 &&
        strcmp(err, "the busy share in percent must be a whole number 0-100") == 0, "#28.2 busy 101 is refused, with the range");
  CHECK(mi_source_option_check(mi_source_option_find(sim, "cpus"), "2x", 0, err, sizeof err) == -1 &&
        strcmp(err, "the number of CPUs must be a whole number 1-8") == 0, "#28.2 cpus 2x is no whole number");
  CHECK(mi_source_option_check(mi_source_option_find(sim, "workload"), "batch", 0, err, sizeof err) == 0 &&
        mi_source_option_check(mi_source_option_find(sim, "workload"), "spec/test_core.c", 0, err, sizeof err) == -1 &&
        mi_source_option_check(mi_source_option_find(sim, "workload"), "spec/test_core.c", 1, err, sizeof err) == 0,
        "#28.2 a workload is built in, or a readable file where the program reads files");
  CHECK(mi_source_option_check(mi_source_option_find(mi_source_find("host"), "proc"), "/nonexistent/proc", 0, err, sizeof err) == -1 &&
        strstr(err, "/nonexistent/proc"), "#28.2 a proc root must be readable");
  /* mi_source_choose: options folded into a spec and arguments, conflicts named */
  const char *n1[] = {"busy", "cpus"}, *v1[] = {"40", "2"};
  CHECK(mi_source_choose(&c, "fixed", n1, v1, 2, err, sizeof err) == 0 && strcmp(c.spec, "fixed:40") == 0 && c.args.cpus == 2 &&
        c.ops == fixed, "#28.2 fixed with busy 40 and 2 CPUs is fixed:40 with cpus 2");
  mi_system *sys = mi_system_open(c.spec, NULL, &c.args, err, sizeof err);
  CHECK(sys && strcmp(mi_system_source_name(sys), "fixed") == 0 && mi_host_cpus(sys) == 2 && fixed_busy == 40,
        "#28.2 ... and opens so");
  mi_system_free(sys);
  CHECK(mi_source_choose(&c, "sim", n1, v1, 1, err, sizeof err) == -1 && strcmp(err, "'busy' goes with fixed, not sim") == 0,
        "#28.2 busy with sim is refused, naming the system it goes with");
  const char *n2[] = {"workload"}, *v2[] = {"batch"};
  CHECK(mi_source_choose(&c, "fixed", n2, v2, 1, err, sizeof err) == -1 && strcmp(err, "'workload' goes with sim, not fixed") == 0,
        "#28.2 a workload with fixed is refused");
  CHECK(mi_source_choose(&c, "fixed:10", n1, v1, 1, err, sizeof err) == -1 && strstr(err, "'busy' is given twice"),
        "#28.2 an ARG option with a spec that has its ARG is given twice");
  CHECK(mi_source_choose(&c, "sim", n2, v2, 1, err, sizeof err) == 0 && strcmp(c.spec, "sim:batch") == 0,
        "#28.2 sim with workload batch is sim:batch");
  const char *v3[] = {NULL};
  CHECK(mi_source_choose(&c, "sim", n2, v3, 1, err, sizeof err) == 0 && strcmp(c.spec, "sim") == 0 &&
        mi_source_choose(&c, "host", n2, v3, 1, err, sizeof err) == -1,
        "#28.2 a workload the program passes itself (NULL) is checked for its source only");
  const char *n4[] = {"from", "speed"}, *v4[] = {"+1m", "max"}, *v5[] = {"1,2", "max"};
  CHECK(mi_source_choose(&c, "replay:x.mir", n4, v4, 2, err, sizeof err) == 0 && c.args.window == c.window &&
        strcmp(c.window, "from=+1m,speed=max") == 0 && strcmp(c.spec, "replay:x.mir") == 0, "#28.2 replay's options make its window");
  CHECK(mi_source_choose(&c, "replay:x.mir", n4, v5, 2, err, sizeof err) == -1 && strcmp(err, "bad from '1,2'") == 0,
        "#28.2 a window value with the window's separator is refused");
  CHECK(mi_source_choose(&c, "vax", NULL, NULL, 0, err, sizeof err) == -1 && strstr(err, "unknown system 'vax' (sim, host, replay"),
        "#28.2 an unknown system is named with the known ones");
  /* examples/mish_env.h reads $MISH_<OPTION> of every source: the example's too, unchanged */
  EQ(env_child((const char *const[]){"MISH_SYSTEM=fixed", "MISH_BUSY=25", "MISH_CPUS=3", NULL}, 3, 25), 0,
     "#28.2 mish_env.h opens MISH_SYSTEM=fixed with MISH_BUSY and MISH_CPUS");
  EQ(env_child((const char *const[]){"MISH_SYSTEM=fixed", "MISH_CPUS=5", NULL}, 5, 50), 2,
     "#28.2 ... refuses MISH_CPUS out of fixed's range (exit 2)");
  EQ(env_child((const char *const[]){"MISH_BUSY=25", NULL}, 1, 25), 2, "#28.2 ... refuses MISH_BUSY with the default sim (exit 2)");
  EQ(env_child((const char *const[]){"MISH_SYSTEM=fixed", "MISH_WORKLOAD=batch", NULL}, 1, 50), 2,
     "#28.2 ... refuses sim's MISH_WORKLOAD with fixed (exit 2)");
}
