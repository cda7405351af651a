/* upper.c — the manual's upper-case procedures: each acts for the implicit
 * current caller (mi_session_use / mi_session_current). */
#include "mi_internal.h"

void AIFACCESSON(status_type *st, int32_t uid) { mi_accesson(mi_session_current(), st, uid); }
void AIFACCESSOFF(status_type *st, int32_t uid) { mi_accessoff(mi_session_current(), st, uid); }
void AIFGLOBINSTALL(status_type *st, int32_t uid) { mi_globinstall(mi_session_current(), st, uid); }
void AIFSCGET(status_type *st, int32_t *nums, void **items, int32_t *stats, int32_t uid) {
  mi_scget(mi_session_current(), st, nums, items, stats, uid);
}
void AIFSCPUT(status_type *st, int32_t *nums, void **items, int32_t *stats, int32_t uid, int32_t *vnums,
              void **vitems, int32_t *vstats) {
  mi_scput(mi_session_current(), st, nums, items, stats, uid, vnums, vitems, vstats);
}
void AIFTIME(status_type *st, longint_type *ticks, longint_type *micro, clock_type *clock, date_type *date,
             datestr_type *date_str, int32_t uid) {
  mi_time(mi_session_current(), st, ticks, micro, clock, date, date_str, uid);
}
void MIGLOBON(status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t uid) {
  mi_globon(mi_session_current(), st, nums, stats, mapping, uid);
}
void MIGLOBGET(status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size, int32_t mapping, int32_t uid) {
  mi_globget(mi_session_current(), st, nums, buf, stats, size, mapping, uid);
}
void MIGLOBOFF(status_type *st, int32_t uid) { mi_globoff(mi_session_current(), st, uid); }
void MIPROCON(status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, longint_type *pid, int32_t uid) {
  mi_procon(mi_session_current(), st, nums, stats, mapping, pid, uid);
}
void MIPROCGET(status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size, int32_t mapping,
               longint_type *pid, int32_t *npids, int32_t *miproc_ptr, int32_t uid) {
  mi_procget(mi_session_current(), st, nums, buf, stats, size, mapping, pid, npids, miproc_ptr, uid);
}
void MIPROCOFF(status_type *st, longint_type *pid, int32_t uid) { mi_procoff(mi_session_current(), st, pid, uid); }
void MIIOON(status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t *ldev, int32_t uid) {
  mi_ioon(mi_session_current(), st, nums, stats, mapping, ldev, uid);
}
void MIIOGET(status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size, int32_t mapping, int32_t *ldev,
             int32_t *nldevs, int32_t uid) {
  mi_ioget(mi_session_current(), st, nums, buf, stats, size, mapping, ldev, nldevs, uid);
}
void MIIOOFF(status_type *st, int32_t *ldev, int32_t uid) { mi_iooff(mi_session_current(), st, ldev, uid); }
void MIPRCSRGET(status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size, int32_t mapping,
                int32_t *prcsr_id, int32_t *nprcsrs, int32_t uid) {
  mi_prcsrget(mi_session_current(), st, nums, buf, stats, size, mapping, prcsr_id, nprcsrs, uid);
}
void GETPRIVMODE(void) { mi_session_set_priv(mi_session_current(), 1); }
void GETUSERMODE(void) { mi_session_set_priv(mi_session_current(), 0); }
