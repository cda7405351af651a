/* sim_counters.c — what the simulator counts and where it writes: the counter of each role,
 * stop reason and room event row (resolved once from item numbers), and the step's rows and
 * words read from the store's layout. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mi_testhook.h"
#include "sim_model.h"

/* What one operation of a room counts: global item, process item (0 none), how many per
 * operation on average (whole part always, the fraction by chance), and for a run of n
 * consecutive items (a histogram) one of them chosen at random. Pairs keep "the processes'
 * sum is the global". A watermark row (the catalog's reading) records a depth drawn for each of
 * its events as a maximum instead; a level cannot be a row (gmc_sm_lru_depth is modeled in
 * room_op). */
static const struct evrow { int room; int32_t gitem, pitem; double per_op; int n; } evrows[] = {
  /* file system: opens, closes, the mapped-file reads and writes, space for new files */
  {R_FILE, 21359, 25256, 1}, {R_FILE, 21360, 25257, 1}, {R_FILE, 21358, 25255, 0.15}, {R_FILE, 21361, 25258, 0.05},
  {R_FILE, 21334, 25248, 3}, {R_FILE, 21335, 25249, 1}, {R_FILE, 21342, 25250, 0.6}, {R_FILE, 21344, 25252, 0.2},
  {R_FILE, 21351, 25251, 0.3}, {R_FILE, 21352, 25254, 0.1},
  {R_FILE, 21353, 25253, 0.05}, {R_FILE, 21336, 0, 2.4}, {R_FILE, 21337, 0, 0.6}, {R_FILE, 21338, 0, 1.3},
  {R_FILE, 21340, 0, 0.3}, {R_FILE, 21326, 0, 0.3}, {R_FILE, 21327, 0, 0.1},
  {R_FILE, 21330, 0, 0.1}, {R_FILE, 21331, 0, 0.02}, {R_FILE, 21345, 0, 0.01}, {R_FILE, 21346, 0, 0.01},
  {R_FILE, 21354, 0, 0.01}, {R_FILE, 21355, 0, 0.01}, {R_FILE, 21356, 0, 0.02},
  {R_FILE, 21362, 0, 1}, {R_FILE, 21363, 0, 0.4}, {R_FILE, 21364, 0, 2}, {R_FILE, 21365, 0, 0.6},
  {R_FILE, 21366, 0, 0.15}, {R_FILE, 21367, 0, 0.05}, {R_FILE, 21368, 0, 1.2}, {R_FILE, 21369, 0, 0.4},
  {R_FILE, 21370, 0, 0.002}, {R_FILE, 21371, 0, 0.001}, {R_FILE, 21372, 0, 0.001}, {R_FILE, 21373, 0, 0.001},
  {R_FILE, 21374, 0, 0.3}, {R_FILE, 21375, 0, 0.1}, {R_FILE, 21376, 0, 0.2}, {R_FILE, 21377, 0, 0.07},
  {R_FILE, 21378, 0, 0.05}, {R_FILE, 21379, 0, 0.02}, {R_FILE, 21380, 0, 0.03}, {R_FILE, 21381, 0, 0.01},
  {R_FILE, 21382, 0, 0.05}, {R_FILE, 21383, 0, 0.01}, {R_FILE, 21384, 0, 0.4}, {R_FILE, 21385, 0, 0.08},
  {R_FILE, 21386, 0, 0.02}, {R_FILE, 21387, 0, 0.01}, {R_FILE, 21388, 0, 0.01}, {R_FILE, 21389, 0, 0.005},
  /* the system log (file system and TurboIMAGE recovery): transactions, writes, freezes by pages */
  {R_FILE, 21549, 0, 0.2}, {R_FILE, 21551, 0, 0.19}, {R_FILE, 21552, 0, 0.01}, {R_FILE, 21550, 0, 0.02},
  {R_FILE, 21553, 0, 0.2}, {R_FILE, 21557, 0, 0.001}, {R_FILE, 21558, 0, 0.01}, {R_FILE, 21560, 0, 0.01},
  {R_FILE, 21561, 0, 0.005}, {R_FILE, 21563, 0, 0.01}, {R_FILE, 21564, 0, 0.005}, {R_FILE, 21565, 0, 0.005},
  {R_FILE, 21578, 0, 0.05}, {R_FILE, 21579, 0, 0.01}, {R_FILE, 21580, 0, 0.6}, {R_FILE, 21581, 0, 0.6},
  {R_FILE, 21582, 0, 0.1, 10}, {R_FILE, 21592, 0, 0.2, 8},
  {R_IMAGE, 21549, 0, 0.3}, {R_IMAGE, 21551, 0, 0.29}, {R_IMAGE, 21552, 0, 0.01}, {R_IMAGE, 21553, 0, 0.3},
  {R_IMAGE, 21582, 0, 0.1, 10}, {R_IMAGE, 21592, 0, 0.3, 8}, {R_IMAGE, 21580, 0, 0.5}, {R_IMAGE, 21581, 0, 0.5},
  {R_IMAGE, 21334, 25248, 2}, {R_IMAGE, 21336, 0, 1.8}, {R_IMAGE, 21337, 0, 0.2},
  /* the user log of SQL: transactions, nested ones, aborts, log writes and freezes by pages */
  {R_SQL, 21600, 0, 0.3}, {R_SQL, 21601, 0, 0.03}, {R_SQL, 21602, 0, 0.29}, {R_SQL, 21603, 0, 0.01},
  {R_SQL, 21604, 0, 0.3}, {R_SQL, 21608, 0, 0.001}, {R_SQL, 21609, 0, 0.02}, {R_SQL, 21611, 0, 0.02},
  {R_SQL, 21612, 0, 0.005}, {R_SQL, 21614, 0, 0.01}, {R_SQL, 21615, 0, 0.005}, {R_SQL, 21616, 0, 0.005},
  {R_SQL, 21629, 0, 0.05}, {R_SQL, 21630, 0, 0.01}, {R_SQL, 21631, 0, 0.8}, {R_SQL, 21632, 0, 0.8},
  {R_SQL, 21633, 0, 0.1, 10}, {R_SQL, 21643, 0, 0.3, 8},
  /* IPC: transfers on the ICS, the PFP's ports and pools, make-present */
  {R_IPC, 21081, 25259, 0.3}, {R_IPC, 21085, 25260, 0.02}, {R_IPC, 21082, 0, 0.01}, {R_IPC, 21083, 0, 0.01},
  {R_IPC, 21084, 0, 0.005}, {R_IPC, 21086, 0, 0.05}, {R_IPC, 21087, 0, 0.02},
  /* the memory manager, per page fault: virgin pages, overlays, the VPN caches, the KO and PP tables */
  {R_MEM, 21477, 0, 0.2}, {R_MEM, 21478, 0, 0.02}, {R_MEM, 21479, 0, 0.3}, {R_MEM, 21480, 0, 0.1},
  {R_MEM, 21481, 0, 0.1}, {R_MEM, 21482, 0, 0.2}, {R_MEM, 21450, 0, 0.3}, {R_MEM, 21451, 0, 0.1},
  {R_MEM, 21452, 0, 0.05}, {R_MEM, 21453, 0, 0.1}, {R_MEM, 21454, 0, 0.05}, {R_MEM, 21455, 0, 0.02},
  {R_MEM, 21456, 0, 0.01}, {R_MEM, 21457, 0, 0.05}, {R_MEM, 21458, 0, 0.02}, {R_MEM, 21459, 0, 0.01},
  {R_MEM, 21461, 0, 0.02}, {R_MEM, 21462, 0, 0.01}, {R_MEM, 21463, 0, 0.01}, {R_MEM, 21464, 0, 0.6},
  {R_MEM, 21465, 0, 0.3}, {R_MEM, 21466, 0, 0.1}, {R_MEM, 21467, 0, 0.2}, {R_MEM, 21468, 0, 0.1},
  {R_MEM, 21469, 0, 0.05}, {R_MEM, 21470, 0, 0.02}, {R_MEM, 21471, 0, 0.01}, {R_MEM, 21472, 0, 0.01},
  {R_MEM, 21473, 0, 0.05}, {R_MEM, 21474, 0, 0.1}, {R_MEM, 21475, 0, 0.2}, {R_MEM, 21476, 0, 0.4},
  {R_MEM, 21296, 0, 0.3}, {R_MEM, 21297, 0, 0.5}, {R_MEM, 21298, 0, 0.05}, {R_MEM, 21299, 0, 0.5},
  {R_MEM, 21300, 0, 0.05}, {R_MEM, 21304, 0, 0.3}, {R_MEM, 21305, 0, 0.01}, {R_MEM, 21312, 0, 8},
  /* ... and by the faulting object's class: overlay candidates made, kicked out, recovered,
   * frozen pages, background and unknown-purpose transfers, extent faults */
  {R_MEM, 21274, 0, 0.2}, {R_MEM, 21275, 0, 0.4}, {R_MEM, 21276, 0, 0.5}, {R_MEM, 21277, 0, 0.3},
  {R_MEM, 21278, 0, 0.1}, {R_MEM, 21279, 0, 0.2}, {R_MEM, 21280, 0, 0.1}, {R_MEM, 21281, 0, 0.05},
  {R_MEM, 21282, 0, 0.05}, {R_MEM, 21283, 0, 0.1}, {R_MEM, 21284, 0, 0.05}, {R_MEM, 21287, 0, 0.05},
  {R_MEM, 21288, 0, 0.02}, {R_MEM, 21289, 0, 0.01}, {R_MEM, 21290, 0, 0.02}, {R_MEM, 21291, 0, 0.01},
  {R_MEM, 21292, 0, 0.1}, {R_MEM, 21293, 0, 0.05}, {R_MEM, 21483, 0, 0.01},
};
_Static_assert(sizeof evrows / sizeof evrows[0] == NEVROW, "NEVROW counts the event rows");

