/* mi_read.c — mi.core's prepared queries (core.query, q:get): records keyed by item name,
 * refilled in the caller's table or as columns, with the string values of a process
 * interned once per entity (#31.1). */
#include "mi_lua_int.h"

/* ---- prepared queries ---- */

/* A query userdata: the C query (NULL once closed), its domain and items, where in a record
 * the pid state (process) or the ldev (I/O) sits (-1: not asked), the slots of the items an
 * entity is known by (pid / ldev / processor id, and a process's start; -1: not asked), the
 * fields of a record, the string-valued items interned per entity (their slots, at most
 * MAX_STR) and their raw bytes, and each item's slot.
 * User value 1: the session userdata (kept alive, checked open before every run); 2: the
 * keys, {[i] = name or false} (the name of the first item of the domain with it); 3: a cached
 * GET buffer; 4: the records' metatable, whose __index maps an item number to its name's slot
 * (a record holds each value once, under its name, or under its number when it has none);
 * 5 and 6: the interned strings (an icache userdata and its strings table, taken out while a
 * read uses them); 7: the keys a record or a columns table of this query has ({[key] = true});
 * 8: its typed columns ({[key] = column}, refilled by each typed read, taken out meanwhile). */
typedef struct lqry {
  mi_query *q;
  int domain, n, nfields, nstr;
  int32_t state_at, ldev_at;
  int id_slot, start_slot;
  size_t strbytes;
  int16_t stri[16];
  slot sl[];
} lqry;
#define MAX_STR 16

/* The interned strings of a process query (#31.1): one entry per entity, found by its pid,
 * holding its identity (pid, start) and the raw bytes of its string-valued items (user and
 * program names, job number, times of day, dates); the strings decoded from them sit in a Lua
 * table at entry * nstr + j + 1. An entry is refreshed when the identity or any raw byte
 * differs, so a string is decoded once per entity and never carried to another. */
typedef struct icache { uint32_t cap, used; size_t esz; unsigned char e[]; } icache;
/* A cache entry's head (live 0: empty), followed by the raw bytes. */
typedef struct ientry { int64_t pid, start, live; } ientry;

/* The stack places of one read (qry_get): the keys at kbase.. (a name, or false for an item
 * keyed by number), the records' metatable at kbase + n, the keyset after it; state key and
 * values at kbase - 5 (process; "type" for I/O); the cache and its strings at kbase - 2, - 1;
 * the result, the old records by identity (into, made on the first mismatch) and the columns. */
typedef struct rdctx {
  lqry *qu;
  mi_system *sys;
  icache *ic;
  int kbase, res, byid, cbase, into, columns;
  lua_Integer oldlen;
  tcol **tc;   /* a typed read's columns (columns == 2), the extra one last */
} rdctx;
#define RD_MT(c) ((c)->kbase + (c)->qu->n)

/* Returns the open query at i with its session checked open (raises otherwise). */
static lqry *checkqry(lua_State *L, int i) {
  lqry *qu = luaL_checkudata(L, i, QRY_MT);
  if (!qu->q) luaL_argerror(L, i, "query is closed");
  lua_getiuservalue(L, i, 1);
  lses *u = lua_touserdata(L, -1);
  if (!u || !u->s) luaL_argerror(L, i, u && u->sys_closed ? "system is closed" : "session is closed");
  lua_pop(L, 1);
  return qu;
}

/* Returns the domain named (or numbered 0-3) by the argument at i; raises otherwise. */
int mil_check_domain(lua_State *L, int i) {
  static const char *const names[] = {"global", "process", "io", "processor", NULL};
  if (lua_type(L, i) == LUA_TNUMBER) {
    lua_Integer d = luaL_checkinteger(L, i);
    luaL_argcheck(L, d >= 0 && d < MI_DOM_COUNT, i, "domain must be 0-3");
    return (int)d;
  }
  return luaL_checkoption(L, i, NULL, names);
}

/* __index of a record: record[number] reads the value kept under that item's name. */
static int rec_index(lua_State *L) {
  if (!lua_isinteger(L, 2)) return 0;
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TSTRING) return 0;   /* the number's name */
  lua_rawget(L, 1);
  return 1;
}

/* Whether values of item type t are decoded to strings (interned per entity). */
static int string_type(int t) {
  return t == MI_TYPE_FILENAME || t == MI_TYPE_JSNUM || t == MI_TYPE_CLOCK || t == MI_TYPE_CALENDAR;
}

/* Resolves slot i of a new query: its item, size and offset; whether it is keyed by its name
 * (the first item of that name; "names seen" table at -1, the __index map at map); whether it
 * is one an entity is known by, or a string to intern. */
