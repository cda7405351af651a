/* testmiaif1.c — Appendix H's first example in C: enable 23 global counters (the
 * CPU states, page-fault stops, memory clock and CM/NM switches), then print each
 * interval's CPU breakdown — paused, idle, ICS (what no counter accounts for), CS,
 * DS, ES — and the counters that moved. We add one column, `other` (memory manager,
 * dispatcher, AS and BS time), which the original leaves out, so each line adds to 100%.
 * The original ran on one processor; the MI's times add up over all processors, so on N CPUs
 * each figure is a share of N times the interval (the program says so in its first line).
 * Usage: testmiaif1 [interval-seconds] [samples]   (defaults 1 and 40) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "mi.h"
#include "mish_env.h"   /* MISH_SYSTEM, MISH_WORKLOAD, MISH_CPUS, MISH_PROC, MI_AIFKUF */

enum { T_PAUSED, T_IDLE, T_SYS_FETCH, T_SWAPIN, T_TOS_TRAP, T_DISP_ACT, T_AS, T_BS, T_CS, T_DS, T_ES, T_CM,
       C_NM_CODE_PF, C_NM_STACK_PF, C_NM_TRANS_PF, C_CM_CODE_PF, C_CM_STACK_PF, C_CM_TRANS_PF,
       C_PREEMPT, C_MEM_CLOCK, C_MEM_PRESSURE, C_SW2NM, C_SW2CM, NCOUNTERS };

static int32_t item_nums[NCOUNTERS + 1] = {
  21176, 21177, 21178, 21179, 21180, 21181, 21182, 21183, 21184, 21185, 21186, 21317,
  21187, 21188, 21189, 21191, 21192, 21193, 21233, 21306, 21307, 21313, 21314, 0};
static const char *const names[NCOUNTERS] = {
  "gmt_paused", "gmt_idle", "gmt_mem_mgr_sys_fetch", "gmt_mem_mgr_swapin", "gmt_mem_mgr_tos_trap",
  "gmt_disp_act", "gmt_as_process", "gmt_bs_process", "gmt_cs_process", "gmt_ds_process", "gmt_es_process",
  "gmt_cm_time", "gmc_stop_nm_code_page_fault", "gmc_stop_nm_stack_page_fault", "gmc_stop_nm_trans_page_fault",
  "gmc_stop_cm_code_page_fault", "gmc_stop_cm_stack_page_fault", "gmc_stop_cm_trans_page_fault",
  "gmc_stop_priority_preemption", "gmc_mem_clock_cycles", "gmc_mem_pressure", "gmc_sw2nm_count",
  "gmc_sw2cm_count"};

#define USER_ID 666
#define SMALL_MAP 1

/* Prints a status the way the original does. */
static void write_status(const char *msg, status_type st) {
  printf("%s Subsystem: %d Info: %d (%s)\n", msg, st.subsys, st.info, mi_status_message(st.info));
}

/* Milliseconds of the interval timer (the original's TIMER): monotonic, or a replay's recorded time. */
static int64_t timer_ms(void) { return mish_env_clock_ms(); }

/* Waits `seconds` (the original's PAUSE intrinsic); on a replay it moves the recording on (mish_env.h). */
static void pause_for(double seconds) { mish_env_pause(seconds); }

