/* test_core.c — C-level tests of the core: every decision of core/README.md and
 * every status the core can produce, through the manual's API and the writer API. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <errno.h>
#include <ftw.h>
#include "mi_linux.h"
#include "mi_testhook.h"
#include <math.h>
#include <time.h>
#include <sys/wait.h>
#include "mi_sim.h"
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include "mi.h"
#include "mi_host.h"
#include "mi_internal.h"
#include "mi_query.h"
#include "mi_select.h"
#include "mi_source.h"
#include "mi_userdef.h"
#include "mi_export.h"

static int passed, failed, skipped;
/* A check that cannot run here: said once, counted as skipped (never as passed). */
#define SKIP(why) do { skipped++; printf("# skip %s\n", why); } while (0)
#define CHECK(cond, what) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, what); } } while (0)
#define EQ(a, b, what) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ == b_) passed++; else { failed++; \
  printf("FAIL %s:%d: %s: got %lld, want %lld\n", __FILE__, __LINE__, what, a_, b_); } } while (0)
#define INFO(st) mi_status_info(st)

static char regpath[256];

/* A fresh system with a registry holding user 666 and a privileged, authorized caller. */
static mi_system *new_sys(mi_session **s, const mi_system_options *o) {
  mi_system_options opt = o ? *o : (mi_system_options){0};
  opt.registry = regpath;
  opt.boot_ticks = (int64_t)1700000000 * 1000 * 8000;
  mi_system *sys = mi_system_new(&opt);
  *s = mi_session_new(sys);
  mi_session_set_priv(*s, 1);
  status_type st;
  mi_globinstall(*s, &st, 666);
  mi_accesson(*s, &st, 666);
  return sys;
}

/* Attaches read-write to the store at path with the tests' registry (a store's own path is never
 * followed): these tests turn on items nobody collects, install counters and PUT (#27.8: a plain
 * attach is read-only; spec/test_attach_ro.c tests that). */
static mi_system *attach_t(const char *path, int *err) {
  return mi_system_attach_with(path, &(mi_attach_options){.registry = regpath, .write = 1}, err);
}

/* The tests, by room and behaviour (each file's opening comment says what it holds). */
#include "test_aif.c"

#include "test_host.c"

#include "test_hardening.c"

#include "test_threads.c"

#include "test_system.c"

#include "test_udef.c"

#include "test_host_reads.c"

#include "test_export.c"

#include "test_select.c"

#include "test_export_udef.c"

#include "test_record.c"   /* recordings (#13) */
#include "test_store.c"    /* a shared store under attack (#27) */
#include "test_attach_ro.c"   /* readers attach read-only (#27.8) */
#include "test_rowhandle.c"   /* batch writers' row handles (#31.3) */
#include "test_sources_model.c"   /* one option model: the sources' option tables (#28.2) */
#include "test_onroom.c"   /* an ON makes room for its whole list at once (#27 fuzzing) */
#include "test_growrows.c"   /* a regrowth copies the process rows below proc_hi only (#27 fuzzing) */
#include "test_parkrows.c"   /* a parked process counter restarts the rows below proc_hi only (#27 fuzzing) */
#include "test_exportclash.c"   /* exporter name clashes across sample suffixes (#27 fuzzing) */
#include "test_host32.c"     /* the host's CPUs past 8, container limits, short-lived tasks (#32) */
#include "test_snapring.c"   /* the published copy as a ring; attached readers read it first (#31.2) */

#include "test_changed.c"

#include "test_host_identity.c"

#include "test_sim_store.c"
#include "test_export_items.c"   /* mi_export_options.items */
#include "test_export_order.c"   /* an item list's order: the catalog's */
#include "test_raw.c"   /* door 2's raw mode: the recorder's reads (#28.3) */
#include "test_simrooms.c"   /* a room's event draws skipped while none of its rows counts (#31) */
#include "test_simlevels.c"   /* storage levels skipped while their domain counts nothing (#27 fuzzing) */

#include "test_simcache.c"