static void query_slot(lua_State *L, lqry *qu, int i, int32_t at, int map) {
  const mi_item_info *it;
  int32_t size, num = mi_query_item(qu->q, i, &it, &size);
  slot *sl = &qu->sl[i];
  *sl = (slot){.it = it, .size = size, .num = num, .at = at, .str = -1};
  if (!it) return;
  sl->kind = it->type == MI_TYPE_I32 ? 0 : it->type == MI_TYPE_I64 && size == 8 ? 1 : 2;
  if (lua_getfield(L, -1, it->name) == LUA_TNIL) sl->named = 1;
  lua_pop(L, 1);
  if (num == 20002 && qu->state_at < 0) qu->state_at = at;
  if (num == 20020 && qu->ldev_at < 0) qu->ldev_at = at;
  if (sl->named) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, it->name);
    lua_pushstring(L, it->name);
    lua_rawseti(L, map, num);   /* number -> name for the records' __index */
  }
  int id = qu->domain == MI_DOM_PROCESS ? 20001 : qu->domain == MI_DOM_IO ? 20020 : qu->domain == MI_DOM_PROCESSOR ? 20040 : 0;
  if (id && num == id && qu->id_slot < 0 && size >= (id == 20001 ? 8 : 4)) qu->id_slot = i;
  if (num == 20005 && qu->start_slot < 0 && size == 8) qu->start_slot = i;
  if (qu->domain == MI_DOM_PROCESS && string_type(it->type) && qu->nstr < MAX_STR) {
    qu->stri[qu->nstr] = (int16_t)i;
    sl->str = (int16_t)qu->nstr++;
    sl->soff = (int32_t)qu->strbytes;
    qu->strbytes += (size_t)size;
  }
}

/* core.query(session, domain, items, mapping) -> a prepared read (domain "global", "process",
 * "io", "processor"): q:get([sel [, user_id [, quiet [, into [, columns]]]]]) runs it; q:close() frees it. */
static int l_query(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  int d = mil_check_domain(L, 2);
  int32_t nums[MI_MAX_ITEMS];
  int n = mil_get_items(L, 3, nums);
  int32_t map = mil_opt_int32(L, 4, 1);
  lqry *qu = lua_newuserdatauv(L, sizeof *qu + sizeof(slot) * (size_t)n, 8);
  memset(qu, 0, sizeof *qu);
  luaL_setmetatable(L, QRY_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  qu->q = mi_query_new(u->s, d, nums, n, map);
  if (!qu->q) return luaL_error(L, "cannot create a query");
  int q = lua_gettop(L);
  qu->domain = d;
  qu->n = n = mi_query_items(qu->q);
  qu->state_at = qu->ldev_at = -1;
  qu->id_slot = qu->start_slot = -1;
  lua_createtable(L, 0, 2);          /* q + 1: the records' metatable */
  lua_createtable(L, 0, n);          /* q + 2: its __index's map: item number -> name */
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, rec_index, 1);
  lua_setfield(L, q + 1, "__index");
  lua_pushstring(L, mi_domain_name(d));   /* and the records' domain (mi.delta reads what each item is) */
  lua_setfield(L, q + 1, "domain");
  lua_createtable(L, n, 0);          /* q + 3: keys */
  lua_createtable(L, 0, n + 1);      /* q + 4: names seen, then the keyset */
  int32_t at = 0;
  for (int i = 0; i < n; i++) {
    query_slot(L, qu, i, at, q + 2);
    if (qu->sl[i].named) lua_pushstring(L, qu->sl[i].it->name); else lua_pushboolean(L, 0);
    lua_rawseti(L, q + 3, i + 1);
    if (!qu->sl[i].named) { lua_pushboolean(L, 1); lua_rawseti(L, q + 4, qu->sl[i].num); }   /* keyed by number */
    at += qu->sl[i].size;
  }
  qu->nfields = n + (d == MI_DOM_PROCESS || d == MI_DOM_IO);
  if (d == MI_DOM_PROCESS || d == MI_DOM_IO) { lua_pushboolean(L, 1); lua_setfield(L, q + 4, d == MI_DOM_IO ? "type" : "state"); }
  lua_setiuservalue(L, q, 7);
  lua_setiuservalue(L, q, 2);
  lua_pop(L, 1);
  lua_setiuservalue(L, q, 4);
  return 1;
}

/* The 64-bit value of the longint_type at p (mi_longint_get's, inline: a read calls it three
 * times a record). */
static inline int64_t rd_long(const uint8_t *p) {
  longint_type l;
  memcpy(&l, p, 8);
  return (int64_t)(((uint64_t)(uint32_t)l.left << 32) | (uint32_t)l.right);
}

/* Finds (or makes) the cache entry of the process record at rec; sets *fresh when its strings
 * must be decoded (a new entity, a pid reused by another, a changed name). -1: the cache is
 * full (the caller clears it) or the record names no pid. */
