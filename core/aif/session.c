/* session.c — MI callers: the handle-based caller object, the implicit current
 * caller of the upper-case API, privilege and access (AIFACCESSON/OFF,
 * AIFGLOBINSTALL), and the MI-user slots that ON calls take. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mi_internal.h"

/* Guards every system's session list and registry (per-process state several threads touch). */
static pthread_mutex_t sessions_mu = PTHREAD_MUTEX_INITIALIZER;

static _Thread_local mi_session *current;
static mi_session *default_session;

mi_session *mi_session_new(mi_system *sys) {
  if (!sys) sys = mi_default_system();
  if (!sys) return NULL;
  mi_session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->sys = sys;
  s->slot = -1;
  s->u = &s->local;
  pthread_mutex_lock(&sessions_mu);
  s->next = sys->sessions;
  if (sys->sessions) sys->sessions->prev = s;
  sys->sessions = s;
  pthread_mutex_unlock(&sessions_mu);
  return s;
}


void mi_session_free(mi_session *s) {
  if (!s) return;
  /* an attached caller whose store is gone or held too long leaves its record to the next
   * attach's reclaim (its process will be gone by then, or its record freed with its session) */
  if (s->slot >= 0 && !(s->sys->attached && mi_owner_check(s->sys)) && mi_wlock_bounded(s->sys) == 0) {
    s->u->udef_follow = 0;
    mi_globoff_all(s);
    mi_procoff_all(s);
    mi_iooff_all(s);
    if (s->slot >= 0) mi_user_release_if_idle(s);   /* a follower with nothing on yet holds its record too */
    mi_wunlock(s->sys);
  }
  pthread_mutex_lock(&sessions_mu);
  if (s->prev) s->prev->next = s->next;
  else if (s->sys->sessions == s) s->sys->sessions = s->next;
  if (s->next) s->next->prev = s->prev;
  pthread_mutex_unlock(&sessions_mu);
  if (current == s) current = NULL;
  if (default_session == s) default_session = NULL;
  if (s->sys->collector == s) s->sys->collector = NULL;
  mi_glob_cache_free(s->gcache);
  mi_ra_free(s->ra);
  free(s->ro);
  free(s);
}

mi_session *mi_session_use(mi_session *s) {
  mi_session *prev = current;
  current = s;
  return prev;
}

mi_session *mi_session_current(void) {
  if (current) return current;
  if (!default_session) default_session = mi_session_new(NULL);
  return default_session;
}

mi_system *mi_session_system(const mi_session *s) { return s ? s->sys : NULL; }

void mi_session_set_priv(mi_session *s, int on) { if (s) s->priv = on != 0; }

/* Takes an MI-user record for s if it has none (in a write section); 0 or -20002. */
int mi_user_take(mi_session *s) {
  if (s->slot >= 0) return 0;
  mi_system *sys = s->sys;
  if (sys->readonly) return 0;   /* its record is `local`, in this process: the store's slots are the writers' */
  mi_seg *g = sys->seg;
  int used = 0, free_slot = -1;
  for (int pass = 0; pass < 2; pass++) {
    used = 0; free_slot = -1;
    for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
      if (g->users[i].used) used++;
      else if (free_slot < 0) free_slot = i;
    }
    if (used < g->max_users && free_slot >= 0) break;
    if (pass == 0) mi_reclaim_users(sys);   /* full: records of dead processes come back first */
  }
  if (used >= g->max_users || free_slot < 0) return MI_E_TOO_MANY_USERS;
  mi_urec *u = &g->users[free_slot];
  memset(u, 0, sizeof *u);   /* nobody reads a free record */
  u->used = 1;
  u->owner_pid = (int32_t)getpid();
  u->owner_start = mi_proc_start_time(getpid());
  s->slot = free_slot;
  s->u = u;
  return 0;
}

/* Gives the MI-user record back once s has nothing on, and lets the store shrink. */
void mi_user_release_if_idle(mi_session *s) {
  mi_system *sys = s->sys;
  if (sys->readonly) {   /* a private record: forgotten once nothing is on; the store is not ours to shrink */
    if (!s->u->glob_on && !s->u->proc_on && !s->u->io_on) memset(&s->local, 0, sizeof s->local);
    return;
  }
  if (s->slot >= 0 && !s->u->glob_on && !s->u->proc_on && !s->u->io_on && !s->u->udef_follow) {
    s->u->used = 0;
    s->slot = -1;
    s->u = &s->local;
    memset(&s->local, 0, sizeof s->local);
  }
  mi_store_reset_if_idle(sys);
}

