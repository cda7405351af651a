/* sim_memory.c — the simulated machine's memory: storage and virtual memory by object class,
 * the loader's programs, the census and free memory, page faults. */
#include "sim_model.h"

/* The secondary storage (sectors) a process holds by object class (temp data, perm data, NM
 * stack, CM stack, NM code, CM code, CM data, file objects, NM and CM system libraries): a
 * system process, a CI, a native-mode user program or job, a compatibility-mode one. Its
 * virtual memory is twice that; an object per class it uses; a quarter of it resident. */
static const int32_t store_sz[4][10] = {
  {32, 0, 64, 0, 256, 0, 0, 16, 512, 0}, {16, 0, 32, 0, 64, 0, 0, 8, 128, 0},
  {64, 32, 48, 0, 192, 0, 0, 128, 64, 0}, {32, 16, 16, 24, 0, 96, 32, 64, 0, 96},
};

/* The large-map classes 0-9 (the storage classes of store_sz). */
static const int CLS10[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

/* Writes a level kept by object class into row (the global row or a process's): class cls[k]
 * holds lv[k]; classes that fold into one word of the mapping in use are summed, and each word
 * is stored once (a reader never sees it half written). Nothing while nobody counts the role. */
static void objcl_level(sim *s, mi_host_row *row, int role, const int *cls, const int64_t *lv, int n) {
  int32_t oc = s->ocol[role];
  if (!s->cnt || oc < 0) return;
  for (int k = 0; k < n; k++) {
    int w = s->fold[cls[k]], first = 1;
    for (int j = 0; j < k; j++) if (s->fold[cls[j]] == w) first = 0;
    if (!first) continue;
    int64_t v = 0;
    for (int j = k; j < n; j++) if (s->fold[cls[j]] == w) v += lv[j];
    mi_host_row_setw(row, oc + w, v);
  }
}

/* The system's resident pages by class (21286): a quarter of the live processes' storage. */
static void res_levels(sim *s) {
  int64_t lv[10];
  for (int c = 0; c < 10; c++) lv[c] = s->store_cur[0][c] / 4;
  objcl_level(s, &s->g0, G_RES_PG, CLS10, lv, 10);
}

/* The replaceable pages in memory by class (21294): what swap-ins brought in. */
void sim_swap_levels(sim *s) {
  static const int cls[2] = {2, 3};
  objcl_level(s, &s->g0, G_SWAP_PG, cls, s->swap_cur, 2);
}

/* The row of store_sz of p's kind. */
static const int32_t *store_of(const sproc *p) {
  return store_sz[p->kind == K_SYS || p->kind == K_JSMAIN ? 0 : p->kind == K_CI ? 1 : p->cm ? 3 : 2];
}

/* The pages of p that swap-ins may bring in: its non-resident pages of its class. */
int16_t sim_swap_room_of(const sproc *p) {
  int32_t sz = store_of(p)[p->cm ? 3 : 2];
  return (int16_t)(sz - sz / 4);
}

/* A live process's storage levels: its storage, virtual memory and main-memory pages by class. */
void sim_proc_levels(mi_system *sys, sim *s, const sproc *p) {
  const int32_t *sz = store_of(p);
  int64_t main_pg[10];
  int counted = mi_host_domains(sys) >> MI_DOM_PROCESS & 1;   /* else mi_host_set finds no cell */
  for (int c = 0; c < 10; c++) {
    if (counted) {
      mi_host_set(sys, s->c[P_SEC_CUR + c], p->slot, sz[c]);
      mi_host_set(sys, s->c[P_VM_CUR + c], p->slot, 2 * sz[c]);
    }
    main_pg[c] = sz[c] / 4;
  }
  mi_host_row prw;
  objcl_level(s, sim_row(s, &prw, MI_DOM_PROCESS, p->slot), P_MAIN_PG, CLS10, main_pg, 10);
}

/* The system's storage levels: storage, virtual memory and objects by class (the sums over the
 * live processes), the ROC pages and the resident pages by class. The 31 simple levels are
 * skipped while no global counter is on (each mi_host_set would find no cell): a spawn writes
 * them, and the boot's logons spawn up to 100 processes before anyone can have turned one on. */
void sim_storage_levels(mi_system *sys, sim *s) {
  if (mi_host_domains(sys) >> MI_DOM_GLOBAL & 1) {
    for (int c = 0; c < 10; c++)
      for (int m = 0; m < 3; m++)
        mi_host_set(sys, s->c[(m == 0 ? G_SEC_CUR : m == 1 ? G_VM_CUR : G_OBJ_CUR) + c], 0, s->store_cur[m][c]);
    mi_host_set(sys, s->c[G_ROC_CUR], 0, (s->store_cur[0][4] + s->store_cur[0][5]) / 4);
  }
  res_levels(s);
}

/* A process comes (dir 1) or goes (dir -1): its storage, virtual memory and objects by class,
 * its resident pages, and the system's totals, which are the sums over the live processes. */
void sim_storage(mi_system *sys, sim *s, const sproc *p, int dir) {
  const int32_t *sz = store_of(p);
  int64_t pages = 0;
  for (int c = 0; c < 10; c++) {
    if (!sz[c]) continue;
    int64_t v[3] = {sz[c], 2 * sz[c], 1};
    for (int m = 0; m < 3; m++) {
      s->store_cur[m][c] += dir * v[m];
      if (dir > 0) ADD(sys, s, (m == 0 ? G_SEC_CUM : m == 1 ? G_VM_CUM : G_OBJ_CUM) + c, 0, v[m]);
    }
    if (dir > 0) { ADD(sys, s, P_SEC_CUM + c, p->slot, v[0]); ADD(sys, s, P_VM_CUM + c, p->slot, v[1]); }
    pages += sz[c] / 4;
  }
  if (dir > 0) sim_proc_levels(sys, s, p);
  sim_storage_levels(sys, s);
  if (dir > 0) { ADD(sys, s, G_CUM_ALLOC, 0, pages); ADD(sys, s, P_CUM_ALLOC, p->slot, pages); ADD(sys, s, G_ROC_CUM, 0, sz[4] / 4 + sz[5] / 4); }
  else ADD(sys, s, G_CUM_ALLOC_FREE, 0, pages);
}

/* The programs and libraries loaded now (21250, 21251): the sessions' two programs and the
 * jobs' two, and the system XL once a user program runs. */
void sim_loader_levels(mi_system *sys, sim *s) {
  int pgms = (s->w.sessions > 0) + (s->w.sessions > 1) + (s->w.jobs > 0) + (s->w.jobs > 1);
  mi_host_set(sys, s->c[G_CUR_PGM], 0, pgms);
  mi_host_set(sys, s->c[G_CUR_LIB], 0, pgms > 0);
}

/* The census's levels: the live processes by kind (21319-21322: a session's program is created by
 * its CI, a job's process by the job's start-up, so it counts among the others) and the free
 * memory (21309, 128 pages of 2 KB per live process); returns the pages in use. */
int64_t sim_pop_levels(mi_system *sys, sim *s) {
  int sessions = s->npop[K_USER], ci = s->npop[K_CI];
  int sysp = s->npop[K_SYS] + s->npop[K_JSMAIN], user = sessions + s->npop[K_JOB];
  mi_host_set(sys, s->c[G_CUR_CI], 0, ci);
  mi_host_set(sys, s->c[G_CUR_SYS], 0, sysp);
  mi_host_set(sys, s->c[G_CUR_USER], 0, s->npop[K_JOB]);
  int64_t used = (int64_t)(ci + sysp + user) * 128, mem = s->w.memory_pages;
  mi_host_set(sys, s->c[G_FREE_MEM], 0, used < mem ? mem - used : mem / 64);
  mi_host_set(sys, s->c[G_PROC_CI], 0, sessions);   /* the sessions' programs, created by their CIs */
  return used;
}

static const int pf_classes[7][2] = {{4, 0}, {2, 1}, {0, 2}, {7, 3}, {5, 4}, {3, 5}, {6, 6}};

/* Page faults that accompany an I/O under memory pressure; returns memory-manager ticks. A
 * fault that must read its page (one in four, more under pressure) makes p wait for it:
 * *waits is set then. */
int64_t sim_faults(mi_system *sys, sim *s, sproc *p, mi_host_row *pr, int cpu, int64_t at, int *waits) {
  mi_host_row *cr = &s->crow[(cpu) & 7], *gr = &s->g0;
  int64_t n = 0, t = 0;
  double f = s->w.faults_per_io;
  while (f > 0) { if (rnd(s) < f) n++; f -= 1.0; }
  int wait_k = -1;
  for (int64_t i = 0; i < n; i++) {
    int k = (int)(rnd(s) * 7) % 7, cls = pf_classes[k][0];
    int io = rnd(s) < 0.25 + s->pressure / 4;
    if (s->cnt) {
      ROBJ(gr, G_PF, cls, 1);
      ROBJ(gr, G_PF_LEN, cls, 2);
      ROBJ(pr, P_PF, cls, 1);
      if (io) { ROBJ(gr, G_PF_IO_PG, cls, 2); ROBJ(gr, G_PF_IO_MIBS, cls, 1); }
      if (cls == 0) {   /* new transient pages; with free memory to spare, served without evicting */
        ROBJ(gr, G_PF_VIRGIN, cls, 1);
        if (s->pressure < 0.8) { ROBJ(gr, G_PF_VIRGIN_UB, cls, 1); ROBJ(gr, G_PF_VIRGIN_UB_PG, cls, 2); }
      }
      if (CPU_ON(s)) RADD(cr, C_FETCH_C, 1);
    }
    if (io && wait_k < 0) wait_k = pf_classes[k][1];   /* p waits for the first page read */
    else stop_row(s, pr, p->cpu, pf_classes[k][1], s->tpm_5);   /* the rest are resolved meanwhile: 0.2 ms */
    s->sg[SG_FETCH_C]++;
    s->sg[SG_CLOCK]++;
    sim_room_events(sys, s, pr, R_MEM, cls);
    t += s->tpm_5;   /* 0.2 ms of memory manager per fault */
  }
  if (n) { RADD(gr, G_PRESS, n > 1); RMAX(gr, G_MAX_PF_DEPTH, n); }
  *waits = 0;
  if (wait_k >= 0) { sim_wait_on(sys, s, p, wait_k, at, expo(s, sys, s->w.disk_ms) + 1); *waits = 1; }
  else if (n && sim_room_op(sys, s, p, pr, R_MEM, at)) *waits = 1;
  return t;
}