static int ic_entry(icache *ic, const lqry *qu, const uint8_t *rec, int *fresh) {
  int64_t pid = rd_long(rec + qu->sl[qu->id_slot].at), start = 0;
  if (qu->start_slot >= 0) start = rd_long(rec + qu->sl[qu->start_slot].at);
  uint64_t u = (uint64_t)pid;   /* pids near each other land in entries near each other: a read walks the cache in order */
  uint32_t mask = ic->cap - 1, h = (uint32_t)(u ^ u >> 13 ^ u >> 26) & mask;
  ientry *x;
  for (;; h = (h + 1) & mask) {
    x = (ientry *)(void *)(ic->e + (size_t)h * ic->esz);
    if (!x->live) {
      if (ic->used >= ic->cap / 4 * 3) return -1;
      ic->used++;
      x->live = 1;
      x->pid = pid;
      *fresh = 1;
      break;
    }
    if (x->pid == pid) break;
  }
  unsigned char *raw = (unsigned char *)(x + 1);
  if (x->start != start) *fresh = 1;
  for (int j = 0; j < qu->nstr && !*fresh; j++) {
    const slot *sl = &qu->sl[qu->stri[j]];
    *fresh = memcmp(raw + sl->soff, rec + sl->at, (size_t)sl->size) != 0;
  }
  if (*fresh) {
    x->start = start;
    for (int j = 0; j < qu->nstr; j++) {
      const slot *sl = &qu->sl[qu->stri[j]];
      memcpy(raw + sl->soff, rec + sl->at, (size_t)sl->size);
    }
  }
  return (int)h;
}

/* Takes the query's string cache out for a read of up to want records (made, or made bigger,
 * as needed: room for twice the records, its strings table sized to match) and leaves it and
 * its strings table at the stack's places kbase - 2 and - 1. A query with nothing to intern
 * (no string item, or no pid) gets none. */
static icache *ic_take(lua_State *L, const lqry *qu, size_t want) {
  if (qu->domain != MI_DOM_PROCESS || !qu->nstr || qu->id_slot < 0) { lua_pushnil(L); lua_pushnil(L); return NULL; }
  uint32_t cap = 64;
  while (cap < 2 * want + 64 && cap < 8192) cap *= 2;
  icache *ic = NULL;
  if (lua_getiuservalue(L, 1, 5) == LUA_TUSERDATA) ic = lua_touserdata(L, -1);
  lua_getiuservalue(L, 1, 6);
  if (!ic || ic->cap < cap || lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 2);
    size_t esz = (sizeof(ientry) + qu->strbytes + 7) / 8 * 8;
    ic = lua_newuserdatauv(L, sizeof *ic + esz * cap, 0);
    memset(ic, 0, sizeof *ic + esz * cap);
    ic->cap = cap;
    ic->esz = esz;
    lua_createtable(L, (int)cap * qu->nstr, 0);
  }
  lua_pushnil(L); lua_setiuservalue(L, 1, 5);   /* out while in use: a nested read makes its own */
  lua_pushnil(L); lua_setiuservalue(L, 1, 6);
  return ic;
}

/* Puts the string cache back (qry_get, after a read that completed). */
static void ic_put(lua_State *L, const rdctx *c) {
  if (!c->ic) return;
  lua_pushvalue(L, c->kbase - 2); lua_setiuservalue(L, 1, 5);
  lua_pushvalue(L, c->kbase - 1); lua_setiuservalue(L, 1, 6);
}

/* Pushes the value of slot i of the record at rec, of cache entry e (-1: none): a string
 * item's interned copy, decoded and stored first when the entry is fresh. */
static inline void push_slot(lua_State *L, const rdctx *c, int i, const uint8_t *rec, int e, int fresh) {
  const slot *sl = &c->qu->sl[i];
  if (sl->kind == 0) { int32_t v; memcpy(&v, rec + sl->at, 4); lua_pushinteger(L, v); return; }   /* the most of them */
  if (sl->kind == 1) { lua_pushinteger(L, rd_long(rec + sl->at)); return; }
  if (sl->str < 0 || e < 0) { mil_push_value(L, sl, rec + sl->at); return; }
  lua_Integer k = (lua_Integer)e * c->qu->nstr + sl->str + 1;
  if (!fresh) { lua_rawgeti(L, c->kbase - 1, k); return; }
  mil_push_value(L, sl, rec + sl->at);
  lua_pushvalue(L, -1);
  lua_rawseti(L, c->kbase - 1, k);
}

/* The cache entry of the record at rec (-1: none), clearing a full cache once; sets *fresh. */
static int rec_entry(const rdctx *c, const uint8_t *rec, int *fresh) {
  *fresh = 0;
  if (!c->ic) return -1;
  int e = ic_entry(c->ic, c->qu, rec, fresh);
  if (e < 0) {   /* full of entities gone: start afresh */
    memset(c->ic->e, 0, c->ic->esz * c->ic->cap);
    c->ic->used = 0;
    e = ic_entry(c->ic, c->qu, rec, fresh);
  }
  return e;
}

/* Pushes the extra value of the record at rec: its state (process: "alive" or "dead") or its
 * device type's name (I/O; nil, or false with nil_as_false, when it has none). 0: no extra. */