/* Rows that count a subset of another row's events (core/sim/BOOKS.md 7): the subset's global
 * item, the total's, and a group whose subsets share the bound (a write either fetches its page
 * or gets a virgin one). An operation counts at most as many of a group's events as the total's
 * whole count per operation in its room. */
static const struct { int32_t sub, total; int group; } subrows[] = {
  {21342, 21334, 0}, {21351, 21334, 1}, {21344, 21335, 2}, {21353, 21335, 2}, {21352, 21335, 3}, {21358, 21359, 4},
};

/* The item behind each role (n > 1: the role and the n - 1 after it take consecutive items),
 * keyed by role name so an entry cannot drift from its neighbours' positions. */
static const struct { int role; int32_t item; int n; } roles[] = {
  {G_PAUSES, 21164}, {G_PAUSED, 21176}, {G_IDLE_T, 21177}, {G_IDLE_C, 21165}, {G_FETCH_T, 21178},
  {G_SWAPIN_T, 21179}, {G_TOS_T, 21180}, {G_DISP_T, 21181}, {G_Q_T, 21182, 5}, {G_Q_C, 21170, 5},
  {G_CUR_Q, 21159, 5}, {G_CM_T, 21317}, {G_SW2CM, 21314}, {G_SW2NM, 21313}, {G_RESP, 21000, 10},
  {G_FIRST, 21010, 10}, {G_THINK, 21020, 10}, {G_MINTH, 21030}, {G_MAXTH, 21031}, {G_CUM_RQ, 21091},
  {G_CUR_RQ, 21092}, {G_MAX_RQ, 21093}, {G_BLK_TRM, 21110}, {G_BLK_DISC, 21112}, {G_STOP_DISC, 21196},
  {G_STOP_TRM, 21194}, {G_STOP_QX, 21202}, {G_STOP_PF, 21187, 7}, {G_PF, 21254}, {G_PF_LEN, 21255},
  {G_CLOCK, 21306}, {G_PRESS, 21307}, {G_COMPL, 21318}, {G_CUR_CI, 21320}, {G_CUR_SYS, 21319},
  {G_CUR_USER, 21322}, {G_FREE_MEM, 21309}, {G_LAUNCH_STOP_PRI, 21233}, {G_PREF_C, 21261},
  {G_PREF_LEN, 21262}, {G_PREF_PG, 21267}, {G_PREF_IO, 21268}, {G_POST_C, 21269}, {G_POST_LEN, 21270},
  {G_POST_PG, 21272}, {G_POST_IO, 21273}, {G_STOP_PREF, 21201}, {G_STOP_OTHER_IO, 21197}, {P_TIME, 25047},
  {P_READY, 25048}, {P_LAUNCH, 25049}, {P_PRI, 25050}, {P_STOP_TRM, 25058}, {P_STOP_TRM_T, 25114},
  {P_STOP_DISC, 25060}, {P_STOP_DISC_T, 25116}, {P_STOP_QX, 25066}, {P_DREAD, 25167}, {P_DWRITE, 25168},
  {P_DREAD_SZ, 25169}, {P_DWRITE_SZ, 25170}, {P_TREAD, 25172}, {P_TWRITE, 25173}, {P_LTRD, 25163},
  {P_LTWT, 25164}, {P_RESP_T, 25190}, {P_FIRST_T, 25191}, {P_THINK_T, 25192}, {P_TERM_READS, 25195},
  {P_CM_T, 25199}, {P_SW2CM, 25197}, {P_PF, 25202}, {P_DREAD_OBJ, 25243}, {P_DWRITE_OBJ, 25244},
  {P_STOP_PF, 25051}, {I_COMPL, 23022},
  {I_WT_RTT, 23023}, {I_RD_RTT, 23024}, {I_QD, 23025, 8}, {I_QMAX, 23033}, {I_QCUR, 23034}, {I_QCUM, 23035},
  {I_RDX, 23040}, {I_WTX, 23041}, {I_QDELAY, 23044}, {I_SERVICE, 23045}, {I_COMPLETED, 23046},
  {I_CRD, 23048}, {I_CWR, 23049}, {I_RD_OBJ, 23050}, {I_WT_OBJ, 23051}, {I_TRESP, 23054}, {I_TTHINK, 23056},
  {I_TREADS, 23059}, {I_SWRD, 23009}, {I_SWWT, 23010}, {C_IDLE_C, 27000}, {C_IDLE_T, 27006},
  {C_FETCH_C, 27002}, {C_FETCH_T, 27008}, {C_DISP_C, 27005}, {C_DISP_T, 27011}, {C_EXT_ICS, 27012},
  {C_LAUNCH, 27013}, {C_INTR, 27014}, {C_Q_C, 27016, 5}, {C_Q_T, 27021, 5}, {C_CM_T, 27026},
  {C_STOP_DISC, 27036}, {C_STOP_TRM, 27034}, {C_STOP_QX, 27042}, {G_REQ_SECS, 21094}, {G_RQ_T, 21095, 8},
  {G_BLK_OTHER, 21113}, {G_BLK_TIMER, 21119}, {G_BLK_CHILD, 21122},
  {G_SWAPIN_C, 21167}, {G_TOS_C, 21168}, {G_FETCH_C, 21166}, {G_TOS_TRAP, 21301, 3}, {C_REPL_C, 27001},
  {C_REPL_T, 27007}, {C_SWAP_C, 27003}, {C_SWAP_T, 27009}, {C_TOS_C, 27004}, {C_TOS_T, 27010}, {C_COMPL, 27015},
  {G_SEC_CUR, 21390, 10}, {G_SEC_CUM, 21400, 10}, {G_VM_CUR, 21410, 10}, {G_VM_CUM, 21420, 10},
  {G_OBJ_CUR, 21430, 10}, {G_OBJ_CUM, 21440, 10}, {P_SEC_CUR, 25203, 10}, {P_SEC_CUM, 25213, 10},
  {P_VM_CUR, 25223, 10}, {P_VM_CUM, 25233, 10}, {G_CUM_ALLOC, 21295}, {P_CUM_ALLOC, 25200}, {P_MAIN_PG, 25201},
  {G_CUM_ALLOC_FREE, 21308}, {G_ROC_CUR, 21310}, {G_ROC_CUM, 21311}, {G_SWAP_PG, 21294}, {G_RES_PG, 21286},
  {G_FRZ_PG_CUR, 21285}, {G_PF_VIRGIN, 21256}, {G_PF_IO_PG, 21259}, {G_PF_IO_MIBS, 21260}, {G_PROC_CI, 21321},
  {P_DOTHER_OBJ, 25247}, {P_DRD_SZ_OBJ, 25245}, {P_DWT_SZ_OBJ, 25246}, {I_OBJ_RD, 23052}, {I_OBJ_WT, 23053},
  {I_RDLEN, 23036}, {I_WTLEN, 23037}, {I_REQ_SECS, 23043}, {I_NONMM_RD, 23004}, {I_NONMM_WT, 23005},
  {I_CM_RD, 23013}, {I_CM_WT, 23015}, {I_CM_BRD, 23014}, {I_CM_BWT, 23016}, {I_FIRST_T, 23055},
  {I_TIMED_T, 23057}, {I_TIMED_C, 23058}, {I_VQD, 23060, 8}, {I_VQMAX, 23068}, {I_VRQCUM, 23075},
  {I_VWQCUM, 23076}, {I_VRQW, 23077, 5}, {I_VWQW, 23082, 5}, {I_VRQWT, 23087}, {I_VWQWT, 23088},
  {I_VRSV, 23089, 5}, {I_VWSV, 23094, 5}, {I_VRSVT, 23099}, {I_VWSVT, 23100}, {P_LRD_SZ, 25165},
  {P_LWT_SZ, 25166}, {P_TRD_SZ, 25174}, {P_TWT_SZ, 25175}, {P_TIMED_T, 25193}, {P_TIMED_C, 25194},
  {P_TAPE_RD, 25177}, {P_TAPE_RD_SZ, 25179}, {P_PRN_WT, 25182}, {P_PRN_WT_SZ, 25183}, {P_TAPE_OTHER, 25181},
  {P_PRN_OTHER, 25184}, {P_TERM_OTHER, 25176}, {G_MAX_PF_DEPTH, 21460}, {G_PGM_ALLOC, 21246},
  {G_LIB_ALLOC, 21247}, {G_CUR_PGM, 21250}, {G_CUR_LIB, 21251}, {G_THINK_UNDER, 21032}, {I_REP_START, 23069},
  {I_REP_STOP, 23070}, {I_REP_KB, 23071}, {I_REP_MIBS, 23072}, {I_REP_T, 23073}, {I_REP_PCT, 23074},
  {P_SW2NM, 25196}, {G_DISP_C, 21169}, {P_DOTHER, 25171}, {I_CTRL, 23039}, {P_TAPE_WT, 25178},
  {P_TAPE_WT_SZ, 25180}, {G_LRU, 21339},
  {G_PF_VIRGIN_UB, 21257}, {G_PF_VIRGIN_UB_PG, 21258}, {G_PREF_VIRGIN, 21263, 3}, {G_PREF_UB, 21266}, {G_POST_UB, 21271},
};

