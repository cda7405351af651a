/* mi_aif.c — mi.core's AIF calls one to one: item-number arrays in; overall status, item
 * statuses and decoded values out (ON, GET, OFF of each domain, selection and read-active,
 * the configuration's GET and PUT, the time), and the GET buffers the reads share. */
#include "mi_lua_int.h"

/* Returns a buffer of at least n bytes (8-aligned): sb if it is big enough, else the cached
 * userdata in user value BUF_UV of the session (or query) at ses, grown as needed, left on
 * the stack at *idx (0 for sb). */
uint8_t *mil_get_buffer(lua_State *L, int ses, size_t n, stackbuf *sb, int *idx) {
  *idx = 0;
  if (n <= STACK_BUF) return sb->b;
  int uv = BUF_UV(L, ses);
  if (lua_getiuservalue(L, ses, uv) == LUA_TUSERDATA) {
    size_t have = lua_rawlen(L, -1);
    if (have >= n && have / 4 <= n) {   /* big enough, and not far too big */
      lua_pushnil(L);
      lua_setiuservalue(L, ses, uv);
      *idx = lua_gettop(L);
      return lua_touserdata(L, -1);
    }
  }
  lua_pop(L, 1);
  uint8_t *b = lua_newuserdatauv(L, n, 0);
  *idx = lua_gettop(L);
  return b;
}

/* Puts the buffer at idx back as the session's cached buffer. */
void mil_put_buffer(lua_State *L, int ses, int idx) {
  if (!idx) return;
  lua_pushvalue(L, idx);
  lua_setiuservalue(L, ses, BUF_UV(L, ses));
}

/* session:priv(on): GETPRIVMODE / GETUSERMODE for this caller. */
int mil_ses_priv(lua_State *L) {
  mi_session_set_priv(mil_checkses(L, 1)->s, lua_toboolean(L, 2));
  return 0;
}

/* Reads an item list (array of integer numbers) at i into nums (zero-terminated); returns n.
 * The list's raw length counts (a __len metamethod is not asked), at most MI_MAX_ITEMS - 1. */
int mil_get_items(lua_State *L, int i, int32_t *nums) {
  luaL_checktype(L, i, LUA_TTABLE);
  size_t len = lua_rawlen(L, i);
  if (len >= MI_MAX_ITEMS) luaL_argerror(L, i, lua_pushfstring(L, "too many items (%d; at most %d)", (int)(len > INT32_MAX ? INT32_MAX : len), MI_MAX_ITEMS - 1));
  int n = (int)len;
  for (int k = 1; k <= n; k++) {
    int ok = 0;
    lua_Integer v = 0;
    if (lua_rawgeti(L, i, k) == LUA_TNUMBER) v = lua_tointegerx(L, -1, &ok);
    if (!ok || v < INT32_MIN || v > INT32_MAX)
      luaL_argerror(L, i, lua_pushfstring(L, "item %d is not a 32-bit integer (got %s)", k, luaL_typename(L, -1)));
    nums[k - 1] = (int32_t)v;
    lua_pop(L, 1);
  }
  nums[n] = 0;
  return n;
}

/* mil_get_items, and the item statuses zeroed for them: a call that fails before it checks its
 * items writes none, and Lua must not see what the buffer held. */
static int get_items_st(lua_State *L, int i, int32_t *nums, int32_t *stats) {
  int n = mil_get_items(L, i, nums);
  memset(stats, 0, sizeof(int32_t) * (size_t)n);
  return n;
}

/* Pushes the statuses array of n entries. */
void mil_push_statuses(lua_State *L, const int32_t *st, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) { lua_pushinteger(L, st[k]); lua_rawseti(L, -2, k + 1); }
}

/* Pushes what an ON returns to Lua: the overall status, the item statuses, the mapping; 3. */
static int push_on(lua_State *L, status_type st, const int32_t *stats, int n, int32_t map) {
  lua_pushinteger(L, mi_status_info(st));
  mil_push_statuses(L, stats, n);
  lua_pushinteger(L, map);
  return 3;
}


/* Resolves the buffer slots of a GET's items in domain d at a mapping exactly as the core's
 * GETs do (core/DECISIONS.md decision 11): an unknown item, an item of another domain and a
 * pseudo item in the global domain keep a 4-byte zero slot (it NULL). Returns the record size. */
static size_t plan_slots(mi_system *sys, const int32_t *nums, int n, int d, int mapping, slot *sl) {
  size_t rec = 0;
  for (int k = 0; k < n; k++) {
    const mi_item_info *it = mi_sys_item(sys, nums[k]);   /* user-defined counters too */
    if (it && (it->domain != d || (it->kind == MI_KIND_PSEUDO && d == MI_DOM_GLOBAL))) it = NULL;
    int32_t sz = mi_item_size(it, mapping);
    if (sz < 4) { it = NULL; sz = 4; }   /* a mapping out of 0-2: the core writes nothing */
    sl[k].it = it;
    sl[k].size = sz;
    rec += (size_t)sz;
  }
  return rec;
}