static int push_extra(lua_State *L, const rdctx *c, const uint8_t *rec, int nil_as_false) {
  const lqry *qu = c->qu;
  if (qu->domain == MI_DOM_PROCESS) {
    int32_t v = 0;
    if (qu->state_at >= 0) memcpy(&v, rec + qu->state_at, 4);
    lua_pushvalue(L, v == 1 ? c->kbase - 4 : c->kbase - 3);
    return 1;
  }
  if (qu->domain != MI_DOM_IO) return 0;
  int32_t l = 0;
  if (qu->ldev_at >= 0) memcpy(&l, rec + qu->ldev_at, 4);
  int t = l >= 1 && l <= MI_MAX_LDEV ? mi_host_device(c->sys, l) : 0;
  if (t) lua_pushstring(L, mi_devtype(t)->name); else if (nil_as_false) lua_pushboolean(L, 0); else lua_pushnil(L);
  return 1;
}

/* Sets the fields of the record table at the top from rec: each item under its name (or
 * number), and state (process) or type (I/O). */
static void fill_record(lua_State *L, const rdctx *c, const uint8_t *rec) {
  const lqry *qu = c->qu;
  int fresh, e = rec_entry(c, rec, &fresh);
  for (int i = 0; i < qu->n; i++) {
    if (qu->sl[i].named) {
      lua_pushvalue(L, c->kbase + i);
      push_slot(L, c, i, rec, e, fresh);
      lua_rawset(L, -3);
    } else {
      push_slot(L, c, i, rec, e, fresh);
      lua_rawseti(L, -2, qu->sl[i].num);
    }
  }
  if (qu->domain == MI_DOM_PROCESS || qu->domain == MI_DOM_IO) {
    lua_pushvalue(L, c->kbase - 5);
    push_extra(L, c, rec, 0);
    lua_rawset(L, -3);
  }
}

/* Pushes the field of slot i of the table at t, raw; returns its type. */
static int rawfield(lua_State *L, const rdctx *c, int t, int i) {
  t = lua_absindex(L, t);
  if (c->qu->sl[i].named) { lua_pushvalue(L, c->kbase + i); return lua_rawget(L, t); }
  return lua_rawgeti(L, t, c->qu->sl[i].num);
}

/* The identity value of slot i in the record at rec (pid and start as 64 bits, else 32). */
static int64_t id_value(const slot *sl, const uint8_t *rec) {
  if (sl->size == 8) return rd_long(rec + sl->at);
  int32_t v;
  memcpy(&v, rec + sl->at, 4);
  return v;
}

/* Whether the table at t is a record of this query of the entity of the record at rec: the
 * query's record metatable, the same pid (ldev, processor id) and, for a process, start. */
static int same_entity(lua_State *L, const rdctx *c, int t, const uint8_t *rec) {
  t = lua_absindex(L, t);
  if (!lua_getmetatable(L, t)) return 0;
  int same = lua_rawequal(L, -1, RD_MT(c));
  lua_pop(L, 1);
  int ids[2] = {c->qu->id_slot, c->qu->start_slot};
  for (int k = 0; k < 2 && same; k++) {
    if (ids[k] < 0) continue;
    int isnum = 0;
    rawfield(L, c, t, ids[k]);
    same = lua_tointegerx(L, -1, &isnum) == id_value(&c->qu->sl[ids[k]], rec) && isnum;
    lua_pop(L, 1);
  }
  return same;
}

/* Indexes the caller's old records from pos on by identity (pid, ldev, processor id) in a new
 * table at c->byid: the first mismatch of a reused read (into). */
static void index_old(lua_State *L, rdctx *c, lua_Integer pos) {
  lua_createtable(L, 0, (int)(c->oldlen >= pos ? c->oldlen - pos + 1 : 0));
  for (lua_Integer k = pos; k <= c->oldlen; k++) {
    if (lua_rawgeti(L, c->res, k) != LUA_TTABLE) { lua_pop(L, 1); continue; }
    if (rawfield(L, c, -1, c->qu->id_slot) == LUA_TNUMBER) {
      lua_pushvalue(L, -2);
      lua_rawset(L, -4);   /* byid[id] = record (the last of an id wins; its start is checked at use) */
      lua_pop(L, 1);
    } else lua_pop(L, 2);
  }
  lua_replace(L, c->byid);
  c->into = 2;
}

/* Pushes the caller's record of the entity at rec for a reused read: the old one at pos if it
 * is that entity's, else one found by identity among those not placed yet (each used once).
 * Returns 0 (nothing pushed) when there is none: a new record is made. */
