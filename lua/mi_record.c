/* mi_record.c — mi.core's exporter (core.exporter) and recordings: the recorder, the
 * reader of a recording and the replay's clock. */
#include "mi_lua_int.h"

/* ---- the exporter (#15, mi_export.h) ---- */
/* An exporter userdata: the exporter (NULL once closed) on a session userdata (user value 1). */
typedef struct lexp { mi_export *x; lses *ses; } lexp;

/* Returns the open exporter at i; raises if it, its session or its system is closed. */
static lexp *checkexp(lua_State *L, int i) {
  lexp *e = luaL_checkudata(L, i, EXP_MT);
  if (!e->x) luaL_error(L, "exporter is closed");
  if (!e->ses->s) {
    mi_export_forget_session(e->x);
    luaL_error(L, e->ses->sys_closed ? "system is closed" : "session is closed");
  }
  return e;
}

/* core.exporter(session, {pids=, mapping=, processes=, io=, items=}) -> an exporter on that (fresh) session. */
static int l_exporter(lua_State *L) {
  lses *u = mil_checkses(L, 1);
  mi_export_options o = {0};
  int32_t items[MI_MAX_ITEMS];
  char err[256];
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    if (mil_opt_field(L, 2, "pids", LUA_TNUMBER) != LUA_TNIL) {
      lua_Integer n = lua_tointeger(L, -1);
      luaL_argcheck(L, lua_isinteger(L, -1) && n >= 0 && n <= 1000000, 2, "field 'pids': a count 0-1000000 expected");
      o.pids = (int)n;
    }
    if (mil_opt_field(L, 2, "mapping", LUA_TSTRING) != LUA_TNIL) o.mapping = lua_tostring(L, -1);
    if (mil_opt_field(L, 2, "processes", LUA_TBOOLEAN) != LUA_TNIL) o.no_processes = !lua_toboolean(L, -1);
    if (mil_opt_field(L, 2, "io", LUA_TBOOLEAN) != LUA_TNIL) o.no_io = !lua_toboolean(L, -1);
    if (mil_opt_field(L, 2, "user_id", LUA_TNUMBER) != LUA_TNIL) o.user_id = (int32_t)luaL_checkinteger(L, -1);
    if (mil_opt_field(L, 2, "items", LUA_TTABLE) != LUA_TNIL) {   /* a list of item numbers */
      lua_Integer n = luaL_len(L, -1);
      luaL_argcheck(L, n >= 1 && n < MI_MAX_ITEMS, 2, "field 'items': a list of 1-1023 item numbers expected");
      for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        luaL_argcheck(L, lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0 && lua_tointeger(L, -1) < 100000, 2,
                      "field 'items': item numbers expected");
        items[i - 1] = (int32_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
      }
      items[n] = 0;
      o.items = items;
    }
  }
  lexp *e = lua_newuserdatauv(L, sizeof *e, 1);
  memset(e, 0, sizeof *e);
  luaL_setmetatable(L, EXP_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);   /* keeps the session userdata alive */
  e->ses = u;
  e->x = mi_export_new_on(u->s, &o, err, sizeof err);
  if (!e->x) return luaL_error(L, "cannot export: %s", err);
  return 1;
}

/* exporter:format(["openmetrics"|"text"]) -> the exposition of a fresh read of the system. */
static int exp_format(lua_State *L) {
  static const char *const fmts[] = {"text", "openmetrics", NULL};
  lexp *e = checkexp(L, 1);
  int f = luaL_checkoption(L, 2, "openmetrics", fmts);
  int rc = mi_export_scrape(e->x);
  if (rc < 0) return luaL_error(L, "cannot read the system: %d %s", rc, mi_status_message(rc));
  size_t n;
  const char *t = mi_export_format(e->x, f == 1 ? MI_EXPORT_OPENMETRICS : MI_EXPORT_TEXT, &n);
  if (!t) return luaL_error(L, "out of memory");
  lua_pushlstring(L, t, n);
  return 1;
}