/* Decodes the value in slot sl at p and pushes it (an invalid item's zero slot as 0). */
void mil_push_value(lua_State *L, const slot *sl, const uint8_t *p) {
  const mi_item_info *it = sl->it;
  int32_t v;
  char text[32];
  if (!it) { memcpy(&v, p, 4); lua_pushinteger(L, v); return; }
  switch (it->type) {
  case MI_TYPE_I64: { longint_type l; memcpy(&l, p, 8); lua_pushinteger(L, mi_longint_get(&l)); break; }
  case MI_TYPE_FILENAME: {   /* FILE.GROUP.ACCOUNT without the blank padding */
    filename_type f;
    memcpy(&f, p, sizeof f);
    char out[3 * 16 + 2];
    size_t k = 0;
    const char *part[3] = {f.filename, f.group, f.account};
    for (int j = 0; j < 3; j++) {
      size_t l = 16;
      for (uint64_t w; l >= 8; l -= 8) {   /* whole words of padding first (MPE names are short) */
        memcpy(&w, part[j] + l - 8, 8);
        if (w != 0x2020202020202020ull && w != 0) break;
      }
      while (l && (part[j][l - 1] == ' ' || part[j][l - 1] == 0)) l--;
      if (j && l) out[k++] = '.';
      memcpy(out + k, part[j], l);
      k += l;
    }
    lua_pushlstring(L, out, k);
    break;
  }
  case MI_TYPE_CLOCK: {   /* lua_pushfstring has no widths: format here */
    clock_type c; memcpy(&c, p, 4);
    snprintf(text, sizeof text, "%02d:%02d:%02d.%d", c.hour, c.min, c.sec, c.ten_sec);
    lua_pushstring(L, text);
    break;
  }
  case MI_TYPE_CALENDAR: {
    uint32_t c; memcpy(&c, p, 4);
    if (c) snprintf(text, sizeof text, "%d-%03d", MI_CAL_YEAR(c), MI_CAL_YDAY(c)); else text[0] = 0;
    lua_pushstring(L, text);
    break;
  }
  case MI_TYPE_JSNUM: { jsnum_type j; memcpy(&j, p, 4);
    if (MI_JS_TYPE(j)) {   /* "#S12" / "#J7" */
      char d[8];
      int num = MI_JS_NUM(j), k = 0, len = 0;
      do { d[k++] = (char)('0' + num % 10); num /= 10; } while (num);
      text[len++] = '#';
      text[len++] = MI_JS_TYPE(j) == MI_JS_JOB ? 'J' : 'S';
      while (k) text[len++] = d[--k];
      lua_pushlstring(L, text, (size_t)len);
    } else lua_pushliteral(L, "");
    break; }
  case MI_TYPE_I32A: {
    int n = sl->size / 4;
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) { memcpy(&v, p + 4 * k, 4); lua_pushinteger(L, v); lua_rawseti(L, -2, k + 1); }
    break;
  }
  default: memcpy(&v, p, 4); lua_pushinteger(L, v);
  }
}

/* Pushes one record (array of values in item order) decoded from p; returns the next record. */
static const uint8_t *push_record(lua_State *L, const slot *sl, int n, const uint8_t *p) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) { mil_push_value(L, &sl[k], p); p += sl[k].size; lua_rawseti(L, -2, k + 1); }
  return p;
}

/* Checks a mapping argument: an integer 0-2 is passed through, anything else raises. */
int32_t mil_opt_int32(lua_State *L, int i, int32_t def) {
  lua_Integer v = luaL_optinteger(L, i, def);
  luaL_argcheck(L, v >= INT32_MIN && v <= INT32_MAX, i, "out of 32-bit range");
  return (int32_t)v;
}

/* core.accesson/accessoff/globinstall(session, user_id) -> overall */
static int l_accesson(lua_State *L) { status_type st; mi_accesson(mil_checkses(L, 1)->s, &st, mil_opt_int32(L, 2, 0)); lua_pushinteger(L, mi_status_info(st)); return 1; }
static int l_accessoff(lua_State *L) { status_type st; mi_accessoff(mil_checkses(L, 1)->s, &st, mil_opt_int32(L, 2, 0)); lua_pushinteger(L, mi_status_info(st)); return 1; }
static int l_globinstall(lua_State *L) { status_type st; mi_globinstall(mil_checkses(L, 1)->s, &st, mil_opt_int32(L, 2, 0)); lua_pushinteger(L, mi_status_info(st)); return 1; }

