/* mi_stats.c — `core.stats(tps)`: running statistics of recorded figures, kept in C arrays, for
 * the analysis scripts' inner loops (summary.lua: #30.4, #31.4). A stat is one item of one entity
 * over a window: its samples, and for a counter the counted total, the seconds it was counted and
 * its lowest and highest interval rates; for a level (or watermark) the plain and time-weighted
 * sums and its extremes. One call per row updates every stat of the row: a value costs a few
 * arithmetic operations instead of some twenty Lua table accesses; stats:sample (#31) does a
 * whole domain of a recording's sample from the reader's cells, with no Lua row table. */
#include "mi_lua_int.h"

#define STATS_MT "mi.stats"

/* One stat. Integer figures stay integers (as Lua would keep them) unless the item is MI_Time
 * (shown in seconds) or a rate. */
typedef struct mstat {
  uint8_t level, time, has_prev, has_min, has_max, pv_int, counted;
  int64_t seg;                 /* the stretch of the clock of the previous value (has_prev) */
  int64_t pt;                  /* its time (ticks) */
  int64_t pv_i;                /* the previous value: an integer (pv_int) ... */
  double pv_f;                 /* ... or not; for a level as shown (seconds for MI_Time) */
  int64_t n, nv;
  int64_t total_i, sumv_i, sumvdt_i, dt_i;   /* integer sums (counter totals, level sums; level dt in ticks) */
  double total_f, sumv_f, sumvdt_f, dt_f;    /* the parts that are not integers (MI_Time, counter seconds) */
  double minv, maxv;           /* extremes: of the levels, or of the interval rates */
  int64_t mint, maxt;
} mstat;

/* An entity acc:sample met (#31: keyed by identity, never by position): a process is its slot's
 * pid, birth and program; its stats' ids (nids of them) for the layout generation gen. */
typedef struct ment {
  int64_t pid, start;
  char prog[17];
  int64_t gen;
  int32_t *ids;
  int nids;
} ment;

typedef struct lstats { mstat *s; int64_t n, cap; double tps; ment *e; int64_t ne, ecap; } lstats;

static lstats *check(lua_State *L) { return luaL_checkudata(L, 1, STATS_MT); }

/* stats:new(level, time) -> id: a new stat (level: a level or watermark; time: an MI_Time item). */
static int st_new(lua_State *L) {
  lstats *a = check(L);
  if (a->n == a->cap) {
    int64_t cap = a->cap ? a->cap * 2 : 256;
    mstat *p = realloc(a->s, (size_t)cap * sizeof *p);
    if (!p) return luaL_error(L, "stats:new: out of memory");
    a->s = p;
    a->cap = cap;
  }
  mstat *s = &a->s[a->n];
  memset(s, 0, sizeof *s);
  s->level = (uint8_t)lua_toboolean(L, 2);
  s->time = (uint8_t)lua_toboolean(L, 3);
  lua_pushinteger(L, ++a->n);
  return 1;
}

/* The stat at argument i, or an error. */
static mstat *stat_at(lua_State *L, lstats *a, int i) {
  lua_Integer id = luaL_checkinteger(L, i);
  luaL_argcheck(L, id >= 1 && id <= a->n, i, "no such stat");
  return &a->s[id - 1];
}

/* stats:release(id): the stat's next value starts a new stretch (another entity took its name). */
static int st_release(lua_State *L) {
  lstats *a = check(L);
  stat_at(L, a, 2)->has_prev = 0;
  return 0;
}

/* Adds a value (the integer v_i when isint, else v_f) to stat s at time t in stretch seg;
 * has_born: the entity was born at tick born since the sample before (a counter counts from its
 * birth, from 0). Integer arithmetic where summary.lua's was (no MI_Time scaling), else doubles. */
