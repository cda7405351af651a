/* mi_stats.c — `core.stats(tps)`: running statistics of recorded figures, kept in C arrays, for
 * the analysis scripts' inner loops (summary.lua: #30.4, #31.4). A stat is one item of one entity
 * over a window: its samples, and for a counter the counted total, the seconds it was counted and
 * its lowest and highest interval rates; for a level (or watermark) the plain and time-weighted
 * sums and its extremes. One call per row updates every stat of the row: a value costs a few
 * arithmetic operations instead of some twenty Lua table accesses. */
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

typedef struct lstats { mstat *s; int64_t n, cap; double tps; } lstats;

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

/* Adds the number at stack index vi to stat s at time t in stretch seg; has_born: the entity
 * was born at tick born since the sample before (a counter counts from its birth, from 0).
 * Integer arithmetic where summary.lua's was (no MI_Time scaling), else doubles. */
static void add(lstats *a, mstat *s, lua_State *L, int vi, int64_t t, int64_t seg, int has_born, int64_t born) {
  int isint = lua_isinteger(L, vi);
  int64_t v_i = isint ? (int64_t)lua_tointeger(L, vi) : 0;
  double v_f = isint ? (double)v_i : (double)lua_tonumber(L, vi);
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
    if (lua_rawgeti(L, 3, at) == LUA_TNUMBER) add(a, &a->s[id - 1], L, lua_gettop(L), t, seg, has_born, born);
    lua_pop(L, 1);
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

/* Frees the arrays (__gc, __close). */
static int st_gc(lua_State *L) {
  lstats *a = check(L);
  free(a->s);
  a->s = NULL;
  a->n = a->cap = 0;
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

static const luaL_Reg st_methods[] = {{"new", st_new}, {"release", st_release}, {"row", st_row}, {"get", st_get}, {NULL, NULL}};

/* Makes the stats metatable; adds core.stats to the module table at the top. */
void mil_open_stats(lua_State *L) {
  mil_new_mt(L, STATS_MT, st_methods, st_gc);
  lua_pushcfunction(L, l_stats);
  lua_setfield(L, -2, "stats");
}