#include "test_watch.c"   /* a watching process query; the exporter's unchanged scrape (#32) */
#include "test_prcsr64.c"   /* MIPRCSRGET past 8 processors: warning 32701 (#32) */
#include "test_hold.c"   /* one reading of several domains: an exporter's scrape (#28/#31) */
#include "test_extremes.c"   /* the read path at the ends of int64 (#27 attach campaign) */
#include "test_recspan.c"   /* span marks: an open reads the last index's, not every frame (p39) */
#include "test_simhash.c"   /* the simulator's counters, all domains, as recorded (#31) */


int main(void) {
  snprintf(regpath, sizeof regpath, "/tmp/mish-test-registry-%d", (int)getpid());
  unlink(regpath);
  test_access();
  test_catalog();
  test_global();
  test_mapping_users();
  test_counter_limit();
  test_process();
  test_gather_plain();
  test_process_table_full();
  test_io();
  test_processor();
  test_config();
  test_time();
  test_get_cache();
  test_writer();
  test_h17_proc_lowest_free_slot();
  test_h17_sim_put_rules_next_step();
  test_store_rows_room();
  test_i14_changed_model();
  test_i14_changed_time_varying();
  test_i14_changed_attached_writer();
  test_i14_host_identity();
  test_i14_host_identity_bare();
  test_i14_host_shells_fail();
  test_export_udef_arrays_qbusy();
  test_export_source_kinds();
  test_export_udef_late();
  test_h17_sim_wakeups_bit_identical();
  test_h17_sim_layout_moves_bit_identical();
  test_i16_descriptions();
  test_udef_install_and_get();
  test_udef_errors();
  test_udef_shared();
  test_udef_rebind();
  test_udef_dead_and_gone();
  test_h17_host_reads_what_is_on();
  test_h32_sys_files_read_for_their_items();
  test_host_stat_cpu_listed_twice();
  test_h17_writer_handle();
  test_i31_row_handle();
  test_i28_raw_read();
  test_export_items();
  test_export_items_order();
  test_on_room_once();
  test_grow_rows_above_hi();
  test_park_rows_above_hi();
  test_park_io_rows_above_highest();
  test_export_clash_suffix();
  test_sim_storage_levels_one_domain();
  test_sim_rooms_skipped_uncounted();
  test_sim_counters_unchanged();
  test_h32_watch_model(); test_h32_export_unchanged();
  test_i14_descriptors();
  test_i14_proconsel();
  test_i14_readactive_list();
  test_i14_readactive_modes();
  test_i30_readactive_context();
  test_export();
  test_export_udef_help();
  test_query_wide();
  test_record_replay();
  test_record_tears();
  test_record_seek();
  test_record_births_deaths();
  test_record_udef();
  test_record_v1_fixture();
  test_record_udef_damage();
  test_record_udef_follow();
  test_record_exec_identity();
  test_record_torn_header();
  test_record_masks();
  test_record_input_checks();
  test_record_clock_back();
  test_record_span_marks();
  test_host_memtotal_holds();
  test_query_enable_set();
  test_query_api();
  test_doors();
  test_i28_sources_model();
  test_status_names();
  test_host_emfile();
  test_host_read_errors();
  test_host_table_full();
  test_host_odd_trees();
  test_h11_workload_check();
  test_h11_registry();
  test_h11_aiftime();
  test_h11_glob_cache_failed_get();
  test_h11_get_bounds();
  test_h11_writer_kinds();
  test_h11_glob_cache_session_set();
  test_h11_foreign_item_slots();
  test_h11_processor_refs();
  test_h11_ldev_removed();
  test_h11_pid_hash();
  test_h11_item_extremes();
  test_threads();
  test_health_publisher();
  test_dead_waiter();
  test_wants_sees_the_last_user();
  test_processes();
  test_store_safety();
  test_snap_ring();
  test_attach_ro();
  test_host32();
  test_prcsr64();
  test_hold_one_reading();
  test_extremes();
  mi_default_configure(NULL, &(mi_system_options){.registry = regpath});   /* the program chooses */
  test_long_paths();
  test_upper_api();
  test_sim_resolve_cache();
  unlink(regpath);
  char lock[600];
  snprintf(lock, sizeof lock, "%s.lock", regpath);
  unlink(lock);
  if (skipped) {
    printf("C core: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  } else {
    printf("C core: %d passed, %d failed\n", passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
  }
  return failed != 0;
}