static void add(lstats *a, mstat *s, int isint, int64_t v_i, double v_f, int64_t t, int64_t seg, int has_born, int64_t born) {
  if (isint) v_f = (double)v_i; else v_i = 0;
  int same = s->has_prev && s->seg == seg;
  s->n++;
  if (s->level) {
    int li = isint && !s->time;                 /* this level is an integer */
    double lv = s->time ? v_f / a->tps : v_f;
    if (li) s->sumv_i += v_i; else s->sumv_f += lv;
    s->nv++;
    if (same && t >= s->pt) {
      int64_t d = t - s->pt;
      if (s->pv_int) s->sumvdt_i += s->pv_i * d; else s->sumvdt_f += s->pv_f * (double)d;
      s->dt_i += d;
    }
    if (!s->has_min || lv < s->minv) { s->minv = lv; s->mint = t; s->has_min = 1; }
    if (!s->has_max || lv > s->maxv) { s->maxv = lv; s->maxt = t; s->has_max = 1; }
    s->pv_int = (uint8_t)li;
    s->pv_i = v_i;
    s->pv_f = lv;
  } else {
    int have = 0, di = 0;
    int64_t dv_i = 0;
    double dv_f = 0, dt = 0;
    if (same && t > s->pt) {
      di = isint && s->pv_int;
      if (di) dv_i = (int64_t)((uint64_t)v_i - (uint64_t)s->pv_i); else dv_f = v_f - s->pv_f;
      dt = (double)(t - s->pt) / a->tps;
      have = 1;
    } else if (!same && has_born && t > born) {
      di = isint;
      dv_i = v_i; dv_f = v_f;
      dt = (double)(t - born) / a->tps;
      have = 1;
    }
    if (have) {
      double d = di ? (double)dv_i : dv_f;
      if (s->time) d /= a->tps;
      double rate = d / dt;
      if (di && !s->time) s->total_i += dv_i; else s->total_f += d;
      s->dt_f += dt;
      s->counted = 1;
      if (!s->has_min || rate < s->minv) { s->minv = rate; s->mint = t; s->has_min = 1; }
      if (!s->has_max || rate > s->maxv) { s->maxv = rate; s->maxt = t; s->has_max = 1; }
    }
    s->pv_int = (uint8_t)isint;
    s->pv_i = v_i;
    s->pv_f = v_f;
  }
  s->pt = t;
  s->seg = seg;
  s->has_prev = 1;
}

/* stats:row(ids, row, at, t, seg [, born]): for j = 1..#ids, adds row[at[j]] to stat ids[j] at
 * time t (ticks) in stretch seg; born (ticks), when given, is the entity's birth since the sample
 * before. A value that is not a number (not measured) is left out. */