/* core.globon(session, items, mapping, user_id) -> overall, statuses, mapping */
static int l_globon(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = mil_opt_int32(L, 3, 1);
  status_type st;
  mi_globon(u->s, &st, nums, stats, &map, mil_opt_int32(L, 4, 0));
  return push_on(L, st, stats, n, map);
}

/* core.globget(session, items, mapping, user_id) -> overall, statuses, values */
static int l_globget(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  slot sl[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = mil_opt_int32(L, 3, 1), uid = mil_opt_int32(L, 4, 0);
  size_t sz = plan_slots(u->sys ? u->sys->sys : NULL, nums, n, MI_DOM_GLOBAL, map, sl);   /* at most 1023 x 2880 bytes */
  stackbuf sb;
  int bi;
  uint8_t *buf = mil_get_buffer(L, 1, sz, &sb, &bi);
  status_type st;
  mi_globget(u->s, &st, nums, buf, stats, (int32_t)sz, map, uid);
  int code = mi_status_info(st);
  lua_pushinteger(L, code);
  mil_push_statuses(L, stats, n);
  if (st.all == 0 || code > 0) push_record(L, sl, n, buf); else lua_pushnil(L);
  mil_put_buffer(L, 1, bi);
  return 3;
}

/* core.globoff(session, user_id) -> overall */
static int l_globoff(lua_State *L) { status_type st; mi_globoff(mil_checkses(L, 1)->s, &st, mil_opt_int32(L, 2, 0)); lua_pushinteger(L, mi_status_info(st)); return 1; }

/* Reads an optional pid argument; returns 1 and fills l if given. */
static int opt_pid(lua_State *L, int i, longint_type *l) {
  if (lua_isnoneornil(L, i)) return 0;
  mi_longint_set(l, luaL_checkinteger(L, i));
  return 1;
}

/* core.procon(session, items, mapping, pid, user_id) -> overall, statuses, mapping */
static int l_procon(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = mil_opt_int32(L, 3, 1);
  longint_type pid; int has = opt_pid(L, 4, &pid);
  status_type st;
  mi_procon(u->s, &st, nums, stats, &map, has ? &pid : NULL, mil_opt_int32(L, 5, 0));
  return push_on(L, st, stats, n, map);
}

/* Records a multi-record GET makes room for when the caller names no count: one for one
 * entity; the processors there can be; the configured LDEVs of the selection; for all
 * processes the live ones plus as many as this session's last such GET returned (dead ones
 * waiting to be reported) plus some births. */
static size_t room_for(const lses *u, int kind, int one, int32_t sel) {
  mi_system *sys = mi_session_system(u->s);
  size_t want;
  if (one) return 1;
  if (kind == 2) return MI_MAX_PROCESSORS;
  if (kind == 1) {
    int bits = sel == -1 ? 0x7FE : sel <= -2 && sel >= -11 ? 1 << (-sel - 1) : 0;
    want = 0;
    for (int l = 1; l <= MI_MAX_LDEV; l++) want += (size_t)(bits >> mi_host_device(sys, l) & 1);
    return want ? want : 1;
  }
  want = (size_t)mi_host_proc_count(sys) + (size_t)u->procs_seen + 64;
  return want < MI_MAX_PROCESSES ? want : MI_MAX_PROCESSES;
}

/* Multi-record GET shared by process (kind 0), I/O (1) and processor (2) calls. Without a
 * record count the buffer holds room_for records (an I/O GET grows it on -20015: it has
 * nothing to lose); with one, exactly that many (the literal call: -20015 comes back with the
 * records that fitted; the dead-process reports among them are delivered). */
static int multi_get(lua_State *L, int kind) {
  lses *u = mil_checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  slot sl[MI_MAX_ITEMS];
  int n = mil_get_items(L, 2, nums);
  int32_t map = mil_opt_int32(L, 3, 1), sel = -1;
  longint_type pid;
  int has = 0;
  if (kind == 0) has = opt_pid(L, 4, &pid); else sel = mil_opt_int32(L, 4, -1);
  int one = kind == 0 ? has && mi_longint_get(&pid) != -1 : sel >= (kind == 1 ? 1 : 0);   /* pid -1 = all */
  int32_t uid = mil_opt_int32(L, 5, 0);
  int literal = !lua_isnoneornil(L, 6);
  lua_Integer maxrec = literal ? luaL_checkinteger(L, 6) : 0;
  luaL_argcheck(L, maxrec >= 0 && maxrec <= MI_MAX_PROCESSES, 6, "record count must be in 0..2700");
  int d = kind == 0 ? MI_DOM_PROCESS : kind == 1 ? MI_DOM_IO : MI_DOM_PROCESSOR;
  memset(stats, 0, sizeof(int32_t) * (size_t)n);   /* a GET failing before it plans writes none */
  size_t rec = plan_slots(u->sys ? u->sys->sys : NULL, nums, n, d, map, sl);
  size_t want = literal ? (size_t)maxrec : room_for(u, kind, one, sel);
  if (rec && want > INT32_MAX / rec) {
    luaL_argcheck(L, !literal, 6, "records too large for one buffer");
    want = INT32_MAX / rec;   /* the core says -20015 if they do not fit */
  }
  stackbuf sb;
  int bi;
  status_type st;
  int32_t count, key = 0;
  uint8_t *buf;
  for (;;) {
    size_t sz = rec * want;
    buf = mil_get_buffer(L, 1, sz, &sb, &bi);
    count = 0;
    if (kind == 0)
      mi_procget(u->s, &st, nums, buf, stats, (int32_t)sz, map, has ? &pid : NULL, &count, &key, uid);
    else if (kind == 1)
      mi_ioget(u->s, &st, nums, buf, stats, (int32_t)sz, map, &sel, &count, uid);
    else
      mi_prcsrget(u->s, &st, nums, buf, stats, (int32_t)sz, map, &sel, &count, uid);
    if (kind != 1 || literal || mi_status_info(st) != MI_E_BUFFER_PARTIAL || want >= MI_MAX_LDEV) break;
    want = want * 2 < MI_MAX_LDEV ? want * 2 : MI_MAX_LDEV;
    if (bi) lua_pop(L, 1);   /* a bigger one next time round */
  }
  /* never read past what the core wrote: count records of exactly rec bytes */
  if (count < 0 || (rec && (size_t)count > want)) count = 0;
  if (kind == 0 && !one) u->procs_seen = count;
  int code = mi_status_info(st);
  lua_pushinteger(L, code);
  mil_push_statuses(L, stats, n);
  lua_createtable(L, count, 0);
  const uint8_t *p = buf;
  for (int r = 0; r < count; r++) { p = push_record(L, sl, n, p); lua_rawseti(L, -2, r + 1); }
  mil_put_buffer(L, 1, bi);
  return 3;
}

/* core.procget(session, items, mapping, pid, user_id [, maxrecords]) -> overall, statuses, records */
static int l_procget(lua_State *L) { return multi_get(L, 0); }
/* core.ioget(session, items, mapping, ldev, user_id [, maxrecords]) -> overall, statuses, records */
static int l_ioget(lua_State *L) { return multi_get(L, 1); }
/* core.prcsrget(session, items, mapping, prcsr_id, user_id [, maxrecords]) -> overall, statuses, records */
static int l_prcsrget(lua_State *L) { return multi_get(L, 2); }


/* core.procoff(session, pid, user_id) -> overall */
static int l_procoff(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  longint_type pid; int has = opt_pid(L, 2, &pid);
  status_type st;
  mi_procoff(u->s, &st, has ? &pid : NULL, mil_opt_int32(L, 3, 0));
  lua_pushinteger(L, mi_status_info(st));
  return 1;
}

/* ---- entity selection and read-active (issue 14, mi_select.h) ---- */

/* Raises "<list>[k].<field>: ..." (no position: the Lua layer adds the caller's). */
static int sel_error(lua_State *L, const char *list, int k, const char *field, const char *msg) {
  if (field) lua_pushfstring(L, "%s[%d].%s: %s", list, k, field, msg);
  else lua_pushfstring(L, "%s[%d]: %s", list, k, msg);
  return lua_error(L);
}

/* Reads an integer field value at the top of the stack; raises naming it. */
static lua_Integer sel_int(lua_State *L, const char *list, int k, const char *field, lua_Integer lo, lua_Integer hi) {
  int ok = 0;
  lua_Integer v = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &ok) : 0;
  if (!ok) sel_error(L, list, k, field, lua_pushfstring(L, "integer expected, got %s", luaL_typename(L, -1)));
  if (v < lo || v > hi) sel_error(L, list, k, field, lua_pushfstring(L, "%I out of range %I-%I", v, lo, hi));
  return v;
}

