/* sim_devices.c — the simulated machine's devices: disc I/O with queues (and the volume
 * manager's view of it), the jobs' printers and tapes, terminal transfers, the mirror repair. */
#include "sim_model.h"

static const int io_classes[6] = {7, 650, 695, 4, 2, 0};

/* A disc request as the memory manager counts it (reads are prefetches into memory, writes
 * posts out of it) and, with ion, its disc's object-class and request counts; x is the
 * request's own draw. */
static void mm_io(sim *s, const sproc *p, mi_host_row *ir, mi_host_row *pr, int ion, int write, int cls, int32_t bytes, uint64_t x, int64_t wait) {
  mi_host_row *gr = &s->g0;
  if (ion) {
    ROBJ(ir, write ? I_WT_OBJ : I_RD_OBJ, cls, 1);
    RADD(ir, write ? I_SWWT : I_SWRD, 1);   /* 23009/23010: disk read and write requests */
  }
  int pages = bytes / 2048 ? bytes / 2048 : 1;
  ROBJ(gr, write ? G_POST_C : G_PREF_C, cls, 1);
  ROBJ(gr, write ? G_POST_LEN : G_PREF_LEN, cls, pages);
  ROBJ(gr, write ? G_POST_PG : G_PREF_PG, cls, pages);
  ROBJ(gr, write ? G_POST_IO : G_PREF_IO, cls, 1);
  if (!write) stop_row(s, pr, p->cpu, K_PREFETCH, wait);
  /* one in ten is asynchronous (21266, 21271); one read in twenty brings along a prefetch of
   * never-touched pages, which needs memory but no I/O (21263: evicting under pressure 21264,
   * else 21265). Drawn apart from the model's stream: counting them changes nothing else. */
  if (x % 10 == 0) ROBJ(gr, write ? G_POST_UB : G_PREF_UB, cls, 1);
  if (!write && x / 10 % 20 == 0) {
    ROBJ(gr, G_PREF_C, cls, 1); ROBJ(gr, G_PREF_LEN, cls, pages);
    ROBJ(gr, G_PREF_VIRGIN, cls, 1); ROBJ(gr, G_PREF_VIRGIN + (s->pressure > 0.8 ? 1 : 2), cls, 1);
  }
}

/* The same disc request seen by the disc's volume manager: queue depth, waits and service by
 * bands (only adds: nothing to do, not even the divisions, while nobody counts the discs). */
static void volume_io(sim *s, mi_host_row *ir, int write, int cls, int32_t bytes, int depth, int64_t qwait, int64_t service) {
  static const int band_ms[4] = {25, 50, 100, 200};
  int64_t qw = qwait / s->tpm, sv = service / s->tpm;
  int bq = 0, bs = 0;
  while (bq < 4 && qw >= band_ms[bq]) bq++;
  while (bs < 4 && sv >= band_ms[bs]) bs++;
  RADD(ir, I_VQD + (depth == 0 ? 0 : depth == 1 ? 1 : depth == 2 ? 2 : depth <= 4 ? 3 : depth <= 8 ? 4 : depth <= 16 ? 5 : depth <= 32 ? 6 : 7), 1);
  RMAX(ir, I_VQMAX, depth + 1);
  RADD(ir, write ? I_VWQCUM : I_VRQCUM, 1);   /* requests queued (23075/23076) */
  RADD(ir, (write ? I_VWQW : I_VRQW) + bq, 1);
  RADD(ir, write ? I_VWQWT : I_VRQWT, qwait);
  RADD(ir, (write ? I_VWSV : I_VRSV) + bs, 1);
  RADD(ir, write ? I_VWSVT : I_VRSVT, service);
  RADD(ir, I_REQ_SECS, qwait + service);
  ROBJ(ir, write ? I_OBJ_WT : I_OBJ_RD, cls, bytes);
}

