/* session.c — MI callers: the handle-based caller object, the implicit current
 * caller of the upper-case API, privilege and access (AIFACCESSON/OFF,
 * AIFGLOBINSTALL), and the MI-user slots that ON calls take. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"

static _Thread_local mi_session *current;
static mi_session *default_session;

mi_session *mi_session_new(mi_system *sys) {
  if (!sys) sys = mi_default_system();
  if (!sys) return NULL;
  mi_session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->sys = sys;
  s->slot = -1;
  s->next = sys->sessions;
  if (sys->sessions) sys->sessions->prev = s;
  sys->sessions = s;
  size_t g = (size_t)(mi_domain_counters(MI_DOM_GLOBAL) + 63) / 64;
  size_t p = (size_t)(mi_domain_counters(MI_DOM_PROCESS) + 63) / 64;
  size_t i = (size_t)(mi_domain_counters(MI_DOM_IO) + 63) / 64;
  s->glob_en = calloc(g, 8);
  s->proc_en = calloc(p, 8);
  s->io_en = calloc(i, 8);
  s->proc_items = malloc(sizeof(int16_t) * (size_t)mi_domain_counters(MI_DOM_PROCESS));
  s->io_items = malloc(sizeof(int16_t) * (size_t)mi_domain_counters(MI_DOM_IO));
  if (!s->glob_en || !s->proc_en || !s->io_en || !s->proc_items || !s->io_items) {
    mi_session_free(s);
    return NULL;
  }
  return s;
}


void mi_session_free(mi_session *s) {
  if (!s) return;
  if (s->slot >= 0) {
    mi_globoff_all(s);
    mi_procoff_all(s);
    mi_iooff_all(s);
  }
  if (s->prev) s->prev->next = s->next;
  else if (s->sys->sessions == s) s->sys->sessions = s->next;
  if (s->next) s->next->prev = s->prev;
  if (current == s) current = NULL;
  if (default_session == s) default_session = NULL;
  mi_glob_cache_free(s->gcache);
  free(s->glob_en); free(s->proc_en); free(s->io_en); free(s->proc_items); free(s->io_items);
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

/* Takes an MI-user slot for s if it has none; 0 or -20002. */
int mi_user_take(mi_session *s) {
  if (s->slot >= 0) return 0;
  mi_system *sys = s->sys;
  int used = 0, free_slot = -1;
  for (int i = 0; i < MI_MAX_USERS_LIMIT; i++) {
    if (sys->users[i]) used++;
    else if (free_slot < 0) free_slot = i;
  }
  if (used >= sys->opt.max_users || free_slot < 0) return MI_E_TOO_MANY_USERS;
  sys->users[free_slot] = s;
  s->slot = free_slot;
  return 0;
}

/* Gives the MI-user slot back once s has nothing on, and lets the store shrink. */
void mi_user_release_if_idle(mi_session *s) {
  mi_system *sys = s->sys;
  if (s->slot >= 0 && !s->glob_on && !s->proc_on && !s->io_on) {
    sys->users[s->slot] = NULL;
    s->slot = -1;
  }
  mi_store_reset_if_idle(sys);
}

/* The checks every AIF makes first: a caller, privileged mode, a valid user ID. */
int mi_enter(mi_session *s, int32_t user_id) {
  if (!s) return MI_E_INTERNAL_NO_CALLER;
  if (!s->priv) return MI_E_CAPABILITY;
  if (user_id != 0) {
    if (user_id == s->ok_uid) return 0;
    if (!mi_registry_has(s->sys, user_id)) return MI_E_NO_SUCH_USER_ID;
    s->ok_uid = user_id;
    return 0;
  }
  return s->access_uid ? 0 : MI_E_CAPABILITY;
}

void mi_accesson(mi_session *s, status_type *st, int32_t user_id) {
  if (!st) return;
  if (!s) { MI_STATUS(st, MI_E_INTERNAL_NO_CALLER); return; }
  if (!s->priv) { MI_STATUS(st, MI_E_CAPABILITY); return; }
  if (user_id == 0 || !mi_registry_has(s->sys, user_id)) { MI_STATUS(st, MI_E_NO_SUCH_USER_ID); return; }
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
  if (!s) { MI_STATUS(st, MI_E_INTERNAL_NO_CALLER); return; }
  if (!s->priv) { MI_STATUS(st, MI_E_CAPABILITY); return; }
  MI_STATUS(st, mi_registry_add(s->sys, user_id));
}