/* Reads the string field value at the top of the stack; raises naming it. */
static const char *sel_str(lua_State *L, const char *list, int k, const char *field) {
  if (lua_type(L, -1) != LUA_TSTRING) sel_error(L, list, k, field, lua_pushfstring(L, "string expected, got %s", luaL_typename(L, -1)));
  return lua_tostring(L, -1);
}

/* Fills d from the descriptor table at index t (entry k of list `list`, an exclude if sign < 0)
 * for entities of kind (MI_SEL_PROCESS or MI_SEL_LDEV); raises naming the descriptor and field. */
static void sel_desc(lua_State *L, int t, const char *list, int k, int kind, int sign, mi_entity_desc *d) {
  static const char *const ptypes[] = {"system", "jsmain", "ci", "user", "son", NULL};
  static const char *const jskinds[] = {"none", "session", "job", NULL};
  if (lua_type(L, t) != LUA_TTABLE) sel_error(L, list, k, NULL, lua_pushfstring(L, "descriptor table expected, got %s", luaL_typename(L, t)));
  mi_sel_init(d, sign * kind);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    const char *f = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!f) sel_error(L, list, k, NULL, lua_pushfstring(L, "field names are strings (got a %s key)", luaL_typename(L, -2)));
    if (kind == MI_SEL_PROCESS && !strcmp(f, "pid")) d->pid = sel_int(L, list, k, f, 1, INT64_MAX);
    else if (kind == MI_SEL_PROCESS && (!strcmp(f, "program") || !strcmp(f, "user"))) {
      size_t len;
      const char *v = sel_str(L, list, k, f);
      len = lua_rawlen(L, -1);
      if (len >= MI_SEL_PATTERN) sel_error(L, list, k, f, lua_pushfstring(L, "pattern '%s' longer than %d characters", v, MI_SEL_PATTERN - 1));
      memcpy(*f == 'p' ? d->program : d->user, v, len + 1);
    } else if (kind == MI_SEL_PROCESS && (!strcmp(f, "session") || !strcmp(f, "job"))) {
      d->js_num = (int32_t)sel_int(L, list, k, f, 1, 16383);
      d->js_type = *f == 's' ? MI_SEL_JS_SESSION : MI_SEL_JS_JOB;
    } else if (kind == MI_SEL_PROCESS && (!strcmp(f, "type") || !strcmp(f, "js"))) {
      const char *const *names = *f == 't' ? ptypes : jskinds;
      const char *v = sel_str(L, list, k, f);
      int i = 0;
      while (names[i] && strcasecmp(names[i], v)) i++;
      if (!names[i]) sel_error(L, list, k, f, lua_pushfstring(L, "'%s' is not %s", v, *f == 't' ? "a process type (system, jsmain, ci, user, son)" : "a job/session kind (none, session, job)"));
      if (*f == 't') d->ptype = i; else d->js_type = i;
    } else if (kind == MI_SEL_LDEV && !strcmp(f, "ldev")) {
      lua_Integer lo = 0, hi = 0;
      if (lua_type(L, -1) == LUA_TSTRING) {
        const char *v = lua_tostring(L, -1);
        char tail;
        long long a, b;
        int m = sscanf(v, "%lld-%lld%c", &a, &b, &tail);
        if (m == 1 && sscanf(v, "%lld%c", &a, &tail) == 1) b = a, m = 2;
        if (m != 2) sel_error(L, list, k, f, lua_pushfstring(L, "'%s' is not an LDEV number or range 'lo-hi'", v));
        lo = a; hi = b;
      } else lo = hi = sel_int(L, list, k, f, INT32_MIN, INT32_MAX);
      if (lo < 1 || hi > MI_MAX_LDEV || lo > hi) sel_error(L, list, k, f, "not an LDEV or range within 1-999 (lo <= hi)");
      d->ldev_lo = (int32_t)lo; d->ldev_hi = (int32_t)hi;
    } else if (kind == MI_SEL_LDEV && !strcmp(f, "devtype")) {
      const char *v = sel_str(L, list, k, f);
      const mi_devtype_info *dt = mi_devtype_find(v);
      if (!dt) {   /* a plural: "disks" */
        char one[32];
        size_t n = strlen(v);
        if (n > 1 && n < sizeof one && v[n - 1] == 's') { memcpy(one, v, n - 1); one[n - 1] = 0; dt = mi_devtype_find(one); }
      }
      if (!dt) sel_error(L, list, k, f, lua_pushfstring(L, "'%s' is not a device type (disk, tape, terminal, ...)", v));
      d->devtype = dt->code;
    } else sel_error(L, list, k, NULL, lua_pushfstring(L, "unknown field '%s' of %s descriptor (%s)", f, kind == MI_SEL_PROCESS ? "a process" : "an LDEV",
                                                    kind == MI_SEL_PROCESS ? "pid, program, user, js, session, job, type" : "ldev, devtype"));
    lua_pop(L, 1);
  }
  const char *field = NULL, *why = NULL;
  if (mi_sel_check(d, 1, NULL, &field, &why)) {
    const char *lf = !strcmp(field, "ptype") ? "type" : !strcmp(field, "js_num") ? (d->js_type == MI_SEL_JS_JOB ? "job" : "session") : !strcmp(field, "js_type") ? "js" : field;
    const char *v = !strcmp(field, "program") ? d->program : !strcmp(field, "user") ? d->user : NULL;
    if (v) sel_error(L, list, k, lf, lua_pushfstring(L, "malformed pattern '%s' (%s)", v, why));
    sel_error(L, list, k, lf, why);
  }
}