/* A counter only if the manual says it is instrumented: the rest must stay zero, so the model
 * never gets a handle to them. */
mi_ctr sim_inst_counter(int32_t item) {
  const mi_item_info *it = item ? mi_item_lookup(item) : NULL;
  mi_ctr none = {-1};
  return it && it->instrumented == MI_INST_YES ? mi_host_counter(item) : none;
}

/* The row (its place among room's rows with a fraction) of a fraction event drawn as x: the
 * first whose cumulative fraction exceeds the draw scaled to the fractions' sum (the last if
 * none), searched from the draw's cell a step or two either way. */
int sim_ev_row(const sim *s, int room, uint64_t x) {
  const double *cum = s->cum[room];
  int nch = s->nchance[room];
  double v = (double)(x >> 11) * (1.0 / 9007199254740992.0) * s->ev_lambda[room];
  double cv = v * s->ev_cellw[room];
  int lo = s->ev_cell[room][cv < EV_CELLS - 1 ? (cv > 0 ? (int)cv : 0) : EV_CELLS - 1];
  while (lo < nch - 1 && cum[lo] <= v) lo++;
  while (lo > 0 && cum[lo - 1] > v) lo--;
  return lo;
}

/* The number of fraction events of an operation of room drawn as x: the first k whose Poisson
 * sum P(events <= k) reaches the draw (EV_MAXHITS at most). */