static int reuse_record(lua_State *L, rdctx *c, lua_Integer pos, const uint8_t *rec) {
  if (c->qu->id_slot < 0) return 0;   /* no identity: no reuse */
  if (c->into == 1) {
    if (lua_rawgeti(L, c->res, pos) == LUA_TTABLE && same_entity(L, c, -1, rec)) return 1;
    lua_pop(L, 1);
    index_old(L, c, pos);
  }
  lua_Integer id = id_value(&c->qu->sl[c->qu->id_slot], rec);
  if (lua_rawgeti(L, c->byid, id) != LUA_TTABLE || !same_entity(L, c, -1, rec)) { lua_pop(L, 1); return 0; }
  lua_pushnil(L);
  lua_rawseti(L, c->byid, id);
  return 1;
}

/* Whether the n bytes (a multiple of 4) at a and b are the same: a word at a time, inline
 * (a string item is 4 to 48 bytes; a library call per value costs more than the compare). */
static inline int same_raw(const uint8_t *a, const uint8_t *b, size_t n) {
  uint64_t x, y;
  for (; n >= 8; n -= 8, a += 8, b += 8) { memcpy(&x, a, 8); memcpy(&y, b, 8); if (x != y) return 0; }
  uint32_t u = 0, w = 0;
  if (n) { memcpy(&u, a, 4); memcpy(&w, b, 4); }
  return u == w;
}

/* Places count records from buf (rsz bytes apart) as rows pos0.. of a typed read's columns,
 * a record at a time: integers copied; a string or table value refreshed only where its raw
 * bytes differ from the row's last ones (the strings of a process taken from the query's
 * per-entity cache, all of a record's when one changed, so the cache stays whole); the state
 * or device type as its code. */
static void place_rows(lua_State *L, rdctx *c, const uint8_t *buf, size_t rsz, lua_Integer pos0, lua_Integer count) {
  const lqry *qu = c->qu;
  size_t r0 = (size_t)pos0 - 1, end = r0 + (size_t)count;
  int n = qu->n, vals = 0;
  if (n && end > c->tc[0]->cap)   /* (more records than the first buffer held: -20015) */
    for (int i = 0; i <= n; i++) if (c->tc[i]) mil_col_reserve(L, c->tc[i], end + end / 2);
  struct { int64_t *v; int32_t at; int wide; } ic[MI_MAX_ITEMS];   /* the integer columns: a plan */
  int16_t vl[MI_MAX_ITEMS];   /* and the others */
  int ni = 0;
  for (int i = 0; i < n; i++) {
    if (c->tc[i]->kind != COL_INT) { vl[vals++] = (int16_t)i; continue; }
    ic[ni].v = c->tc[i]->v + r0;
    ic[ni].at = qu->sl[i].at;
    ic[ni++].wide = qu->sl[i].kind == 1;
  }
  for (lua_Integer r = 0; r < count; r++) {   /* a record at a time: the buffer read once, in order */
    const uint8_t *rec = buf + (size_t)r * rsz;
    for (int k = 0; k < ni; k++) {
      int32_t x;
      if (ic[k].wide) ic[k].v[r] = rd_long(rec + ic[k].at);
      else { memcpy(&x, rec + ic[k].at, 4); ic[k].v[r] = x; }
    }
  }
  for (size_t r = r0; r < end && vals; r++) {   /* the values that are not integers, a record at a time */
    const uint8_t *rec = buf + (r - r0) * rsz;
    int strs = 0;
    for (int k = 0; k < vals; k++) {
      int i = vl[k];
      tcol *t = c->tc[i];
      const slot *sl = &qu->sl[i];
      uint8_t *old = t->raw + r * t->rsize;
      if (r < t->filled && same_raw(old, rec + sl->at, t->rsize)) continue;   /* the value of these bytes is there */
      if (sl->str >= 0 && c->ic) { strs = 1; continue; }
      memcpy(old, rec + sl->at, t->rsize);
      mil_push_value(L, sl, rec + sl->at);
      lua_rawseti(L, c->cbase + i, (lua_Integer)r + 1);
    }
    if (!strs) continue;
    int fresh, e = rec_entry(c, rec, &fresh);
    for (int j = 0; j < qu->nstr; j++) {
      int i = qu->stri[j];
      memcpy(c->tc[i]->raw + r * c->tc[i]->rsize, rec + qu->sl[i].at, c->tc[i]->rsize);
      push_slot(L, c, i, rec, e, fresh);
      lua_rawseti(L, c->cbase + i, (lua_Integer)r + 1);
    }
  }
  if (!c->tc[n]) return;
  int32_t at = qu->domain == MI_DOM_PROCESS ? qu->state_at : qu->ldev_at;
  int64_t *v = c->tc[n]->v + r0;
  for (lua_Integer r = 0; r < count; r++) {
    int32_t x = 0;
    if (at >= 0) memcpy(&x, buf + (size_t)r * rsz + at, 4);
    if (qu->domain == MI_DOM_IO) x = x >= 1 && x <= MI_MAX_LDEV ? mi_host_device(c->sys, x) : 0;
    v[r] = x;
  }
}

/* Places the record at rec as entry pos of the result: a column value each (columns), or a
 * record table, the caller's of the same entity reused (into) or a new one. */
