/* mi_lua_int.h — private to the mi.core binding (lua/mi_*.c): the userdata types, the
 * metatable names and the helpers the binding's files share. Nothing here is exported: the
 * objects are built with hidden visibility and core.so exports luaopen_mi_core only. */
#ifndef MI_LUA_INT_H
#define MI_LUA_INT_H

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lua.h"
#include "lauxlib.h"
#include "mi.h"
#include "mi_host.h"
#include "mi_sim.h"
#include "mi_linux.h"
#include "mi_query.h"
#include "mi_source.h"
#include "mi_userdef.h"
#include "mi_select.h"
#include "mi_export.h"
#include "mi_record.h"

#define SYS_MT "mi.system"
#define SES_MT "mi.session"
#define QRY_MT "mi.query"
#define EXP_MT "mi.exporter"

struct lses;
struct lrcd;
/* A system userdata: the system (NULL once closed), whether Lua frees it, and the sessions and
 * recorders opened on this userdata that are still open (closing the system closes them first). */
typedef struct lsys { mi_system *sys; int owned; struct lses *sessions; struct lrcd *recorders; } lsys;
/* A session userdata: the C session (NULL once closed), the system userdata it is linked to
 * while open (kept alive by user value 1), whether it was closed by its system's close, and
 * the records its last MIPROCGET of all processes returned (to size the next buffer).
 * User value 2 holds a cached GET buffer (a userdata), taken out while a GET uses it. */
typedef struct lses {
  mi_session *s;
  lsys *sys;
  struct lses *prev, *next;
  int sys_closed;
  int32_t procs_seen;
} lses;
#define RCD_MT "mi.recorder"
#define RDR_MT "mi.recording"

/* A GET buffer: small ones on the C stack; bigger ones a userdata cached in the session's
 * user value 2 and taken out while in use, so a GET run by a finalizer during another GET's
 * decoding gets its own buffer (re-entrant), and an error leaves nothing to free. */
#define STACK_BUF 4096
typedef union stackbuf { uint8_t b[STACK_BUF]; int64_t align_; } stackbuf;
/* The user value of the session (2) or query (3) at i that caches its GET buffer. */
#define BUF_UV(L, i) (luaL_testudata(L, i, "mi.query") ? 3 : 2)

/* One item's place in a GET buffer, resolved as the core resolves it; for a prepared query
 * also its offset in a record, whether it is keyed by name, and its index among the
 * string-valued items whose decoded strings are interned (-1: not one) with their offset in
 * a cache entry's raw bytes. */
typedef struct slot { const mi_item_info *it; int32_t size, num, at, soff; int16_t str; uint8_t named, kind; } slot;

/* A typed column (#31.1, mi_cols.c): the values of one item (or of a record's state or device
 * type) for the entities of a typed read, in a contiguous buffer refilled in place by the next
 * read of its query. kind: COL_INT (int64 values), COL_VAL (strings and object-class tables,
 * kept in a Lua table, user value 3, and refreshed only where a row's raw bytes changed: raw,
 * rsize bytes a row, valid for the first filled rows), COL_STATE (v holds pid_state: "dead"
 * for 1, else "alive"), COL_DEVTYPE (v holds the device type, 0: none). missing: the item was
 * not read (its status was an error): every value is nil. User value 1: the query (kept
 * alive; q points at its C query, NULL once closed), 2: the column's key. */
#define COL_MT "mi.column"
enum { COL_INT, COL_VAL, COL_STATE, COL_DEVTYPE };
typedef struct tcol {
  mi_query *const *q;
  const struct lses *ses;
  int kind, missing;
  lua_Integer len;
  size_t cap, rsize, filled;
  int64_t *v;
  uint8_t *raw;
} tcol;

/* mi_core.c */
/* Creates a metatable with methods, __gc and __close. */
void mil_new_mt(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction close);

/* mi_system.c */
/* Returns the system userdata at i (raises if it is not one or is closed). */
mi_system *mil_checksys(lua_State *L, int i);
/* Pushes field k of the table at i and returns its type; raises "bad argument #i to 'f'
 * (field 'k': T expected, got X)" unless it is nil or of type t. */
int mil_opt_field(lua_State *L, int i, const char *k, int t);
/* Reads integer field k of the table at i into *v if present (returns 1); raises on another
 * type, a number without an integer value, or one outside lo..hi. */