static int st_row(lua_State *L) {
  lstats *a = check(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  int64_t t = (int64_t)luaL_checkinteger(L, 5), seg = (int64_t)luaL_checkinteger(L, 6);
  int has_born = !lua_isnoneornil(L, 7);
  int64_t born = has_born ? (int64_t)luaL_checkinteger(L, 7) : 0;
  lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
  for (lua_Integer j = 1; j <= n; j++) {
    lua_rawgeti(L, 2, j);
    lua_Integer id = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (id < 1 || id > a->n) return luaL_error(L, "stats:row: ids[%d] is no stat", (int)j);
    lua_rawgeti(L, 4, j);
    lua_Integer at = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (lua_rawgeti(L, 3, at) == LUA_TNUMBER) {
      int isint = lua_isinteger(L, -1);
      add(a, &a->s[id - 1], isint, isint ? (int64_t)lua_tointeger(L, -1) : 0, (double)lua_tonumber(L, -1), t, seg, has_born, born);
    }
    lua_pop(L, 1);
  }
  return 0;
}

/* The index of a new entity (pid, start, prog for a process) in a->e, or raises. */
static int64_t ent_new(lua_State *L, lstats *a, int64_t pid, int64_t start, const char *prog) {
  if (a->ne == a->ecap) {
    int64_t cap = a->ecap ? a->ecap * 2 : 64;
    ment *p = realloc(a->e, (size_t)cap * sizeof *p);
    if (!p) luaL_error(L, "stats:sample: out of memory");
    a->e = p;
    a->ecap = cap;
  }
  ment *e = &a->e[a->ne];
  memset(e, 0, sizeof *e);
  e->pid = pid;
  e->start = start;
  memcpy(e->prog, prog, sizeof e->prog);
  e->gen = -1;   /* no layout yet: resolved at its first row */
  return a->ne++;
}

/* Calls resolve(eid, key, pid, program, start) (at stack index fi; process fields nil for other
 * domains) for entity ei's stats in this layout and keeps their ids (ni of them, each a stat). */
static void ent_resolve(lua_State *L, lstats *a, int fi, int64_t ei, int32_t key, int proc, int ni, int64_t gen) {
  lua_pushvalue(L, fi);
  lua_pushinteger(L, (lua_Integer)ei + 1);
  lua_pushinteger(L, key);
  if (proc) {
    lua_pushinteger(L, (lua_Integer)a->e[ei].pid);
    lua_pushstring(L, a->e[ei].prog);
    lua_pushinteger(L, (lua_Integer)a->e[ei].start);
  } else { lua_pushnil(L); lua_pushnil(L); lua_pushnil(L); }
  lua_call(L, 5, 1);   /* resolve may make stats (a->s moves) but not entities */
  if (!lua_istable(L, -1) || lua_rawlen(L, -1) != (lua_Unsigned)ni)
    luaL_error(L, "stats:sample: resolve must return %d stat ids", ni);
  ment *e = &a->e[ei];
  if (e->nids < ni) {
    int32_t *p = realloc(e->ids, (size_t)ni * sizeof *p);
    if (!p) luaL_error(L, "stats:sample: out of memory");
    e->ids = p;
  }
  e->nids = 0;   /* not resolved until every id is checked */
  for (int j = 0; j < ni; j++) {
    lua_rawgeti(L, -1, j + 1);
    lua_Integer id = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (id < 1 || id > a->n) luaL_error(L, "stats:sample: resolve's ids[%d] is no stat", j + 1);
    e->ids[j] = (int32_t)id;
  }
  lua_pop(L, 1);
  e->nids = ni;
  e->gen = gen;
}

/* stats:sample(recording, domain, at, t, seg, before, gen, ents, resolve): adds every entity of
 * the recording's latest sample in domain to its stats, item at[j] (an index in the layout) to
 * its stat j, straight from the reader's cells (no row tables). An entity is known by identity:
 * ents maps its key to an entity id; a process whose slot holds another (pid, birth or program)
 * is a new entity. resolve(eid, key, pid, program, start) gives an entity's stat ids when it is
 * new or gen (the layout's generation) changed. before: the time of the sample before in this
 * stretch (nil: none); a process born since then counts from its birth (#30.5). */
static int st_sample(lua_State *L) {
  lstats *a = check(L);
  mi_rec_reader *r = mil_checkrdr(L, 2);
  int d = mil_check_domain(L, 3);
  luaL_checktype(L, 4, LUA_TTABLE);
  int64_t t = (int64_t)luaL_checkinteger(L, 5), seg = (int64_t)luaL_checkinteger(L, 6);
  int has_before = !lua_isnoneornil(L, 7);
  int64_t before = has_before ? (int64_t)luaL_checkinteger(L, 7) : 0;
  int64_t gen = (int64_t)luaL_checkinteger(L, 8);
  luaL_checktype(L, 9, LUA_TTABLE);
  luaL_checktype(L, 10, LUA_TFUNCTION);
  const mi_rec_item *its;
  int nl = mi_rec_layout(r, d, &its, NULL);
  lua_Unsigned ni = lua_rawlen(L, 4);
  const mi_rec_item **sel = lua_newuserdatauv(L, (ni ? ni : 1) * sizeof *sel, 0);   /* freed by the GC */
  for (lua_Unsigned j = 0; j < ni; j++) {
    lua_rawgeti(L, 4, (lua_Integer)j + 1);
    lua_Integer at = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (at < 1 || at > nl) return luaL_error(L, "stats:sample: at[%d] is not an item of the layout", (int)j + 1);
    sel[j] = &its[at - 1];
  }
  const int32_t *keys;
  int n = mi_rec_present(r, d, &keys);
  for (int k = 0; k < n; k++) {
    const int64_t *row = mi_rec_row(r, d, keys[k]);
    const mi_rec_proc *p = d == MI_DOM_PROCESS ? mi_rec_process(r, keys[k]) : NULL;
    if (!row || (d == MI_DOM_PROCESS && !p)) continue;   /* no cells: nothing recorded to add */
    char prog[17] = "";
    if (p) mil_rec_name16(p->program, prog);
    int64_t ei = -1;
    if (lua_rawgeti(L, 9, keys[k]) == LUA_TNUMBER) {
      lua_Integer x = lua_tointeger(L, -1);
      if (x >= 1 && x <= a->ne) ei = x - 1;
    }
    lua_pop(L, 1);
    if (ei >= 0 && p && (a->e[ei].pid != p->pid || a->e[ei].start != p->start_ticks || strcmp(a->e[ei].prog, prog) != 0))
      ei = -1;   /* another process in the slot */
    if (ei < 0) {
      ei = ent_new(L, a, p ? p->pid : 0, p ? p->start_ticks : 0, prog);
      lua_pushinteger(L, (lua_Integer)ei + 1);
      lua_rawseti(L, 9, keys[k]);
    }
    if (a->e[ei].gen != gen || a->e[ei].nids != (int)ni) ent_resolve(L, a, 10, ei, keys[k], p != NULL, (int)ni, gen);
    const ment *e = &a->e[ei];
    int born = p && has_before && e->start >= before && e->start < t;
    for (lua_Unsigned j = 0; j < ni; j++)
      add(a, &a->s[e->ids[j] - 1], 1, mil_rec_value(r, sel[j], row), 0, t, seg, born, e->start);
  }
  return 0;
}

/* Sets field k of the table on top to the integer sum i, or to i + f when f is not 0 (a number). */
static void setn(lua_State *L, const char *k, int64_t i, double f) {
  if (f == 0) lua_pushinteger(L, (lua_Integer)i); else lua_pushnumber(L, (double)i + f);
  lua_setfield(L, -2, k);
}

/* Sets field k to an extreme: an integer when it is one and the stat keeps integers. */
static void setx(lua_State *L, const char *k, double v, int ints) {
  if (ints && v == (double)(int64_t)v) lua_pushinteger(L, (lua_Integer)(int64_t)v); else lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* stats:get(id) -> {n, total, dt, sumv, sumvdt, nv, minv/maxv or minr/maxr, mint, maxt}: the
 * stat's figures as summary.lua kept them in Lua (absent extremes are nil). */
static int st_get(lua_State *L) {
  lstats *a = check(L);
  mstat *s = stat_at(L, a, 2);
  lua_createtable(L, 0, 12);
  setn(L, "n", s->n, 0);
  setn(L, "nv", s->nv, 0);
  setn(L, "sumv", s->sumv_i, s->sumv_f);
  setn(L, "sumvdt", s->sumvdt_i, s->sumvdt_f);
  setn(L, "total", s->total_i, s->total_f);
  if (s->level) setn(L, "dt", s->dt_i, 0);
  else if (s->counted) { lua_pushnumber(L, s->dt_f); lua_setfield(L, -2, "dt"); }
  else setn(L, "dt", 0, 0);
  const char *lo = s->level ? "minv" : "minr", *hi = s->level ? "maxv" : "maxr";
  if (s->has_min) { setx(L, lo, s->minv, s->level && !s->time); setn(L, "mint", s->mint, 0); }
  if (s->has_max) { setx(L, hi, s->maxv, s->level && !s->time); setn(L, "maxt", s->maxt, 0); }
  return 1;
}

/* stats:zero(id) -> true when the stat shows nothing (summary.lua leaves it out without --all):
 * its extremes absent or 0 and, for a counter, no total over an interval (none, or 0). */
static int st_zero(lua_State *L) {
  lstats *a = check(L);
  mstat *s = stat_at(L, a, 2);
  int z = (!s->has_min || s->minv == 0) && (!s->has_max || s->maxv == 0);
  if (z && !s->level) z = !(s->counted && s->dt_f > 0) || (double)s->total_i + s->total_f == 0;
  lua_pushboolean(L, z);
  return 1;
}

/* Frees the arrays (__gc, __close). */
static int st_gc(lua_State *L) {
  lstats *a = check(L);
  free(a->s);
  a->s = NULL;
  a->n = a->cap = 0;
  for (int64_t i = 0; i < a->ne; i++) free(a->e[i].ids);
  free(a->e);
  a->e = NULL;
  a->ne = a->ecap = 0;
  return 0;
}

/* core.stats(tps) -> a stats accumulator (tps: ticks per second, > 0). */
static int l_stats(lua_State *L) {
  lua_Number tps = luaL_checknumber(L, 1);
  luaL_argcheck(L, tps > 0, 1, "ticks per second (> 0) expected");
  lstats *a = lua_newuserdatauv(L, sizeof *a, 0);
  memset(a, 0, sizeof *a);
  a->tps = (double)tps;
  luaL_setmetatable(L, STATS_MT);
  return 1;
}

static const luaL_Reg st_methods[] = {{"new", st_new}, {"release", st_release}, {"row", st_row}, {"sample", st_sample}, {"get", st_get}, {"zero", st_zero}, {NULL, NULL}};

/* Makes the stats metatable; adds core.stats to the module table at the top. */
void mil_open_stats(lua_State *L) {
  mil_new_mt(L, STATS_MT, st_methods, st_gc);
  lua_pushcfunction(L, l_stats);
  lua_setfield(L, -2, "stats");
}
