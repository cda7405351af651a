/* mi_cols.c — typed columns (#31.1): the userdata a read with {columns = "typed"} fills, one
 * per key, each a contiguous buffer of 64-bit integers refilled in place by the next read of
 * its query, with indexing, length, iteration and aggregates (sum, min, max, mean) in C. */
#include "mi_lua_int.h"

/* Returns the column at i, its query and session checked open (raises otherwise). */
static tcol *checkcol(lua_State *L, int i) {
  tcol *t = luaL_checkudata(L, i, COL_MT);
  if (*t->q && t->ses->s) return t;
  lua_getiuservalue(L, i, 2);
  luaL_error(L, "column '%s' is of a closed %s (its values went with it)", luaL_tolstring(L, -1, NULL),
             !*t->q ? "query" : t->ses->sys_closed ? "system" : "session");
  return NULL;
}

/* Pushes the value of row r (0-based, below len) of column t at ci: nil when it is missing. */
static void push_row(lua_State *L, const tcol *t, int ci, lua_Integer r) {
  if (t->missing) { lua_pushnil(L); return; }
  switch (t->kind) {
  case COL_INT: lua_pushinteger(L, t->v[r]); break;
  case COL_STATE: if (t->v[r] == 1) lua_pushliteral(L, "dead"); else lua_pushliteral(L, "alive"); break;
  case COL_DEVTYPE: if (t->v[r] >= 1) lua_pushstring(L, mi_devtype((int)t->v[r])->name); else lua_pushnil(L); break;
  default:
    lua_getiuservalue(L, ci, 3);
    lua_rawgeti(L, -1, r + 1);
    lua_remove(L, -2);
  }
}

/* Returns the 0-based row of the index at i of column t (raises on anything but an integer
 * from 1 on); -1 past the end. */
static lua_Integer row_of(lua_State *L, const tcol *t, int i) {
  int isint = 0;
  lua_Integer k = lua_tointegerx(L, i, &isint);
  if (!isint) luaL_error(L, "bad index to a column (an integer from 1 expected, got %s)",
                         lua_type(L, i) == LUA_TNUMBER ? "a number with a fraction" : luaL_typename(L, i));
  if (k < 1) luaL_error(L, "bad index %I to a column (indexes start at 1)", k);
  return k > t->len ? -1 : k - 1;
}

/* __index: col[i] (1-based; nil past the end or when missing) or a method by name. */
static int col_index(lua_State *L) {
  tcol *t = checkcol(L, 1);
  if (lua_type(L, 2) == LUA_TSTRING) {
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
  }
  lua_Integer r = row_of(L, t, 2);
  if (r < 0) lua_pushnil(L); else push_row(L, t, 1, r);
  return 1;
}

/* __newindex: a column is read-only (its read refills it); raises. */
static int col_newindex(lua_State *L) {
  checkcol(L, 1);
  return luaL_error(L, "a column is read-only (the next read of its query refills it; col:totable() copies it)");
}

/* __len: #col, the entities of the last read. */
static int col_len(lua_State *L) {
  lua_pushinteger(L, checkcol(L, 1)->len);
  return 1;
}

/* Returns column t at 1 if it holds numbers; raises for a column of names or values. */
static tcol *numeric(lua_State *L, const char *what) {
  tcol *t = checkcol(L, 1);
  if (t->kind != COL_INT) {
    lua_getiuservalue(L, 1, 2);
    luaL_error(L, "bad self to '%s' (column '%s' holds %s, not numbers)", what, luaL_tolstring(L, -1, NULL),
               t->kind == COL_VAL ? "strings or tables" : "names");
  }
  return t;
}

/* col:sum() -> the sum of the values (an integer; a float if it overflows 64 bits), or nil
 * when the column is empty or missing. */
static int col_sum(lua_State *L) {
  tcol *t = numeric(L, "sum");
  if (t->missing || !t->len) { lua_pushnil(L); return 1; }
  int64_t s = 0;
  lua_Integer r = 0;
  for (; r < t->len; r++)
    if (__builtin_add_overflow(s, t->v[r], &s)) break;
  if (r == t->len) { lua_pushinteger(L, s); return 1; }
  long double d = 0;   /* overflowed: again in floating point */
  for (r = 0; r < t->len; r++) d += (long double)t->v[r];
  lua_pushnumber(L, (lua_Number)d);
  return 1;
}

/* col:mean() -> the mean of the values (a float), or nil when the column is empty or missing. */
static int col_mean(lua_State *L) {
  tcol *t = numeric(L, "mean");
  if (t->missing || !t->len) { lua_pushnil(L); return 1; }
  long double d = 0;
  for (lua_Integer r = 0; r < t->len; r++) d += (long double)t->v[r];
  lua_pushnumber(L, (lua_Number)(d / (long double)t->len));
  return 1;
}

/* Pushes the least (want_max 0) or greatest value of column t at 1, or nil when empty or missing. */
static int extreme(lua_State *L, const char *what, int want_max) {
  tcol *t = numeric(L, what);
  if (t->missing || !t->len) { lua_pushnil(L); return 1; }
  int64_t m = t->v[0];
  for (lua_Integer r = 1; r < t->len; r++)
    if (want_max ? t->v[r] > m : t->v[r] < m) m = t->v[r];
  lua_pushinteger(L, m);
  return 1;
}