/* __gc/__close/close of an exporter: its counters go off (its session stays), once. */
static int exp_close(lua_State *L) {
  lexp *e = luaL_checkudata(L, 1, EXP_MT);
  if (e->x) {
    if (!e->ses || !e->ses->s) mi_export_forget_session(e->x);
    mi_export_free(e->x);
    e->x = NULL;
  }
  return 0;
}
/* ---- recordings (#13): core.record, core.rec_open, the replay's clock ---- */
/* A recorder userdata: the recorder (NULL once closed), the system userdata it records (kept
 * alive by user value 1, linked while open: closing the system closes the recorder first, its end
 * mark written), whether the system closed it, and what that close returned. */
typedef struct lrcd {
  mi_recorder *r;
  lsys *sys;
  struct lrcd *prev, *next;
  int sys_closed, close_rc;
} lrcd;
typedef struct lrdr { mi_rec_reader *r; } lrdr;

/* Closes a recorder userdata's recorder (end mark, index) and unlinks it from its system, once. */
void mil_rcd_release(lrcd *c, int by_system) {
  if (c->r) c->close_rc = mi_recorder_close(c->r);
  c->r = NULL;
  if (c->sys) {
    if (c->prev) c->prev->next = c->next; else c->sys->recorders = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
    c->sys = NULL;
    if (by_system) c->sys_closed = 1;
  }
}

/* Returns the open recorder at i (raises if it or its system is closed). */
static mi_recorder *checkrcd(lua_State *L, int i) {
  lrcd *u = luaL_checkudata(L, i, RCD_MT);
  if (!u->r) luaL_argerror(L, i, u->sys_closed ? "system is closed" : "recorder is closed");
  return u->r;
}
/* Returns the open reader at i (raises if closed). */
static mi_rec_reader *checkrdr(lua_State *L, int i) {
  lrdr *u = luaL_checkudata(L, i, RDR_MT);
  if (!u->r) luaL_argerror(L, i, "recording is closed");
  return u->r;
}
/* Returns the open recording reader at i (raises if it is not one or is closed). */
mi_rec_reader *mil_checkrdr(lua_State *L, int i) { return checkrdr(L, i); }
/* The value recording:rows gives item it of a row: its words summed (class counters), or a
 * user-defined counter as mi_rec_udef_value gives it. */
int64_t mil_rec_value(mi_rec_reader *r, const mi_rec_item *it, const int64_t *row) {
  int64_t v = 0;
  if ((uint32_t)it->item - MI_UDEF_FIRST < MI_UDEF_MAX) return mi_rec_udef_value(r, it->item, row + it->at, 0);
  for (int w = 0; w < it->words; w++) v += row[it->at + w];
  return v;
}
/* Copies a 16-byte recorded name into out without its trailing blanks and NULs. */
void mil_rec_name16(const char *name, char out[17]) {
  memcpy(out, name, 16);
  out[16] = 0;
  for (int i = 15; i >= 0 && (out[i] == ' ' || !out[i]); i--) out[i] = 0;
}

/* core.record(system, path, items, {fsync = "none"|"interval"|"every", fsync_ms, key_every,
 * index_every, mapping, machine, version}) -> a recorder (the first sample is written); raises. */