static void place(lua_State *L, rdctx *c, lua_Integer pos, const uint8_t *rec) {
  const lqry *qu = c->qu;
  if (c->columns == 2) { place_rows(L, c, rec, 0, pos, 1); return; }
  if (c->columns) {
    int fresh, e = rec_entry(c, rec, &fresh);
    for (int i = 0; i < qu->n; i++) { push_slot(L, c, i, rec, e, fresh); lua_rawseti(L, c->cbase + i, pos); }
    if (push_extra(L, c, rec, 1)) lua_rawseti(L, c->cbase + qu->n, pos);
    return;
  }
  if (!c->into || !reuse_record(L, c, pos, rec)) {
    lua_createtable(L, 0, qu->nfields);
    lua_pushvalue(L, RD_MT(c));
    lua_setmetatable(L, -2);
  }
  fill_record(L, c, rec);
  lua_rawseti(L, c->res, pos);
}

/* Removes the keys of the table at t that no record (or columns table) of this query has:
 * a reused table keeps nothing of another query's. */
static void drop_foreign(lua_State *L, const rdctx *c, int t) {
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    if (lua_rawget(L, RD_MT(c) + 1) == LUA_TNIL) { lua_pushvalue(L, -2); lua_pushnil(L); lua_rawset(L, t); }
    lua_pop(L, 1);
  }
}

/* Pushes the key of column i: the item's name (or number), the extra column's key last. */
static void push_colkey(lua_State *L, const rdctx *c, int i) {
  if (i == c->qu->n) lua_pushvalue(L, c->kbase - 5);
  else if (c->qu->sl[i].named) lua_pushvalue(L, c->kbase + i);
  else lua_pushinteger(L, c->qu->sl[i].num);
}

/* Sets a typed read's result up (c->res): the query's columns taken out (made on its first
 * typed read: an integer column for each item of 32 or 64 bits, a value column for the
 * others, a state or device type column last), their value tables at cbase.., room for want
 * rows. */
static void typed_open(lua_State *L, rdctx *c, size_t want) {
  const lqry *qu = c->qu;
  int nc = qu->n + (qu->nfields > qu->n);
  c->res = lua_gettop(L) + 1;
  int whole = lua_getiuservalue(L, 1, 8) == LUA_TTABLE;
  for (int i = 0; i < nc && whole; i++) {   /* (a column the caller removed or replaced: a new set) */
    push_colkey(L, c, i);
    lua_rawget(L, c->res);
    whole = luaL_testudata(L, -1, COL_MT) != NULL;
    lua_pop(L, 1);
  }
  if (!whole) {
    lua_pop(L, 1);
    lua_createtable(L, 0, nc);
    lua_getiuservalue(L, 1, 1);
    const lses *u = lua_touserdata(L, -1);
    lua_pop(L, 1);
    for (int i = 0; i < nc; i++) {
      int kind = i == qu->n ? (qu->domain == MI_DOM_PROCESS ? COL_STATE : COL_DEVTYPE)
                 : qu->sl[i].it && qu->sl[i].kind < 2 ? COL_INT : COL_VAL;
      push_colkey(L, c, i);
      push_colkey(L, c, i);
      mil_col_new(L, 1, (mi_query *const *)&qu->q, u, kind, (size_t)(i < qu->n ? qu->sl[i].size : 0));
      lua_rawset(L, c->res);
    }
  }
  lua_pushnil(L); lua_setiuservalue(L, 1, 8);   /* out while in use */
  lua_pushnil(L);
  c->byid = lua_gettop(L);
  c->cbase = c->byid + 1;
  for (int i = 0; i <= qu->n; i++) {
    c->tc[i] = NULL;
    if (i == nc) break;
    push_colkey(L, c, i);
    lua_rawget(L, c->res);
    c->tc[i] = luaL_checkudata(L, -1, COL_MT);
    mil_col_reserve(L, c->tc[i], want);
    if (c->tc[i]->kind == COL_VAL) lua_getiuservalue(L, -1, 3); else lua_pushnil(L);
    lua_replace(L, -2);
  }
}

/* Ends a typed read after count rows: each column's length, whether its item was read
 * (statuses st), the columns put back as the query's. */
static void typed_close(lua_State *L, const rdctx *c, lua_Integer count, const int32_t *st) {
  for (int i = 0; i <= c->qu->n && c->tc[i]; i++) {
    tcol *t = c->tc[i];
    t->len = count;
    t->missing = i < c->qu->n && st[i] < 0;
    if (t->rsize && (size_t)count > t->filled) t->filled = (size_t)count;
  }
  lua_pushvalue(L, c->res);
  lua_setiuservalue(L, 1, 8);
}

/* Sets the result (c->res) up before a read: a record table for the global domain (the
 * caller's with into), a list, or with columns a table of columns (the caller's reused: each
 * column at cbase.., the extra column last). want: the records expected. */