int main(int argc, char **argv) {
  double wait = argc > 1 ? atof(argv[1]) : 1.0;
  int samples = argc > 2 ? atoi(argv[2]) : 40;
  status_type aif_status, mi_status;
  int32_t item_statuses[NCOUNTERS], config_status[2], mapping = SMALL_MAP;
  int32_t item_data[NCOUNTERS], old_data[NCOUNTERS], delta[NCOUNTERS];
  int32_t round_factor = 0, ticks_per_milli = 0;
  int32_t config_items[3] = {3042, 3043, 0};
  void *config_ptrs[2] = {&round_factor, &ticks_per_milli};
  if (wait <= 0 || samples < 1) { fprintf(stderr, "usage: testmiaif1 [interval-seconds] [samples]\n"); return 2; }

  int ncpus = mish_env_default("testmiaif1");   /* the system to measure, as the environment says */
  if (ncpus > 1) printf("%d CPUs: each figure is a share of all processors' time (%d x the interval)\n", ncpus, ncpus);
  GETPRIVMODE();
  AIFGLOBINSTALL(&aif_status, USER_ID);   /* the INSTMI step, harmless when done before */
  AIFACCESSON(&aif_status, USER_ID);
  if (aif_status.all != 0) { write_status(" can't get going", aif_status); return 1; }
  AIFSCGET(&aif_status, config_items, config_ptrs, config_status, 0);
  if (aif_status.all != 0) { write_status(" can't get the tick factor data ", aif_status); return 50; }
  double milli_to_mi_time = (double)ticks_per_milli / round_factor;

  MIGLOBON(&mi_status, item_nums, item_statuses, &mapping, 0);
  if (mi_status.all != 0) { write_status(" trouble enabling the mi ", mi_status); return 1; }
  pause_for(wait);
  MIGLOBGET(&mi_status, item_nums, item_data, item_statuses, sizeof item_data, mapping, 0);
  if (mi_status.all != 0) { write_status(" error from getting mi data ", mi_status); return 95; }
  for (int i = 0; i < NCOUNTERS; i++) old_data[i] = item_data[i];
  int64_t old_time = timer_ms();

  for (int j = 1; j <= samples; j++) {
    pause_for(wait);
    MIGLOBGET(&mi_status, item_nums, item_data, item_statuses, sizeof item_data, mapping, 0);
    if (mi_status.all != 0) { write_status(" error from getting mi data ", mi_status); return 100; }
    int64_t current_time = timer_ms();
    int32_t delta_time = (int32_t)(current_time - old_time);
    int32_t delta_mi_time = (int32_t)((delta_time + 1) * milli_to_mi_time) * ncpus;   /* every CPU's time */
    /* unsigned subtraction is the manual's rollover formula for one wrap */
    for (int i = 0; i < NCOUNTERS; i++) delta[i] = (int32_t)((uint32_t)item_data[i] - (uint32_t)old_data[i]);
    /* the MI has no ICS timer: ICS is the interval less everything accounted for */
    int32_t accounted = 0;
    for (int i = T_PAUSED; i <= T_ES; i++) accounted += delta[i];
    int32_t ics = delta_mi_time - accounted;
    printf("delta time %d\n", delta_time);
    /* the original stops at ES; `other` (memory manager, dispatcher, AS, BS) makes the line add to 100 */
    int32_t other = delta[T_SYS_FETCH] + delta[T_SWAPIN] + delta[T_TOS_TRAP] + delta[T_DISP_ACT] + delta[T_AS] + delta[T_BS];
    printf(" paused %6.2f idle %6.2f ics %6.2f cs %6.2f ds %6.2f es %6.2f other %6.2f\n",
           100.0 * delta[T_PAUSED] / delta_mi_time, 100.0 * delta[T_IDLE] / delta_mi_time,
           100.0 * ics / delta_mi_time, 100.0 * delta[T_CS] / delta_mi_time,
           100.0 * delta[T_DS] / delta_mi_time, 100.0 * delta[T_ES] / delta_mi_time, 100.0 * other / delta_mi_time);
    for (int i = C_NM_CODE_PF; i <= C_SW2CM; i++)
      if (delta[i] != 0) printf("%30s %d\n", names[i], delta[i]);
    for (int i = 0; i < NCOUNTERS; i++) old_data[i] = item_data[i];
    old_time = current_time;
  }
  MIGLOBOFF(&mi_status, 0);
  AIFACCESSOFF(&aif_status, USER_ID);
  GETUSERMODE();
  return 0;
}