static int l_record(lua_State *L) {
  mi_system *sys = mil_checksys(L, 1);
  lsys *y = lua_touserdata(L, 1);
  const char *path = luaL_checkstring(L, 2);
  int32_t nums[MI_MAX_ITEMS];
  int n = mil_get_items(L, 3, nums);
  mi_rec_options o = {0};
  if (lua_istable(L, 4)) {
    lua_Integer v;
    if (mil_opt_field_int(L, 4, "fsync_ms", 1, INT32_MAX, &v)) o.fsync_ms = (int)v;
    if (mil_opt_field_int(L, 4, "key_every", 1, 1000000, &v)) o.key_every = (int)v;
    if (mil_opt_field_int(L, 4, "index_every", 1, 100000, &v)) o.index_every = (int)v;
    if (mil_opt_field_int(L, 4, "mapping", 0, 2, &v)) o.map1 = (int)v + 1;
    if (mil_opt_field(L, 4, "fsync", LUA_TSTRING) == LUA_TSTRING) {
      const char *f = lua_tostring(L, -1);
      if (strcmp(f, "none") == 0) o.fsync = MI_REC_FSYNC_NONE;
      else if (strcmp(f, "every") == 0) o.fsync = MI_REC_FSYNC_EVERY;
      else if (strcmp(f, "interval") != 0) return luaL_error(L, "fsync must be none, interval or every, got '%s'", f);
    }
    lua_pop(L, 1);
    if (mil_opt_field(L, 4, "machine", LUA_TSTRING) == LUA_TSTRING) o.machine = lua_tostring(L, -1);
    lua_pop(L, 1);   /* the strings stay alive in the table while we use them */
    if (mil_opt_field(L, 4, "version", LUA_TSTRING) == LUA_TSTRING) o.mish_version = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  lrcd *u = lua_newuserdatauv(L, sizeof *u, 1);
  memset(u, 0, sizeof *u);           /* closed until the recorder exists */
  luaL_setmetatable(L, RCD_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);       /* keeps the system userdata alive while the recorder lives */
  char err[512];
  u->r = mi_recorder_open(sys, path, nums, n, &o, err, sizeof err);
  if (!u->r) return luaL_error(L, "%s", err);
  u->sys = y;
  u->next = y->recorders;
  if (y->recorders) y->recorders->prev = u;
  y->recorders = u;
  return 1;
}
/* recorder:sample() -> true, or nil and the error (a write failed; "system is closed"). */
static int rcd_sample(lua_State *L) {
  lrcd *u = luaL_checkudata(L, 1, RCD_MT);
  if (!u->r && u->sys_closed) { luaL_pushfail(L); lua_pushliteral(L, "system is closed"); return 2; }
  if (mi_recorder_sample(checkrcd(L, 1)) == 0) { lua_pushboolean(L, 1); return 1; }
  luaL_pushfail(L);
  lua_pushstring(L, strerror(errno));
  return 2;
}
/* recorder:mark(text) -> true, or nil (and "system is closed"): a gap mark with a note. */
static int rcd_mark(lua_State *L) {
  lrcd *u = luaL_checkudata(L, 1, RCD_MT);
  if (!u->r && u->sys_closed) { luaL_pushfail(L); lua_pushliteral(L, "system is closed"); return 2; }
  lua_pushboolean(L, mi_recorder_mark(checkrcd(L, 1), luaL_optstring(L, 2, "")) == 0);
  return 1;
}
/* recorder:stats() -> {samples, records, bytes, raw_bytes, last_bytes, last_raw_bytes, cells}. */
static int rcd_stats(lua_State *L) {
  mi_rec_stats st;
  mi_recorder_stats(checkrcd(L, 1), &st);
  lua_createtable(L, 0, 7);
  lua_pushinteger(L, st.samples); lua_setfield(L, -2, "samples");
  lua_pushinteger(L, st.records); lua_setfield(L, -2, "records");
  lua_pushinteger(L, st.bytes); lua_setfield(L, -2, "bytes");
  lua_pushinteger(L, st.raw_bytes); lua_setfield(L, -2, "raw_bytes");
  lua_pushinteger(L, st.last_bytes); lua_setfield(L, -2, "last_bytes");
  lua_pushinteger(L, st.last_raw_bytes); lua_setfield(L, -2, "last_raw_bytes");
  lua_pushinteger(L, st.cells); lua_setfield(L, -2, "cells");
  return 1;
}
/* recorder:close() (also __gc/__close): writes the end mark and index; idempotent. true if the
 * recording ended well (closed with its system: what that close did). */
static int rcd_close(lua_State *L) {
  lrcd *u = luaL_checkudata(L, 1, RCD_MT);
  mil_rcd_release(u, 0);
  lua_pushboolean(L, u->close_rc == 0);
  return 1;
}

/* core.rec_open(path) -> a recording to read; raises with the reason. */
static int l_rec_open(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  lrdr *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->r = NULL;
  luaL_setmetatable(L, RDR_MT);
  char err[512];
  u->r = mi_rec_open(path, err, sizeof err);
  if (!u->r) return luaL_error(L, "%s", err);
  return 1;
}
static const char *const REV_NAMES[] = {"end", "segment", "entity", "config", "mark", "sample", "damage", "torn"};
static const char *const MARK_NAMES[] = {"?", "restart", "gap", "torn", "end"};
/* recording:next() -> the next event {type=, time=, offset=, bytes=, seq=, key=, skipped=, back= (the clock went
 * back), mark=, a=, b=, text=}, nil at the end. */
static int rdr_next(lua_State *L) {
  mi_rec_event ev;
  if (mi_rec_next(checkrdr(L, 1), &ev) == MI_REV_END) { lua_pushnil(L); return 1; }
  lua_createtable(L, 0, 8);
  lua_pushstring(L, REV_NAMES[ev.type]); lua_setfield(L, -2, "type");
  lua_pushinteger(L, ev.time); lua_setfield(L, -2, "time");
  lua_pushinteger(L, ev.offset); lua_setfield(L, -2, "offset");
  lua_pushinteger(L, ev.bytes); lua_setfield(L, -2, "bytes");
  lua_pushinteger(L, (lua_Integer)ev.seq); lua_setfield(L, -2, "seq");
  if (ev.type == MI_REV_SAMPLE) {
    lua_pushboolean(L, ev.key); lua_setfield(L, -2, "key");
    lua_pushboolean(L, ev.skipped); lua_setfield(L, -2, "skipped");
    lua_pushboolean(L, ev.back); lua_setfield(L, -2, "back");
  }
  if (ev.type == MI_REV_MARK) {
    lua_pushstring(L, ev.mark >= 1 && ev.mark <= 4 ? MARK_NAMES[ev.mark] : "other"); lua_setfield(L, -2, "mark");
    lua_pushinteger(L, ev.a); lua_setfield(L, -2, "a");
    lua_pushinteger(L, ev.b); lua_setfield(L, -2, "b");
    lua_pushstring(L, ev.text ? ev.text : ""); lua_setfield(L, -2, "text");
  }
  return 1;
}
/* recording:verify() -> 0 clean | 1 torn tail | 2 damaged, and {bytes, records, samples, keys, segments,
 * damaged_regions, damaged_bytes, first_damage, torn_at, torn_bytes, seq_gaps, first_time, last_time,
 * continued, steps_back, first_step_back, unreadable, bad_marks}. */
static int rdr_verify(lua_State *L) {
  mi_rec_health h;
  int rc = mi_rec_verify(checkrdr(L, 1), &h);
  lua_pushinteger(L, rc);
  lua_createtable(L, 0, 18);
  const char *k[] = {"bytes", "records", "samples", "keys", "segments", "damaged_regions", "damaged_bytes", "first_damage",
                     "torn_at", "torn_bytes", "seq_gaps", "first_time", "last_time", "continued", "steps_back", "first_step_back",
                     "unreadable", "bad_marks"};
  int64_t v[] = {h.bytes, h.records, h.samples, h.keys, h.segments, h.damaged_regions, h.damaged_bytes, h.first_damage,
                 h.torn_at, h.torn_bytes, h.seq_gaps, h.first_time, h.last_time, h.continued, h.steps_back, h.first_step_back,
                 h.unreadable, h.bad_marks};
  for (int i = 0; i < 18; i++) { lua_pushinteger(L, v[i]); lua_setfield(L, -2, k[i]); }
  return 2;
}
/* recording:seek(ticks) -> true if a key at or before it (or the start) was found. */
static int rdr_seek(lua_State *L) {
  lua_pushboolean(L, mi_rec_seek(checkrdr(L, 1), luaL_checkinteger(L, 2)) == 0);
  return 1;
}
/* recording:info() -> {version, tpm, mapping, mish_version, source, machine, first_time, last_time (the earliest
 * and latest sample), bytes, continued (the segment's header only grew the layout), udef_count, steps_back}. */
static int rdr_info(lua_State *L) {
  const mi_rec_info *in = mi_rec_info_get(checkrdr(L, 1));
  lua_createtable(L, 0, 9);
  lua_pushinteger(L, in->version); lua_setfield(L, -2, "version");
  lua_pushinteger(L, in->tpm); lua_setfield(L, -2, "tpm");
  lua_pushinteger(L, in->mapping); lua_setfield(L, -2, "mapping");
  lua_pushstring(L, in->mish_version); lua_setfield(L, -2, "mish_version");
  lua_pushstring(L, in->source); lua_setfield(L, -2, "source");
  lua_pushstring(L, in->machine); lua_setfield(L, -2, "machine");
  lua_pushinteger(L, in->first_time); lua_setfield(L, -2, "first_time");
  lua_pushinteger(L, in->last_time); lua_setfield(L, -2, "last_time");
  lua_pushinteger(L, in->file_bytes); lua_setfield(L, -2, "bytes");
  lua_pushboolean(L, in->continued); lua_setfield(L, -2, "continued");
  lua_pushinteger(L, in->udef_count); lua_setfield(L, -2, "udef_count");
  lua_pushinteger(L, in->steps_back); lua_setfield(L, -2, "steps_back");
  return 1;
}
/* recording:layout(domain) -> array of {item=, name=, kind=, unit=, reading=, words=}: the segment's items of the domain. */
static int rdr_layout(lua_State *L) {
  const mi_rec_item *its;
  int n = mi_rec_layout(checkrdr(L, 1), mil_check_domain(L, 2), &its, NULL);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, its[i].item); lua_setfield(L, -2, "item");
    lua_pushinteger(L, its[i].words); lua_setfield(L, -2, "words");
    if (its[i].it) {
      lua_pushstring(L, its[i].it->name); lua_setfield(L, -2, "name");
      lua_pushstring(L, mi_kind_name(its[i].it->kind)); lua_setfield(L, -2, "kind");
      lua_pushstring(L, mi_unit_name(its[i].it->unit)); lua_setfield(L, -2, "unit");
      lua_pushstring(L, mi_reading_name(its[i].it->reading)); lua_setfield(L, -2, "reading");
    }
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}
/* recording:rows(domain) -> array of {key=, [i] = item i's value (class counters summed over classes;
 * a user-defined counter as mi_rec_udef_value gives it: a level counter's time up to the sample)}
 * for the entities of the latest sample (process rows also pid=, program=, user=, start= its birth in ticks). */
