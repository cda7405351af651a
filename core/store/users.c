/* users.c — the MI-user records in the segment as the store keeps them: an LDEV leaving every
 * user's set, and the records of readers whose process died (the store asks the AIF room, through
 * the hooks it installed, to turn off what such a reader had on). */
#include <stdlib.h>
#include <unistd.h>
#include "mi_internal.h"

static const mi_store_upcalls *up;

void mi_store_set_upcalls(const mi_store_upcalls *u) { up = u; }

/* Removes one LDEV from user record u's device set and gives back its MI device table reference. */
void mi_user_drop_ldev(mi_seg *g, mi_urec *u, int ldev) {
  if (!mi_bit(u->ldevs, ldev)) return;
  mi_bit_clr(u->ldevs, ldev);
  u->nldevs--;
  if (g->ldev_refs[ldev] && !--g->ldev_refs[ldev]) g->ldevs_enabled--;
}

/* An LDEV was removed or changed type (in a write section): it leaves every MI user's set
 * (any process's) and the MI device table. */
void mi_io_forget_ldev(mi_system *sys, int ldev) {
  mi_seg *g = sys->seg;
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++)
    if (g->users[i].used) mi_user_drop_ldev(g, &g->users[i], ldev);
}

void mi_store_free_sessions(mi_system *sys) {
  while (sys->sessions && up && up->session_free) up->session_free(sys->sessions);
}

void mi_reclaim_users(mi_system *sys) {
  if (!up || !up->user_off) return;   /* no AIF in this program: no user record was taken here */
  mi_seg *g = sys->seg;
  if (mi_wlock_bounded(sys)) return;   /* busy: the next attach or ON reclaims them */
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
    mi_urec *u = &g->users[i];
    if (!u->used || u->owner_pid == (int32_t)getpid() || mi_pid_alive(u->owner_pid, u->owner_start)) continue;
    if (up->user_off(sys, i)) break;   /* its process is gone: off what it had on, as its session would */
    u->used = 0;
  }
  mi_wunlock(sys);
}