/* Reads the include (index inc) and exclude (index exc) lists (nil or arrays of descriptor
 * tables) into d; returns the count. */
static int sel_list(lua_State *L, int inc, int exc, int kind, mi_entity_desc *d) {
  int n = 0;
  for (int pass = 0; pass < 2; pass++) {
    int i = pass ? exc : inc;
    const char *name = pass ? "exclude" : "include";
    if (lua_isnoneornil(L, i)) continue;
    if (lua_type(L, i) != LUA_TTABLE) { lua_pushfstring(L, "%s: a list of descriptor tables expected, got %s", name, luaL_typename(L, i)); lua_error(L); }
    size_t len = lua_rawlen(L, i);
    for (size_t k = 1; k <= len; k++) {
      if (n == MI_SEL_MAX) { lua_pushfstring(L, "%s: more than %d descriptors", name, MI_SEL_MAX); lua_error(L); }
      lua_rawgeti(L, i, (lua_Integer)k);
      sel_desc(L, lua_gettop(L), name, (int)k, kind, pass ? -1 : 1, &d[n++]);
      lua_pop(L, 1);
    }
  }
  return n;
}

/* core.proconsel / core.ioonsel(session, items, mapping, include, exclude [, user_id])
 * -> overall, statuses, mapping */
static int on_sel(lua_State *L, int kind) {
  lses *u = mil_checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = mil_opt_int32(L, 3, 1), uid = mil_opt_int32(L, 6, 0);
  mi_entity_desc d[MI_SEL_MAX];
  int nd = sel_list(L, 4, 5, kind, d);
  status_type st;
  if (kind == MI_SEL_PROCESS) mi_proconsel(u->s, &st, nums, stats, &map, d, nd, uid);
  else mi_ioonsel(u->s, &st, nums, stats, &map, d, nd, uid);
  return push_on(L, st, stats, n, map);
}
/* core.proconsel(session, items, mapping, include, exclude [, user_id]) -> overall, statuses, mapping (MIPROCONSEL). */
static int l_proconsel(lua_State *L) { return on_sel(L, MI_SEL_PROCESS); }
/* core.ioonsel(session, items, mapping, include, exclude [, user_id]) -> overall, statuses, mapping (MIIOONSEL). */
static int l_ioonsel(lua_State *L) { return on_sel(L, MI_SEL_LDEV); }