int sim_ev_hits(const sim *s, int room, uint64_t x) {
  double u = (double)(x >> 11) * (1.0 / 9007199254740992.0);
  const double *pois = s->ev_pois[room];
  int hits = 0;
  while (hits < EV_MAXHITS && u > pois[hits]) hits++;
  return hits;
}

/* Resolves every role's counter handle from the table above (a role left out stays id -1) and
 * works out the rooms' tables, into a model whose fields below are still zero. */
void sim_resolve_fresh(sim *s) {
  for (int i = 0; i < NCTR; i++) s->c[i].id = -1;
  for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++)
    for (int k = 0; k < (roles[r].n ? roles[r].n : 1); k++) {
      s->c[roles[r].role + k] = sim_inst_counter(roles[r].item + k);
      const mi_item_info *it = mi_item_lookup(roles[r].item + k);
      s->rkind[roles[r].role + k] = (uint8_t)(it ? it->kind : MI_KIND_PSEUDO);
    }
  for (int k = 0; k < NREASON; k++)
    for (int place = 0; place < 5; place++) s->rs[k][place] = sim_inst_counter(reason_item(k, place));
  for (int b = 0; b < 3; b++) { s->semq[0][b] = mi_host_counter(21088 + b); s->semq[1][b] = mi_host_counter(25261 + b); }
  for (int i = 0; i < NEVROW; i++) {
    s->ev[i][0] = sim_inst_counter(evrows[i].gitem); s->ev[i][1] = sim_inst_counter(evrows[i].pitem);
    const mi_item_info *it = mi_item_lookup(evrows[i].gitem);
    s->ev_objcl[i] = it && it->kind == MI_KIND_OBJCL;
    s->ev_wmark[i] = it && it->reading == MI_READ_WATERMARK;
    int r = evrows[i].room;
    double frac = evrows[i].per_op - (int32_t)evrows[i].per_op;
    s->ev_whole[i] = (int32_t)evrows[i].per_op;
    if (s->ev_whole[i]) s->whole[r][s->nwhole[r]++] = i;
    if (frac > 0) {
      s->ev_lambda[r] += frac;
      s->cum[r][s->nchance[r]] = s->ev_lambda[r];
      s->chance[r][s->nchance[r]++] = i;
    }
  }
  /* each room's rows are consecutive in its table */
  for (int r = 0; r < NROOM; r++) {
    s->ev_lo[r] = s->ev_hi[r] = s->wt_lo[r] = s->wt_hi[r] = 0;
    s->ev_exp[r] = exp(-s->ev_lambda[r]);
    /* the Poisson sums as room_events once computed them term by term, operation by operation */
    double pk = s->ev_exp[r], f = pk;
    s->ev_pois[r][0] = f;
    for (int k = 1; k <= EV_MAXHITS; k++) { pk *= s->ev_lambda[r] / k; f += pk; s->ev_pois[r][k] = f; }
    s->ev_cellw[r] = s->ev_lambda[r] > 0 ? EV_CELLS / s->ev_lambda[r] : 0;
    for (int c = 0, lo = 0; c < EV_CELLS && s->nchance[r]; c++) {
      double v = c / s->ev_cellw[r];
      while (lo < s->nchance[r] - 1 && s->cum[r][lo] <= v) lo++;
      s->ev_cell[r][c] = (uint16_t)lo;
    }
    /* the row is a non-decreasing function of the draw (every step of ev_row rounds
     * monotonically), so a cell whose first and last draws give one row gives it throughout,
     * and one whose rows are neighbours changes row at one draw, found here by bisection */
    for (int c = 0, nspl = 0; c < EV_TOP && s->nchance[r]; c++) {
      uint64_t x0 = (uint64_t)c << (64 - EV_TOP_BITS), x1 = x0 | (((uint64_t)1 << (64 - EV_TOP_BITS)) - 1);
      int a = sim_ev_row(s, r, x0), b = sim_ev_row(s, r, x1);
      s->ev_top[r][c] = (uint8_t)(a == b ? s->chance[r][a] : EV_SPLIT);   /* (the row itself: NEVROW < EV_SPL0) */
      if (b == a + 1 && nspl < EV_NSPL) {
        uint64_t lo = x0, hi = x1;   /* row(lo) == a, row(hi) == b */
        while (hi - lo > 1) { uint64_t mid = lo + (hi - lo) / 2; if (sim_ev_row(s, r, mid) == a) lo = mid; else hi = mid; }
        s->ev_spl[r][nspl] = (struct evspl){hi, (uint8_t)s->chance[r][a], (uint8_t)s->chance[r][b]};
        s->ev_top[r][c] = (uint8_t)(EV_SPL0 + nspl++);
      }
      a = sim_ev_hits(s, r, x0), b = sim_ev_hits(s, r, x1);
      s->ev_ntop[r][c] = (uint8_t)(a == b && a < EV_SPLIT ? a : EV_SPLIT);
    }
  }
  for (int i = 0; i < NEVROW; i++) {
    for (int b = 0; b < evrows[i].n && b < 10; b++) s->ev_hist[i][b] = sim_inst_counter(evrows[i].gitem + b);
    /* the manual counts an FOPEN and an FCLOSE four times for the process (root, account, group, file) */
    s->ev_pmul[i] = evrows[i].pitem == 25256 || evrows[i].pitem == 25257 ? 4 : 1;
    for (size_t j = 0; j < sizeof subrows / sizeof subrows[0]; j++) {
      if (evrows[i].gitem != subrows[j].sub) continue;
      s->ev_grp[i] = (uint8_t)(subrows[j].group + 1);
      for (int t = 0; t < NEVROW; t++)
        if (evrows[t].room == evrows[i].room && evrows[t].gitem == subrows[j].total) s->ev_cap[evrows[i].room][subrows[j].group] = (int32_t)evrows[t].per_op;
    }
  }
  for (int i = NEVROW - 1; i >= 0; i--) { s->ev_lo[evrows[i].room] = i; if (!s->ev_hi[evrows[i].room]) s->ev_hi[evrows[i].room] = i + 1; }
  sim_wait_rows(s);
}