int mil_opt_field_int(lua_State *L, int i, const char *k, lua_Integer lo, lua_Integer hi, lua_Integer *v);
/* Returns the open session at i (raises if it is not one, or it or its system is closed). */
lses *mil_checkses(lua_State *L, int i);
/* Adds the system and session metatables and functions to the module table at the top. */
void mil_open_system(lua_State *L);

/* mi_aif.c */
/* Returns a buffer of at least n bytes (8-aligned): sb if it is big enough, else the cached
 * userdata in user value BUF_UV of the session (or query) at ses, grown as needed, left on
 * the stack at *idx (0 for sb). */
uint8_t *mil_get_buffer(lua_State *L, int ses, size_t n, stackbuf *sb, int *idx);
/* Puts the buffer at idx back as the session's cached buffer. */
void mil_put_buffer(lua_State *L, int ses, int idx);
/* Reads an item list (array of integer numbers) at i into nums (zero-terminated); returns n.
 * The list's raw length counts (a __len metamethod is not asked), at most MI_MAX_ITEMS - 1. */
int mil_get_items(lua_State *L, int i, int32_t *nums);
/* Pushes the statuses array of n entries. */
void mil_push_statuses(lua_State *L, const int32_t *st, int n);
/* Decodes the value in slot sl at p and pushes it (an invalid item's zero slot as 0). */
void mil_push_value(lua_State *L, const slot *sl, const uint8_t *p);
/* Checks a mapping argument: an integer 0-2 is passed through, anything else raises. */
int32_t mil_opt_int32(lua_State *L, int i, int32_t def);
/* session:priv(on): GETPRIVMODE / GETUSERMODE for this caller. */
int mil_ses_priv(lua_State *L);
/* Adds the AIF calls to the module table at the top. */
void mil_open_aif(lua_State *L);

/* mi_read.c */
/* Returns the domain named (or numbered 0-3) by the argument at i; raises otherwise. */
int mil_check_domain(lua_State *L, int i);
/* Adds the query metatable and core.query to the module table at the top. */
void mil_open_read(lua_State *L);

/* mi_catalog.c */
/* sys:udef(name) -> the counter userdata of an installed counter (to write it), or nil. */
int mil_sys_udef(lua_State *L);
/* sys:udef_install{name=, kind=, unit=, help=, per_process=, elements=} -> counter, or nil and the status code. */
int mil_sys_udef_install(lua_State *L);
/* sys:udef_items([from]) -> the catalog entries of the system's user-defined counters from index from (0-based). */
int mil_sys_udef_items(lua_State *L);
/* sys:udef_count() -> the number of user-defined counters of the system. */
int mil_sys_udef_count(lua_State *L);
/* Registers the counter metatable. */
void mil_udef_mt(lua_State *L);
/* Adds the catalog functions and the counter metatable to the module table at the top. */
void mil_open_catalog(lua_State *L);

/* mi_record.c */
/* Closes a recorder userdata's recorder (end mark, index) and unlinks it from its system, once. */
void mil_rcd_release(struct lrcd *c, int by_system);
/* Adds the exporter and recording metatables and functions to the module table at the top. */
void mil_open_record(lua_State *L);
/* Returns the open recording reader at i (raises if it is not one or is closed). */
mi_rec_reader *mil_checkrdr(lua_State *L, int i);
/* The value recording:rows gives item it of a row (words summed; a user-defined counter's value). */
int64_t mil_rec_value(mi_rec_reader *r, const mi_rec_item *it, const int64_t *row);
/* Copies a 16-byte recorded name into out without its trailing blanks and NULs. */
void mil_rec_name16(const char *name, char out[17]);
/* mi_cols.c */
/* Pushes a new empty typed column of kind with the key at the top (popped) for the query at
 * qi whose C query is *q, read by session u; rsize: raw bytes a row (COL_VAL). */
tcol *mil_col_new(lua_State *L, int qi, mi_query *const *q, const struct lses *u, int kind, size_t rsize);
/* Makes room in column t for rows values (grown by half again at least); raises if memory is short. */
void mil_col_reserve(lua_State *L, tcol *t, size_t rows);
/* Registers the column metatable. */
void mil_open_cols(lua_State *L);
void mil_open_stats(lua_State *L);   /* core.stats: running statistics for the scripts (mi_stats.c) */

#endif