/* core.readactive(session, "process"|"ldev", items, mapping, "exact"|"list"|"changed", include,
 * exclude, max, context [, user_id]) -> overall, statuses, records (arrays of values in item
 * order), context (nil when the iteration is complete), flags (true = changed) */
static int l_readactive(lua_State *L) {
  static const char *const kinds[] = {"process", "ldev", NULL}, *const modes[] = {"exact", "list", "changed", NULL};
  lses *u = mil_checkses(L, 1);
  int kind = luaL_checkoption(L, 2, NULL, kinds) == 0 ? MI_SEL_PROCESS : MI_SEL_LDEV;
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  slot sl[MI_MAX_ITEMS];
  int n = mil_get_items(L, 3, nums);
  int32_t map = mil_opt_int32(L, 4, 1);
  int mode = luaL_checkoption(L, 5, "list", modes);
  mi_entity_desc d[MI_SEL_MAX];
  int nd = sel_list(L, 6, 7, kind, d);
  lua_Integer max = luaL_optinteger(L, 8, kind == MI_SEL_PROCESS ? MI_MAX_PROCESSES : MI_MAX_LDEV);
  luaL_argcheck(L, max >= 1 && max <= MI_MAX_PROCESSES, 8, "max must be in 1..2700");
  longint_type ctx;
  mi_longint_set(&ctx, luaL_optinteger(L, 9, 0));
  int32_t uid = mil_opt_int32(L, 10, 0);
  size_t rec = plan_slots(u->sys ? u->sys->sys : NULL, nums, n, kind == MI_SEL_PROCESS ? MI_DOM_PROCESS : MI_DOM_IO, map, sl);
  size_t want = (size_t)max;
  if (rec && want > INT32_MAX / rec) want = INT32_MAX / rec;
  stackbuf sb;
  int bi;
  uint8_t *buf = mil_get_buffer(L, 1, rec * want, &sb, &bi);
  int32_t *flags = lua_newuserdatauv(L, sizeof(int32_t) * want, 0), count = 0;
  status_type st;
  memset(stats, 0, sizeof(int32_t) * (size_t)n);
  mi_readactive(u->s, &st, nums, buf, stats, (int32_t)(rec * want), map, kind, mode, d, nd, &count, flags, &ctx, uid);
  if (count < 0 || (size_t)count > want) count = 0;
  lua_pushinteger(L, mi_status_info(st));
  mil_push_statuses(L, stats, n);
  lua_createtable(L, count, 0);
  const uint8_t *p = buf;
  for (int r = 0; r < count; r++) { p = push_record(L, sl, n, p); lua_rawseti(L, -2, r + 1); }
  if (mi_longint_get(&ctx) != 0 && count) lua_pushinteger(L, mi_longint_get(&ctx)); else lua_pushnil(L);
  lua_createtable(L, count, 0);
  for (int r = 0; r < count; r++) { lua_pushboolean(L, flags[r]); lua_rawseti(L, -2, r + 1); }
  if (bi) { lua_pushvalue(L, bi); lua_setiuservalue(L, 1, BUF_UV(L, 1)); }
  return 5;
}