/* The fields sim_resolve_fresh fills: they follow from the catalog and the tables of this file
 * and sim_rooms.c alone, so every model gets the same (a test compares a whole fresh model). */
#define RESOLVED(X) X(c) X(rkind) X(rs) X(semq) X(ev) X(ev_objcl) X(ev_wmark) X(ev_whole) X(whole) X(nwhole) \
  X(chance) X(nchance) X(cum) X(ev_lambda) X(ev_exp) X(ev_pois) X(ev_cellw) X(ev_cell) X(ev_top) X(ev_ntop) X(ev_spl) \
  X(ev_hist) X(ev_pmul) X(ev_grp) X(ev_cap) X(ev_lo) X(ev_hi) X(wt_lo) X(wt_hi)
#define RESOLVED_FIELD(f) __typeof__(((sim *)0)->f) f;
static struct { RESOLVED(RESOLVED_FIELD) } resolved;
static int resolved_ok;
static pthread_once_t resolved_once = PTHREAD_ONCE_INIT;

/* Works the tables out once per process (a model of its own, then freed). */
static void resolve_once(void) {
  size_t size = (sizeof(sim) + 63) / 64 * 64;
  sim *t = aligned_alloc(64, size);
  if (!t) return;   /* each model then resolves its own */
  memset(t, 0, size);
  sim_resolve_fresh(t);
#define RESOLVED_SAVE(f) memcpy(&resolved.f, &t->f, sizeof resolved.f);
  RESOLVED(RESOLVED_SAVE)
  free(t);
  resolved_ok = 1;
}