/* A process issues a disk I/O: device, process and global counters, then waits. */
void sim_issue_io(mi_system *sys, sim *s, sproc *p, mi_host_row *pr, int64_t now, int cpu, int dev, int dev_write) {
  int disks = s->w.disks > 0 ? s->w.disks : 1;
  int ldev = dev ? dev : 1 + (int)(rnd(s) * disks) % disks;
  if (!dev && ldev > 5) ldev += 94;   /* disks are LDEVs 1-5, then 100-199 */
  int write = dev ? dev_write : rnd(s) < 0.3;
  int cls = io_classes[(int)(rnd(s) * 6) % 6];
  int32_t bytes = 1024 * (1 + (int)(rnd(s) * 8));
  int64_t start = s->disk_busy[ldev] > now ? s->disk_busy[ldev] : now;
  int64_t service = expo(s, sys, dev ? 4 * s->w.disk_ms : s->w.disk_ms) + 1;
  int64_t done = start + service;
  int depth = s->disk_out[ldev]++;
  s->disk_busy[ldev] = done;
  mi_host_row irow, *ir = sim_row(s, &irow, MI_DOM_IO, ldev);
  const int cnt = s->cnt, ion = IO_ON(s);
  /* every type of device: bytes and round trips (23040/23041, 23023/23024); a tape or a printer
   * counts a non-disk request and its completion (23004/23005, 23022), a disc the rest (the
   * non-disk items never move on a disc, the disc's never elsewhere: core/sim/BOOKS.md 8) */
  if (ion) {
    RADD(ir, write ? I_WTX : I_RDX, bytes);
    RADD(ir, write ? I_WT_RTT : I_RD_RTT, done - now);
    if (dev) { RADD(ir, write ? I_NONMM_WT : I_NONMM_RD, 1); RADD(ir, I_COMPL, 1); }
  }
  if (ion && !dev) {
  RADD(ir, I_COMPLETED, 1);
  RADD(ir, write ? I_CWR : I_CRD, 1);
  RADD(ir, I_QDELAY, start - now);
  RADD(ir, I_SERVICE, service);
  RADD(ir, I_QD + (depth == 0 ? 0 : depth == 1 ? 1 : depth == 2 ? 2 : depth <= 4 ? 3 : depth <= 8 ? 4 : depth <= 16 ? 5 : depth <= 32 ? 6 : 7), 1);
  RMAX(ir, I_QMAX, depth + 1);
  RSET(ir, I_QCUR, s->disk_out[ldev]);
  RADD(ir, I_QCUM, depth + 1);
  }
  uint64_t x = dev ? 0 : ev_hash(s, ++s->mmseq, 1 << 20);   /* (whether counted or not) */
  if (!dev && cnt) mm_io(s, p, ir, pr, ion, write, cls, bytes, x, done - now);   /* (the memory manager) */
  if (ion && !dev) volume_io(s, ir, write, cls, bytes, depth, start - now, service);
  if (!dev) {   /* disc I/O counters of the process and the stop reasons; tape and printer are other I/O */
    if (cnt) {
    RADD(pr, write ? P_DWRITE : P_DREAD, 1);
    RADD(pr, write ? P_DWRITE_SZ : P_DREAD_SZ, bytes);
    ROBJ(pr, write ? P_DWRITE_OBJ : P_DREAD_OBJ, cls, 1);
    RADD(pr, write ? P_LWT_SZ : P_LRD_SZ, bytes);
    ROBJ(pr, write ? P_DWT_SZ_OBJ : P_DRD_SZ_OBJ, cls, bytes);
    stop_row(s, pr, p->cpu, K_DISC_IO, done - now);
    }
    (void)cpu;
  } else {   /* the job's printer or tape: a write or a read, now and then a control (form feed, rewind) */
    if (dev == UNIT_PRINTER) { RADD(pr, P_PRN_WT, 1); RADD(pr, P_PRN_WT_SZ, bytes); }
    else if (write) { RADD(pr, P_TAPE_WT, 1); RADD(pr, P_TAPE_WT_SZ, bytes); }
    else { RADD(pr, P_TAPE_RD, 1); RADD(pr, P_TAPE_RD_SZ, bytes); }
    if (rnd(s) < 0.05) RADD(pr, dev == UNIT_PRINTER ? P_PRN_OTHER : P_TAPE_OTHER, 1);
    stop_row(s, pr, p->cpu, K_OTHER_IO, done - now);
  }
  /* a file-system semaphore now and then, queue length from the disk queue */
  if (rnd(s) < 0.2) {
    static const int sem[4] = {19, 20, 23, 59};
    int cls_s = sem[(int)(rnd(s) * 4) % 4];
    sem_block_row(s, pr, cls_s, depth + 1);
  }
  p->disk = ldev;
  p->wake = done;
  p->io_other = dev != 0;
  sim_set_state(s, p, S_IO);
}

/* A disk I/O completes: the process leaves the disk's queue (one interrupt). */
void sim_io_done(mi_system *sys, sim *s, sproc *p) {
  (void)sys;
  s->disk_out[p->disk]--;
  mi_host_row irow;
  if (IO_ON(s) && !p->io_other) RSET(sim_row(s, &irow, MI_DOM_IO, p->disk), I_QCUR, s->disk_out[p->disk]);   /* (a disc's queue) */
}

/* A session's terminal transfer of bytes: a non-disk request and its completion on its terminal,
 * and for a compatibility-mode program a blocked CM one with its bytes (23004/23005, 23022,
 * 23013-23016, 23036/23037). Only in a step. */
void sim_term_io(sim *s, const sproc *p, int write, int64_t bytes) {
  if (!IO_ON(s)) return;
  mi_host_row irow, *ir = sim_row(s, &irow, MI_DOM_IO, p->term);
  RADD(ir, write ? I_NONMM_WT : I_NONMM_RD, 1);
  RADD(ir, I_COMPL, 1);
  if (p->cm) { RADD(ir, write ? I_CM_WT : I_CM_RD, 1); RADD(ir, write ? I_CM_BWT : I_CM_BRD, 1); RADD(ir, write ? I_WTLEN : I_RDLEN, bytes); }
}

/* The mirror repair's levels on LDEV 1 (23069, 23070, 23072-23074). */
void sim_repair_levels(mi_system *sys, sim *s) {
  if (!s->rep_start) return;
  mi_host_set(sys, s->c[I_REP_START], 1, s->rep_start);
  if (s->rep_stop) mi_host_set(sys, s->c[I_REP_STOP], 1, s->rep_stop);
  mi_host_set(sys, s->c[I_REP_MIBS], 1, s->rep_mibs);
  mi_host_set(sys, s->c[I_REP_T], 1, s->rep_time);
  mi_host_set(sys, s->c[I_REP_PCT], 1, s->rep_pct);
}

/* A mirrored disc's repair, once a second: the first disc resynchronizes its mirror from the
 * 2nd to the 4th minute of every hour, 512 KB a second. */
void sim_repair_second(mi_system *sys, sim *s, int64_t now) {
  int64_t t = s->sim_ms / 1000 % 3600;
  if (t < 120 || t > 240) return;
  if (t == 120) { s->rep_start = now - s->boot; s->rep_mibs = s->rep_time = 0; }   /* a repair starts: its own figures from 0 */
  if (t == 240) s->rep_stop = now - s->boot;
  else {
    ADD(sys, s, I_REP_KB, 1, 512);
    s->rep_mibs++;
    s->rep_time += 1000 * s->tpm;
    s->rep_pct = (t - 120) * 100 / 120;
  }
  sim_repair_levels(sys, s);
}