/* core.ioon(session, items, mapping, ldev, user_id) -> overall, statuses, mapping */
static int l_ioon(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  int32_t map = mil_opt_int32(L, 3, 1), ldev = mil_opt_int32(L, 4, -1);
  status_type st;
  mi_ioon(u->s, &st, nums, stats, &map, &ldev, mil_opt_int32(L, 5, 0));
  return push_on(L, st, stats, n, map);
}

/* core.iooff(session, ldev, user_id) -> overall */
static int l_iooff(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  int32_t ldev = mil_opt_int32(L, 2, -1);
  status_type st;
  mi_iooff(u->s, &st, &ldev, mil_opt_int32(L, 3, 0));
  lua_pushinteger(L, mi_status_info(st));
  return 1;
}

/* Pushes a configuration value decoded from p. */
static void push_config(lua_State *L, const mi_config_info *c, const uint8_t *p) {
  int32_t v;
  switch (c->type) {
  case MI_CT_I32: memcpy(&v, p, 4); lua_pushinteger(L, v); break;
  case MI_CT_BOOL: lua_pushboolean(L, p[0] != 0); break;
  case MI_CT_CA8: lua_pushlstring(L, (const char *)p, 8); break;
  default: {
    int bits = c->type == MI_CT_BA96 ? 96 : 64;
    lua_newtable(L);
    for (int b = 0; b < bits; b++)
      if (p[b >> 3] & (0x80 >> (b & 7))) { lua_pushboolean(L, 1); lua_rawseti(L, -2, b); }
  }
  }
}

/* Encodes the Lua value at i for configuration item c into p; raises on a wrong type. */
static void to_config(lua_State *L, int i, const mi_config_info *c, uint8_t *p, const char *what) {
  memset(p, 0, 12);
  switch (c->type) {
  case MI_CT_I32: {
    int ok; lua_Integer v = lua_tointegerx(L, i, &ok);
    if (!ok || v < INT32_MIN || v > INT32_MAX) luaL_error(L, "%s: item %d (%s) needs a 32-bit integer", what, (int)c->item, c->name);
    int32_t w = (int32_t)v; memcpy(p, &w, 4);
    break;
  }
  case MI_CT_BOOL: p[0] = (uint8_t)lua_toboolean(L, i); break;
  case MI_CT_CA8: {
    size_t n; const char *s = lua_tolstring(L, i, &n);
    if (!s) luaL_error(L, "%s: item %d (%s) needs a string", what, (int)c->item, c->name);
    memset(p, ' ', 8); memcpy(p, s, n < 8 ? n : 8);
    break;
  }
  default: {
    int bits = c->type == MI_CT_BA96 ? 96 : 64;
    if (!lua_istable(L, i)) luaL_error(L, "%s: item %d (%s) needs a table of bit numbers", what, (int)c->item, c->name);
    for (int b = 0; b < bits; b++) {
      lua_rawgeti(L, i, b);
      if (lua_toboolean(L, -1)) p[b >> 3] |= (uint8_t)(0x80 >> (b & 7));
      lua_pop(L, 1);
    }
  }
  }
}

/* core.scget(session, items, user_id) -> overall, statuses, values */
static int l_scget(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS];
  int n = get_items_st(L, 2, nums, stats);
  uint8_t vals[MI_MAX_ITEMS][16];
  void *ptrs[MI_MAX_ITEMS];
  for (int k = 0; k < n; k++) ptrs[k] = vals[k];
  status_type st;
  mi_scget(u->s, &st, nums, ptrs, stats, mil_opt_int32(L, 3, 0));
  lua_pushinteger(L, mi_status_info(st));
  mil_push_statuses(L, stats, n);
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    const mi_config_info *c = mi_config_lookup(nums[k]);
    if (c && stats[k] == 0 && (st.all == 0 || mi_status_info(st) > 0)) push_config(L, c, vals[k]); else lua_pushboolean(L, 0);
    lua_rawseti(L, -2, k + 1);
  }
  return 3;
}