int mi_session_follow_udefs(mi_session *s, int from) {
  if (!s) return MI_E_BAD_POINTER;
  if (s->sys->readonly) return MI_E_STORE_READONLY;   /* an install enables it for followers in the store */
  int rc = mi_wlock_bounded(s->sys);
  if (rc) return rc;
  rc = mi_user_take(s);
  if (!rc) {
    s->u->udef_follow = 1;
    mi_seg *g = s->sys->seg;
    for (int k = from < 0 ? 0 : from; k < g->udef_n; k++) mi_udef_follow_installed(s->sys, g->udef[k].domain, g->udef[k].index);
  }
  mi_wunlock(s->sys);
  return rc;
}

/* The store's hook for a user record whose process is gone (slot, in a write section): turns
 * off what it had on, as its own session would; 0, or -1 if out of memory. */
static int user_off(mi_system *sys, int slot) {
  mi_session *t = calloc(1, sizeof *t);
  if (!t) return -1;
  t->sys = sys; t->slot = slot; t->u = &sys->seg->users[slot];
  mi_globoff_all(t);
  mi_procoff_all(t);
  mi_iooff_all(t);
  free(t);
  return 0;
}

/* What the store asks of this room (core/store/users.c): installed before main, so a store made
 * or attached by any program that links the AIFs can free its sessions and reclaim dead users. */
static const mi_store_upcalls aif_upcalls = {mi_session_free, user_off};
__attribute__((constructor)) static void install_upcalls(void) { mi_store_set_upcalls(&aif_upcalls); }

/* The checks every AIF makes first: a caller, privileged mode, a valid user ID. */
int mi_enter(mi_session *s, int32_t user_id) {
  if (!s) return MI_E_INTERNAL_NO_CALLER;
  if (!s->priv) return MI_E_CAPABILITY;
  if (s->sys->shared) {   /* attached: the owner lives; any shared store: its file did not shrink */
    int rc = mi_owner_check(s->sys);
    if (rc) return rc;
  }
  if (user_id != 0) {
    if (user_id == s->ok_uid) return 0;
    pthread_mutex_lock(&sessions_mu);
    int ok = mi_registry_has(s->sys, user_id);
    pthread_mutex_unlock(&sessions_mu);
    if (!ok) return MI_E_NO_SUCH_USER_ID;
    s->ok_uid = user_id;
    return 0;
  }
  return s->access_uid ? 0 : MI_E_CAPABILITY;
}

/* The checks AIFACCESSON and AIFGLOBINSTALL make before the registry: a caller in privileged
 * mode on a system whose owner is alive; 0 or a status. */
static int enter_registry(mi_session *s) {
  if (!s) return MI_E_INTERNAL_NO_CALLER;
  if (!s->priv) return MI_E_CAPABILITY;
  return mi_owner_check(s->sys);
}

void mi_accesson(mi_session *s, status_type *st, int32_t user_id) {
  if (!st) return;
  int rc = enter_registry(s);
  if (rc) { MI_STATUS(st, rc); return; }
  pthread_mutex_lock(&sessions_mu);
  int ok = user_id != 0 && mi_registry_has(s->sys, user_id);
  pthread_mutex_unlock(&sessions_mu);
  if (!ok) { MI_STATUS(st, MI_E_NO_SUCH_USER_ID); return; }
  s->access_uid = user_id;
  MI_STATUS(st, 0);
}

void mi_accessoff(mi_session *s, status_type *st, int32_t user_id) {
  if (!st) return;
  if (!s) { MI_STATUS(st, MI_E_INTERNAL_NO_CALLER); return; }
  if (!s->priv) { MI_STATUS(st, MI_E_CAPABILITY); return; }
  if (user_id == 0 || user_id != s->access_uid) { MI_STATUS(st, MI_E_NO_SUCH_USER_ID); return; }
  s->access_uid = 0;
  MI_STATUS(st, 0);
}

void mi_globinstall(mi_session *s, status_type *st, int32_t user_id) {
  if (!st) return;
  int rc = enter_registry(s);
  if (rc) { MI_STATUS(st, rc); return; }
  pthread_mutex_lock(&sessions_mu);
  rc = mi_registry_add(s->sys, user_id);
  pthread_mutex_unlock(&sessions_mu);
  MI_STATUS(st, rc);
}