static void result_open(lua_State *L, rdctx *c, size_t want) {
  const lqry *qu = c->qu;
  int nc = qu->n + (qu->nfields > qu->n);
  if (c->columns == 2) { typed_open(L, c, want); return; }
  if (c->into) { lua_pushvalue(L, 5); c->oldlen = (lua_Integer)lua_rawlen(L, 5); }
  else if (c->columns) lua_createtable(L, 0, nc);
  else if (qu->domain == MI_DOM_GLOBAL) lua_pushnil(L);   /* (made once the GET succeeded) */
  else lua_createtable(L, (int)(want < MI_MAX_PROCESSES ? want : MI_MAX_PROCESSES), 0);
  c->res = lua_gettop(L);
  lua_pushnil(L);
  c->byid = lua_gettop(L);
  c->cbase = c->byid + 1;
  if (!c->columns) return;
  for (int i = 0; i < nc; i++) {
    push_colkey(L, c, i);
    if (lua_rawget(L, c->res) != LUA_TTABLE) {   /* (the caller's column is reused) */
      lua_pop(L, 1);
      lua_createtable(L, (int)(want < MI_MAX_PROCESSES ? want : MI_MAX_PROCESSES), 0);
      push_colkey(L, c, i);
      lua_pushvalue(L, -2);
      lua_rawset(L, c->res);
    }
  }
}

/* Ends the result after count entries: the global record made (or the caller's filled); a
 * reused list's or columns' entries past count removed. */
static void result_close(lua_State *L, rdctx *c, const uint8_t *buf, lua_Integer count) {
  const lqry *qu = c->qu;
  int nc = qu->n + (qu->nfields > qu->n);
  if (c->into && (c->columns || qu->domain == MI_DOM_GLOBAL)) drop_foreign(L, c, c->res);
  if (qu->domain == MI_DOM_GLOBAL && !c->columns) {
    if (!c->into) {
      lua_createtable(L, 0, qu->nfields);
      lua_replace(L, c->res);
    }
    lua_pushvalue(L, c->res);
    lua_pushvalue(L, RD_MT(c));
    lua_setmetatable(L, -2);
    fill_record(L, c, buf);
    lua_pop(L, 1);
    return;
  }
  if (!c->into) return;
  if (!c->columns) { for (lua_Integer k = count + 1; k <= c->oldlen; k++) { lua_pushnil(L); lua_rawseti(L, c->res, k); } return; }
  for (int i = 0; i < nc; i++) {
    lua_Integer len = (lua_Integer)lua_rawlen(L, c->cbase + i);
    for (lua_Integer k = count + 1; k <= len; k++) { lua_pushnil(L); lua_rawseti(L, c->cbase + i, k); }
  }
}

/* The columns argument of q:get at i: 0 (none), 1 (tables), 2 ("typed": not with into, at 5). */
static int columns_arg(lua_State *L, int i) {
  if (lua_type(L, i) != LUA_TSTRING) return lua_toboolean(L, i);
  luaL_argcheck(L, !strcmp(lua_tostring(L, i), "typed"), i, "true or 'typed' expected");
  luaL_argcheck(L, lua_isnoneornil(L, 5), 5, "a typed read refills its query's own columns: no table to fill");
  return 2;
}

/* q:get([sel [, user_id [, quiet [, into [, columns]]]]]) -> overall, statuses, data: the GET
 * of the query's domain for sel (pid, ldev or processor id; -1 or nil = all); with quiet,
 * statuses is nil when every item's status is 0 (no table to build). data: global, one table
 * keyed by item name and number (nil on error); else an array of such tables, one per record
 * (process records also have state = "alive"|"dead", I/O records type = the device type's
 * name). into: a table filled instead of a new one (for a list, the caller's records of the
 * same entities are reused and the rest removed). columns: {[key] = {values...}} with the
 * records' keys instead (an I/O device without a type: false); "typed": the query's own typed
 * columns, refilled (mi_cols.c). The buffer holds every record
 * there is; if processes outgrow it meanwhile (-20015), the dead-process reports among the
 * records that fitted are kept and the call repeated with more room. */