/* Reads the table at idx of n configuration values for items nums into vals (zeroed first),
 * pointed to by ptrs, as AIFSCPUT takes them; what names them in an error. */
static void config_values(lua_State *L, int idx, int n, const int32_t *nums, uint8_t vals[][16], void **ptrs,
                          const char *what) {
  luaL_checktype(L, idx, LUA_TTABLE);
  for (int k = 0; k < n; k++) {
    const mi_config_info *c = mi_config_lookup(nums[k]);
    ptrs[k] = vals[k];
    memset(vals[k], 0, sizeof vals[k]);
    lua_rawgeti(L, idx, k + 1);
    if (c) to_config(L, lua_gettop(L), c, vals[k], what);
    lua_pop(L, 1);
  }
}

/* core.scput(session, items, values, user_id [, ver_items, ver_values]) -> overall, statuses, ver_statuses */
static int l_scput(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  int32_t nums[MI_MAX_ITEMS], stats[MI_MAX_ITEMS], vnums[MI_MAX_ITEMS], vstats[MI_MAX_ITEMS];
  uint8_t vals[MI_MAX_ITEMS][16], vvals[MI_MAX_ITEMS][16];
  void *ptrs[MI_MAX_ITEMS], *vptrs[MI_MAX_ITEMS];
  int n = mil_get_items(L, 2, nums);
  config_values(L, 3, n, nums, vals, ptrs, "value");
  int nv = 0, ver = !lua_isnoneornil(L, 5);
  if (ver) {
    nv = mil_get_items(L, 5, vnums);
    config_values(L, 6, nv, vnums, vvals, vptrs, "expected value");
  }
  memset(stats, 0, sizeof(int32_t) * (size_t)n);   /* a call failing before it checks the items writes none */
  if (ver) memset(vstats, 0, sizeof(int32_t) * (size_t)nv);
  status_type st;
  mi_scput(u->s, &st, nums, ptrs, stats, mil_opt_int32(L, 4, 0), ver ? vnums : NULL, ver ? vptrs : NULL, ver ? vstats : NULL);
  lua_pushinteger(L, mi_status_info(st));
  mil_push_statuses(L, stats, n);
  if (ver) mil_push_statuses(L, vstats, nv); else lua_pushnil(L);
  return 3;
}

/* core.time(session, {ticks=|micro=}, user_id) -> overall, {hour,min,sec,tenths,year,month,day,month_name,weekday} */
static int l_time(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  longint_type t, m; int ht = 0, hm = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer v;
    if ((ht = mil_opt_field_int(L, 2, "ticks", LUA_MININTEGER, LUA_MAXINTEGER, &v))) mi_longint_set(&t, v);
    if ((hm = mil_opt_field_int(L, 2, "micro", LUA_MININTEGER, LUA_MAXINTEGER, &v))) mi_longint_set(&m, v);
  }
  clock_type c; date_type d; datestr_type ds;
  status_type st;
  mi_time(u->s, &st, ht ? &t : NULL, hm ? &m : NULL, &c, &d, &ds, mil_opt_int32(L, 3, 0));
  lua_pushinteger(L, mi_status_info(st));
  if (st.all != 0) { lua_pushnil(L); return 2; }
  lua_createtable(L, 0, 9);
  lua_pushinteger(L, c.hour); lua_setfield(L, -2, "hour");
  lua_pushinteger(L, c.min); lua_setfield(L, -2, "min");
  lua_pushinteger(L, c.sec); lua_setfield(L, -2, "sec");
  lua_pushinteger(L, c.ten_sec); lua_setfield(L, -2, "tenths");
  lua_pushinteger(L, d.year); lua_setfield(L, -2, "year");
  lua_pushinteger(L, d.month); lua_setfield(L, -2, "month");
  lua_pushinteger(L, d.day_of_month); lua_setfield(L, -2, "day");
  lua_pushlstring(L, ds.month_str, 3); lua_setfield(L, -2, "month_name");
  lua_pushlstring(L, ds.day_of_week, 3); lua_setfield(L, -2, "weekday");
  return 2;
}

static const luaL_Reg funcs[] = {
  {"accesson", l_accesson}, {"accessoff", l_accessoff}, {"globinstall", l_globinstall}, {"globon", l_globon}, {"globget", l_globget},
  {"globoff", l_globoff}, {"procon", l_procon}, {"proconsel", l_proconsel}, {"ioonsel", l_ioonsel}, {"readactive", l_readactive},
  {"procget", l_procget}, {"procoff", l_procoff}, {"ioon", l_ioon}, {"ioget", l_ioget}, {"iooff", l_iooff}, {"prcsrget", l_prcsrget},
  {"scget", l_scget}, {"scput", l_scput}, {"time", l_time}, {NULL, NULL}};

/* Adds the AIF calls to the module table at the top. */
void mil_open_aif(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
}