static int rdr_rows(lua_State *L) {
  mi_rec_reader *r = checkrdr(L, 1);
  int d = mil_check_domain(L, 2);
  const mi_rec_item *its;
  int ni = mi_rec_layout(r, d, &its, NULL);
  const int32_t *keys;
  int n = mi_rec_present(r, d, &keys);
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    const int64_t *row = mi_rec_row(r, d, keys[k]);
    lua_createtable(L, ni, 4);
    lua_pushinteger(L, keys[k]); lua_setfield(L, -2, "key");
    if (d == MI_DOM_PROCESS) {
      const mi_rec_proc *p = mi_rec_process(r, keys[k]);
      char prog[17], user[17];
      mil_rec_name16(p->program, prog);
      mil_rec_name16(p->user, user);
      lua_pushinteger(L, p->pid); lua_setfield(L, -2, "pid");
      lua_pushstring(L, prog); lua_setfield(L, -2, "program");
      lua_pushstring(L, user); lua_setfield(L, -2, "user");
      lua_pushinteger(L, p->start_ticks); lua_setfield(L, -2, "start");   /* its birth: summary counts from it (#30.5) */
    }
    for (int i = 0; i < ni; i++) {
      lua_pushinteger(L, mil_rec_value(r, &its[i], row));
      lua_rawseti(L, -2, i + 1);
    }
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}
/* recording:close() (also __gc/__close); idempotent. */
static int rdr_close(lua_State *L) {
  lrdr *u = luaL_checkudata(L, 1, RDR_MT);
  mi_rec_close(u->r);
  u->r = NULL;
  return 0;
}
/* core.parse_time(text, base_ticks, tpm) -> ticks, or nil for text that is no time. */
static int l_parse_time(lua_State *L) {
  int64_t t;
  lua_Integer tpm = luaL_optinteger(L, 3, 1);
  if (tpm < 1 || tpm > INT32_MAX || mi_rec_parse_time(luaL_checkstring(L, 1), luaL_optinteger(L, 2, 0), (int32_t)tpm, &t) != 0) luaL_pushfail(L);
  else lua_pushinteger(L, t);
  return 1;
}
/* core.replay_step(system, ms) -> 1 moved, 0 at the end of the window, -1 not a replay. */
static int l_replay_step(lua_State *L) {
  lua_pushinteger(L, mi_replay_step(mil_checksys(L, 1), luaL_checkinteger(L, 2)));
  return 1;
}
/* core.replay_clock(system) -> the recorded time shown, in ms since 1970 (-1: not a replay). */
static int l_replay_clock(lua_State *L) {
  lua_pushinteger(L, mi_replay_clock_ms(mil_checksys(L, 1)));
  return 1;
}
/* core.replay_ended(system) -> true once the replay showed the last sample of its window. */
static int l_replay_ended(lua_State *L) {
  lua_pushboolean(L, mi_replay_ended(mil_checksys(L, 1)) == 1);
  return 1;
}
/* core.replay_samples(system) -> the samples of the window the replay has applied so far (-1: not a replay). */
static int l_replay_samples(lua_State *L) {
  lua_pushinteger(L, mi_replay_samples(mil_checksys(L, 1)));
  return 1;
}
/* core.replay_state(system) -> true and what was wrong with the file so far, or false. */
static int l_replay_state(lua_State *L) {
  char text[256];
  int rc = mi_replay_state(mil_checksys(L, 1), text, sizeof text);
  lua_pushboolean(L, rc == 1);
  lua_pushstring(L, text);
  return 2;
}
/* core.wall_ms() -> milliseconds since 1970 of the wall clock (the timestamps of scripts' output). */
static int l_wall_ms(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
  return 1;
}