/* Test hook: 0 when the tables a model gets are byte for byte those it would work out itself
 * (two whole zeroed models compared), 1 when they differ, -1 if memory is short. */
int mi_sim_resolve_selfcheck(void) {
  size_t size = (sizeof(sim) + 63) / 64 * 64;
  sim *a = aligned_alloc(64, size), *b = aligned_alloc(64, size);
  int rc = -1;
  if (a && b) {
    memset(a, 0, size);
    memset(b, 0, size);
    sim_resolve(a);
    sim_resolve_fresh(b);
    rc = memcmp(a, b, size) != 0 || b->nchance[R_FILE] == 0;
  }
  free(a);
  free(b);
  return rc;
}

/* Gives a new model (its fields above still zero) the resolved tables: worked out at the first
 * model of the process and copied from then on (a third of mi_sim_new's time before). */
void sim_resolve(sim *s) {
  pthread_once(&resolved_once, resolve_once);
  if (!resolved_ok) { sim_resolve_fresh(s); return; }
#define RESOLVED_LOAD(f) memcpy(&s->f, &resolved.f, sizeof s->f);
  RESOLVED(RESOLVED_LOAD)
}

/* Notes each role's domain (MI_DOM_COUNT: no counter). */
void sim_role_domains(sim *s) {
  for (int i = 0; i < NCTR; i++) s->rdom[i] = (uint8_t)(s->c[i].id >= 0 ? s->c[i].id >> MI_HOST_INDEX_BITS : MI_DOM_COUNT);
}