/* col:min() -> the least value, or nil when the column is empty or missing. */
static int col_min(lua_State *L) { return extreme(L, "min", 0); }
/* col:max() -> the greatest value, or nil when the column is empty or missing. */
static int col_max(lua_State *L) { return extreme(L, "max", 1); }

/* col:totable() -> a new table of the values, 1..#col (holes where a value is missing). */
static int col_totable(lua_State *L) {
  tcol *t = checkcol(L, 1);
  lua_createtable(L, t->missing ? 0 : (int)(t->len < INT_MAX ? t->len : INT_MAX), 0);
  for (lua_Integer r = 0; r < t->len && !t->missing; r++) {
    push_row(L, t, 1, r);
    lua_rawseti(L, -2, r + 1);
  }
  return 1;
}

/* The iterator of col:ipairs(): the next index and its value (nil when missing), until #col. */
static int col_next(lua_State *L) {
  tcol *t = checkcol(L, 1);
  lua_Integer k = luaL_checkinteger(L, 2) + 1;
  if (k < 1 || k > t->len) return 0;
  lua_pushinteger(L, k);
  push_row(L, t, 1, k - 1);
  return 2;
}

/* col:ipairs() -> iterator, col, 0: for i, v in col:ipairs() visits 1..#col (v nil when missing). */
static int col_ipairs(lua_State *L) {
  checkcol(L, 1);
  lua_pushcfunction(L, col_next);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

/* __tostring: "column pmt_process_time: 2700 integers" (or names, values; "missing"). */
static int col_tostring(lua_State *L) {
  tcol *t = luaL_checkudata(L, 1, COL_MT);
  lua_getiuservalue(L, 1, 2);
  const char *key = luaL_tolstring(L, -1, NULL);
  static const char *const what[] = {"integers", "values", "states", "device types"};
  if (!*t->q || !t->ses->s) lua_pushfstring(L, "column %s (closed)", key);
  else lua_pushfstring(L, "column %s: %I %s%s", key, t->len, what[t->kind], t->missing ? ", missing" : "");
  return 1;
}

/* __gc: frees the buffers. */
static int col_gc(lua_State *L) {
  tcol *t = luaL_checkudata(L, 1, COL_MT);
  free(t->v);
  free(t->raw);
  t->v = NULL;
  t->raw = NULL;
  t->cap = t->filled = 0;
  t->len = 0;
  return 0;
}

/* Makes room in column t for rows values (grown by half again at least); raises if memory is short. */
void mil_col_reserve(lua_State *L, tcol *t, size_t rows) {
  if (rows <= t->cap) return;
  size_t cap = t->cap + t->cap / 2 > rows ? t->cap + t->cap / 2 : rows;
  int64_t *v = realloc(t->v, cap * sizeof *v);
  if (!v) luaL_error(L, "not enough memory for a column of %d values", (int)cap);
  t->v = v;
  if (t->rsize) {
    uint8_t *raw = realloc(t->raw, cap * t->rsize);
    if (!raw) luaL_error(L, "not enough memory for a column of %d values", (int)cap);
    t->raw = raw;
  }
  t->cap = cap;
}

/* Pushes a new empty typed column of kind with the key at the top (popped) for the query at
 * qi whose C query is *q, read by session u; rsize: raw bytes a row (COL_VAL). */
tcol *mil_col_new(lua_State *L, int qi, mi_query *const *q, const lses *u, int kind, size_t rsize) {
  qi = lua_absindex(L, qi);
  tcol *t = lua_newuserdatauv(L, sizeof *t, 3);
  *t = (tcol){.q = q, .ses = u, .kind = kind, .rsize = kind == COL_VAL ? rsize : 0};
  luaL_setmetatable(L, COL_MT);
  lua_pushvalue(L, qi);
  lua_setiuservalue(L, -2, 1);
  lua_rotate(L, -2, 1);   /* key on top */
  lua_setiuservalue(L, -2, 2);
  if (kind == COL_VAL) { lua_newtable(L); lua_setiuservalue(L, -2, 3); }
  return t;
}

static const luaL_Reg col_methods[] = {
  {"sum", col_sum}, {"min", col_min}, {"max", col_max}, {"mean", col_mean},
  {"totable", col_totable}, {"ipairs", col_ipairs}, {NULL, NULL}};
static const luaL_Reg col_meta[] = {
  {"__newindex", col_newindex}, {"__len", col_len}, {"__tostring", col_tostring}, {"__gc", col_gc}, {NULL, NULL}};

/* Registers the column metatable (its __index: integers to values, names to methods). */
void mil_open_cols(lua_State *L) {
  luaL_newmetatable(L, COL_MT);
  luaL_setfuncs(L, col_meta, 0);
  lua_newtable(L);
  luaL_setfuncs(L, col_methods, 0);
  lua_pushcclosure(L, col_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