static const luaL_Reg exp_methods[] = {{"format", exp_format}, {"close", exp_close}, {NULL, NULL}};
static const luaL_Reg rcd_methods[] = {{"sample", rcd_sample}, {"mark", rcd_mark}, {"stats", rcd_stats}, {"close", rcd_close}, {NULL, NULL}};
static const luaL_Reg rdr_methods[] = {{"next", rdr_next}, {"verify", rdr_verify}, {"seek", rdr_seek}, {"info", rdr_info},
  {"layout", rdr_layout}, {"rows", rdr_rows}, {"close", rdr_close}, {NULL, NULL}};
static const luaL_Reg funcs[] = {{"exporter", l_exporter}, {"record", l_record}, {"rec_open", l_rec_open}, {"parse_time", l_parse_time},
  {"replay_step", l_replay_step}, {"replay_clock", l_replay_clock}, {"replay_state", l_replay_state}, {"replay_ended", l_replay_ended},
  {"replay_samples", l_replay_samples}, {"wall_ms", l_wall_ms}, {NULL, NULL}};

/* Makes the exporter, recorder and recording metatables; adds their functions to the module table at the top. */
void mil_open_record(lua_State *L) {
  mil_new_mt(L, EXP_MT, exp_methods, exp_close);
  mil_new_mt(L, RCD_MT, rcd_methods, rcd_close);   /* recordings (#13) */
  mil_new_mt(L, RDR_MT, rdr_methods, rdr_close);
  luaL_setfuncs(L, funcs, 0);
}