/* The word of counter c in its domain's rows as the step sees it, -1 if nobody counts it (or
 * the step counts nothing in its domain). */
static int32_t word_of(const sim *s, mi_ctr c) {
  if (c.id < 0 || (uint32_t)c.id >= (uint32_t)MI_DOM_COUNT << MI_HOST_INDEX_BITS) return -1;
  return ON(s, c.id >> MI_HOST_INDEX_BITS) ? mi_host_word(s->sys, c) : -1;
}

/* Reads the store's layout into the step's words and its global and processor rows if it moved
 * since the last reading (s->cnt must be this step's). */
int sim_sync_layout(mi_system *sys, sim *s) {
  uint64_t gen = mi_host_layout_gen(sys);
  if (s->lay_ok && gen == s->lay_gen && s->cnt == s->lay_cnt) return 0;
  int mapped = mi_host_mapping(sys) >= 0;   /* (a class's word is known: s->fold holds none below 0) */
  for (int i = 0; i < NCTR; i++) {
    int32_t w = word_of(s, s->c[i]);
    s->col[i] = w;
    s->ocol[i] = s->rkind[i] == MI_KIND_OBJCL && mapped ? w : -1;
    s->scol[i] = s->rkind[i] == MI_KIND_SIMPLE ? w : -1;
  }
  for (int k = 0; k < NREASON; k++)
    for (int place = 0; place < 5; place++) s->rscol[k][place] = word_of(s, s->rs[k][place]);
  for (int d = 0; d < 2; d++)
    for (int b = 0; b < 3; b++) s->semcol[d][b] = word_of(s, s->semq[d][b]);
  memset(s->room_cnt, 0, sizeof s->room_cnt);
  for (int i = 0; i < NEVROW; i++) {
    s->evcol[i][0] = s->ev_objcl[i] && !mapped ? -1 : word_of(s, s->ev[i][0]);
    s->evcol[i][1] = word_of(s, s->ev[i][1]);
    for (int k = 0; k < 10; k++) {
      s->hcol[i][k] = k < evrows[i].n ? word_of(s, s->ev_hist[i][k]) : -1;
      if (s->hcol[i][k] >= 0) s->room_cnt[evrows[i].room] = 1;
    }
    if (s->evcol[i][0] >= 0 || s->evcol[i][1] >= 0) s->room_cnt[evrows[i].room] = 1;
    s->evact[i] = (struct evact){s->evcol[i][0], s->evcol[i][1], s->ev_whole[i], (uint8_t)evrows[i].n, s->ev_objcl[i], s->ev_wmark[i],
                                 s->ev_grp[i], s->ev_pmul[i]};
    int oc = s->ev_objcl[i] != 0;   /* (a class row without a word stays out of the row whatever the class) */
    s->evf[i] = (struct evf){oc && s->evcol[i][0] < 0 ? INT32_MIN / 2 : s->evcol[i][0], oc ? -1 : s->evcol[i][1], -oc,
                             (uint8_t)(evrows[i].n > 1 || s->ev_wmark[i] || s->ev_grp[i])};
  }
  for (int k = 0; k < NREASON; k++) {
    const mi_item_info *it = mi_item_lookup(reason_item(k, RS_G_BLK));
    s->rsset[k] = it && it->kind == MI_KIND_SIMPLE ? s->rscol[k][RS_G_BLK] : -1;
  }
  int m = mi_host_mapping(sys);
  if (m != s->fold_m) {   /* the fold depends on the mapping alone: read again when it changed */
    for (int cls = 0; cls < 720; cls++) s->fold[cls] = (int16_t)mi_host_objcl_word(sys, cls);
    s->fold_m = m;
  }
  sim_row(s, &s->g0, MI_DOM_GLOBAL, 0);
  for (int c = 0; c < 8; c++) sim_row(s, &s->crow[c], MI_DOM_PROCESSOR, c);
  s->lay_gen = gen; s->lay_cnt = s->cnt; s->lay_ok = 1;
  return 1;
}

/* Reads which domains count and where their words are; 1 when the layout moved while
 * something counts (the levels must be written anew). */
int sim_sync_counting(mi_system *sys, sim *s) {
  int was = s->cnt;
  s->cnt = mi_host_domains(sys);
  if (s->cnt && !was) for (int k = 0; k < NREASON; k++) blk_changed(s, k);   /* the levels all anew */
  return sim_sync_layout(sys, s) && s->cnt;
}
