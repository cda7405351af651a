/* testmiaif2.c — Appendix H's second example in C: enable disk I/O counters for every
 * disk (device-type selector -2), then each interval print total disk reads and writes,
 * their rates, and reads per object class of the small map.
 * Record per LDEV: ldev (20020), disk reads (23009), disk writes (23010), reads by
 * object class (23050, 33 counters with the small map).
 * Usage: testmiaif2 [interval-seconds] [samples]   (defaults 1 and 40)
 * The original homes the cursor and clears the screen before each report; we do that
 * only when standard output is a terminal, so a log or a pipe reads cleanly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mi.h"
#include "mish_env.h"   /* MISH_SYSTEM, MISH_WORKLOAD, MISH_CPUS, MISH_PROC, MI_AIFKUF */
#include "mi_catalog.h"   /* object-class names */

#define USER_ID 666
#define SMALL_MAP 1
#define SMALL_CLASSES 33
#define MAX_LDEVS 65            /* the original's buffer: records 0..64 */
#define ALL_DISKS (-2)          /* LDEV selector: every disk drive */

/* One LDEV's record as MIIOGET lays it out (4-byte fields in item order). */
typedef struct ldev_counters {
  int32_t ldev;
  int32_t read;
  int32_t write;
  int32_t read_obj[SMALL_CLASSES];
} ldev_counters;

/* Prints a status the way the original does. */
static void write_status(const char *msg, status_type st) {
  printf("%s Subsystem: %d Info: %d (%s)\n", msg, st.subsys, st.info, mi_status_message(st.info));
}

/* Milliseconds of the interval timer (the original's TIMER): monotonic, or a replay's recorded time. */
static int64_t timer_ms(void) { return mish_env_clock_ms(); }

/* Waits `seconds` (the original's PAUSE intrinsic); on a replay it moves the recording on (mish_env.h). */
static void pause_for(double seconds) { mish_env_pause(seconds); }

/* Counter difference with the manual's rollover rule (one wrap of the 32-bit view). */
static int32_t delta(int32_t now, int32_t before) { return (int32_t)((uint32_t)now - (uint32_t)before); }

int main(int argc, char **argv) {
  double wait = argc > 1 ? atof(argv[1]) : 1.0;
  int samples = argc > 2 ? atoi(argv[2]) : 40;
  if (wait <= 0 || samples < 1) { fprintf(stderr, "usage: testmiaif2 [interval-seconds] [samples]\n"); return 2; }
  status_type aif_status, mi_status;
  int32_t mapping = SMALL_MAP, ldev_s = ALL_DISKS, num_of_ldevs = 0;
  int32_t item_statuses[4];
  static ldev_counters item_data[MAX_LDEVS], old_item_data[MAX_LDEVS];
  int clear = isatty(1);

  mish_env_default("testmiaif2");   /* the system to measure, as the environment says */
  GETPRIVMODE();
  AIFGLOBINSTALL(&aif_status, USER_ID);   /* the INSTMI step, harmless when done before */
  AIFACCESSON(&aif_status, USER_ID);
  if (aif_status.all != 0) { write_status(" can't get the aif ", aif_status); return 50; }

  /* ON takes the counters only; GET names the LDEV pseudo-item first */
  int32_t on_items[] = {23009, 23010, 23050, 0};
  MIIOON(&aif_status, on_items, item_statuses, &mapping, &ldev_s, 0);
  if (aif_status.all != 0) { write_status(" can't get the aif ", aif_status); return 50; }
  int32_t item_nums[] = {20020, 23009, 23010, 23050, 0};

  MIIOGET(&mi_status, item_nums, old_item_data, item_statuses, sizeof old_item_data, mapping, &ldev_s,
          &num_of_ldevs, 0);
  if (mi_status.all != 0) { write_status(" error from getting mi data ", mi_status); return 95; }
  int64_t old_time = timer_ms();   /* after the GET: a replay's clock is the sample the GET read */

  for (int loop = 1; loop <= samples; loop++) {
    pause_for(wait);
    int64_t total_read = 0, total_write = 0, total_obj_read[SMALL_CLASSES] = {0};
    MIIOGET(&mi_status, item_nums, item_data, item_statuses, sizeof item_data, mapping, &ldev_s, &num_of_ldevs, 0);
    if (mi_status.all != 0) { write_status(" error from getting mi data ", mi_status); return 100; }
    int64_t current_time = timer_ms();
    for (int i = 0; i < num_of_ldevs; i++) {
      total_read += delta(item_data[i].read, old_item_data[i].read);
      total_write += delta(item_data[i].write, old_item_data[i].write);
      for (int c = 0; c < SMALL_CLASSES; c++)
        total_obj_read[c] += delta(item_data[i].read_obj[c], old_item_data[i].read_obj[c]);
      old_item_data[i] = item_data[i];
    }
    double rinterval = (double)(current_time - old_time) / 1000.0;
    if (rinterval <= 0) rinterval = 1e-3;   /* a paced replay may show no new sample: 0 reads, no division by 0 */
    old_time = current_time;
    if (clear) printf("\033[H\033[J");   /* home and clear */
    printf("disk read: %3lld write: %3lld read rate %.1f write rate %.1f\n", (long long)total_read,
           (long long)total_write, total_read / rinterval, total_write / rinterval);
    for (int c = 0; c < SMALL_CLASSES; c++) printf("%-34s %lld\n", mi_objcl_name(SMALL_MAP, c), (long long)total_obj_read[c]);
  }
  MIIOOFF(&mi_status, &ldev_s, 0);
  AIFACCESSOFF(&aif_status, USER_ID);
  GETUSERMODE();
  return 0;
}