static int qry_get(lua_State *L) {
  lqry *qu = checkqry(L, 1);
  lua_Integer sel = luaL_optinteger(L, 2, -1);
  int32_t uid = mil_opt_int32(L, 3, 0);
  int quiet = lua_toboolean(L, 4);
  if (!lua_isnoneornil(L, 5)) luaL_checktype(L, 5, LUA_TTABLE);
  tcol *tc[MI_MAX_ITEMS + 1];
  rdctx c = {.qu = qu, .into = !lua_isnoneornil(L, 5), .columns = columns_arg(L, 6), .tc = tc};
  lua_settop(L, 6);
  lua_getiuservalue(L, 1, 1);
  c.sys = mi_session_system(((lses *)lua_touserdata(L, -1))->s);
  lua_pop(L, 1);
  int n = qu->n;
  luaL_checkstack(L, 2 * n + 40, "too many items");   /* keys, columns, and some 30 more at most */
  if (qu->domain == MI_DOM_PROCESS) { lua_pushliteral(L, "state"); lua_pushliteral(L, "dead"); lua_pushliteral(L, "alive"); }
  else if (qu->domain == MI_DOM_IO) { lua_pushliteral(L, "type"); lua_pushnil(L); lua_pushnil(L); }
  else lua_settop(L, 9);
  size_t rec = (size_t)mi_query_record_size(qu->q), want = 1;
  if (qu->domain != MI_DOM_GLOBAL) want = (size_t)mi_query_room(qu->q, sel);
  int all_procs = qu->domain == MI_DOM_PROCESS && sel == -1;
  if (all_procs) want = want + 64 < MI_MAX_PROCESSES ? want + 64 : MI_MAX_PROCESSES;
  if (rec && want > INT32_MAX / rec) want = INT32_MAX / rec;
  c.ic = ic_take(L, qu, want);   /* 10, 11 */
  c.kbase = lua_gettop(L) + 1;
  lua_getiuservalue(L, 1, 2);
  for (int i = 1; i <= n; i++) lua_rawgeti(L, c.kbase, i);
  lua_remove(L, c.kbase);   /* keys table out: slots kbase .. kbase + n - 1 hold the keys */
  lua_getiuservalue(L, 1, 4);   /* kbase + n: the records' metatable */
  lua_getiuservalue(L, 1, 7);   /* kbase + n + 1: the keyset */
  int32_t stats[MI_MAX_ITEMS];
  memset(stats, 0, sizeof(int32_t) * (size_t)n);
  result_open(L, &c, want);
  lua_Integer nres = 0;
  stackbuf sb;
  int bi, rc;
  int32_t count;
  for (;;) {
    uint8_t *buf = mil_get_buffer(L, 1, rec * want, &sb, &bi);
    rc = mi_query_run(qu->q, buf, (int32_t)(rec * want), sel, &count, stats, uid);
    if (count < 0 || (size_t)count > want) count = 0;
    if (rc == MI_E_BUFFER_PARTIAL && all_procs && want < MI_MAX_PROCESSES) {
      for (int r = 0; r < count; r++) {   /* these reports are delivered now: keep them */
        int32_t dead = 0;
        if (qu->state_at >= 0) memcpy(&dead, buf + (size_t)r * rec + qu->state_at, 4);
        if (dead == 1) place(L, &c, ++nres, buf + (size_t)r * rec);
      }
      want = want * 2 + 64 < MI_MAX_PROCESSES ? want * 2 + 64 : MI_MAX_PROCESSES;
      if (bi) lua_pop(L, 1); else mil_put_buffer(L, 1, bi);
      continue;
    }
    if (qu->domain == MI_DOM_GLOBAL) {
      if (c.columns == 2) { if (rc >= 0) place(L, &c, ++nres, buf); }
      else if (rc < 0) { lua_pushnil(L); lua_replace(L, c.res); }
      else if (c.columns) { place(L, &c, 1, buf); result_close(L, &c, buf, 1); }
      else result_close(L, &c, buf, 1);
    } else {
      /* all processors: the C call gives all 8, as the manual does (unconfigured ones read 0);
       * a Lua caller gets the configured ones, which the system knows */
      if (qu->domain == MI_DOM_PROCESSOR && sel == -1) {
        int cpus = mi_host_cpus(c.sys);
        if (cpus >= 1 && cpus < count) count = cpus;
      }
      if (c.columns == 2) { place_rows(L, &c, buf, rec, nres + 1, count); nres += count; }
      else {
        for (int r = 0; r < count; r++) place(L, &c, ++nres, buf + (size_t)r * rec);
        result_close(L, &c, buf, nres);
      }
    }
    if (c.columns == 2) typed_close(L, &c, nres, stats);
    ic_put(L, &c);
    mil_put_buffer(L, 1, bi);
    lua_pushinteger(L, rc);
    int any = !quiet;
    for (int k = 0; k < n && !any; k++) any = stats[k] != 0;
    if (any) mil_push_statuses(L, stats, n); else lua_pushnil(L);
    lua_pushvalue(L, c.res);
    return 3;
  }
}

/* q:close() (also __gc, __close): frees the prepared read; later use raises "query is closed". */
static int qry_close(lua_State *L) {
  lqry *qu = luaL_checkudata(L, 1, QRY_MT);
  mi_query_free(qu->q);
  qu->q = NULL;
  lua_pushnil(L);
  lua_setiuservalue(L, 1, 3);
  return 0;
}

static const luaL_Reg qry_methods[] = {{"get", qry_get}, {"close", qry_close}, {NULL, NULL}};
static const luaL_Reg funcs[] = {{"query", l_query}, {NULL, NULL}};

/* Makes the query metatable; adds core.query to the module table at the top. */
void mil_open_read(lua_State *L) {
  mil_new_mt(L, QRY_MT, qry_methods, qry_close);
  luaL_setfuncs(L, funcs, 0);
}
