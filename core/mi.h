/* mi.h — the MPE/iX Measurement Interface (HP 36392-90001, chapter 5) for C programs.
 * For: every C program that reads counters through the manual's sixteen procedures.
 * The sixteen procedures keep the manual's names, parameter order and status codes;
 * the Appendix B records are C types with the manual's field names and byte layout.
 * Copyright (c) 2026 the mish authors; MIT licence (see LICENSE). */
#ifndef MI_H
#define MI_H

#include <stdint.h>
#include "gen/mi_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MI_API __attribute__((visibility("default")))
#else
#define MI_API
#endif

/* ---- Appendix B records ------------------------------------------------ */

/* The manual's names st.all, st.info, st.subsys come through an anonymous struct: C11 (or
 * C99/C++ with GCC or Clang, through __extension__); other pre-C11 compilers get st.s.info only. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define MI_ANON_STRUCT_ 1
#define MI_ANON_EXT_
#elif defined(__GNUC__)
#define MI_ANON_STRUCT_ 1
#define MI_ANON_EXT_ __extension__
#endif

/* Overall and item status: all == 0 is success; info holds the code, subsys 516.
 * st.info and st.s.info are the same halfword (both names kept; decision 1 in core/DECISIONS.md). */
typedef union status_type {
  int32_t all;
#ifdef MI_ANON_STRUCT_
  MI_ANON_EXT_ struct { int16_t info; int16_t subsys; };
#endif
  struct { int16_t info; int16_t subsys; } s;
} status_type;
#define MI_SUBSYS 516

/* A 64-bit integer as two 32-bit halves (left = high word). */
typedef struct longint_type { int32_t left; int32_t right; } longint_type;
typedef longint_type pid_type;

/* Time of day: hour, minute, second, tenths of a second (4 bytes). */
typedef struct clock_type { uint8_t hour, min, sec, ten_sec; } clock_type;

/* Calendar date: full year (e.g. 2026), month 1-12, day of month 1-31. */
typedef struct date_type { int32_t year, month, day_of_month; } date_type;

/* Month and weekday as three-letter names, not terminated ("Nov", "Sat"). */
typedef struct datestr_type { char month_str[3]; char day_of_week[3]; } datestr_type;

/* MPE file name: three blank-padded 16-character fields. */
typedef struct filename_type { char filename[16]; char group[16]; char account[16]; } filename_type;

/* Job/session number: js_type (1 session, 2 job) in the top 2 bits of js_word,
 * js_num (1-16383) in the low 14 bits; js_ext as the manual's shortint. */
typedef struct jsnum_type { uint16_t js_word; int16_t js_ext; } jsnum_type;
#define MI_JS_SESSION 1
#define MI_JS_JOB 2
#define MI_JS_TYPE(j) ((int)((j).js_word >> 14))
#define MI_JS_NUM(j) ((int)((j).js_word & 0x3FFF))

/* Packed date of items 20009/20010: year-1900 in bits 0:7 (MSB first), day of year 7:9. */
typedef uint32_t calendar_type;
#define MI_CAL_YEAR(c) (1900 + (int)((c) >> 25))
#define MI_CAL_YDAY(c) ((int)(((c) >> 16) & 0x1FF))

/* Reads a longint_type as int64_t. */
MI_API int64_t mi_longint_get(const longint_type *v);
/* Stores an int64_t into a longint_type. */
MI_API void mi_longint_set(longint_type *v, int64_t x);

/* ---- mappings, limits ---------------------------------------------------- */
#define MI_MAP_LARGE 0
#define MI_MAP_SMALL 1
#define MI_MAP_STANDARD 2
#define MI_MAX_PROCESSES 2700
#define MI_MAX_LDEV 999
#define MI_MAX_PROCESSORS 8
#define MI_MAX_ITEMS 1024 /* bound within which an item list must end with 0 */

/* ---- the manual's procedures (chapter 5) --------------------------------- */
/* Optional by-reference parameters may be NULL; user_id 0 means "not passed". */

/* AIFACCESSON: validates user_id and authorizes the caller for later calls. */
MI_API void AIFACCESSON(status_type *overall_status, int32_t user_id);
/* AIFACCESSOFF: withdraws the authorization given by AIFACCESSON. */
MI_API void AIFACCESSOFF(status_type *overall_status, int32_t user_id);
/* AIFGLOBINSTALL: installs user_id in the registry (the INSTMI equivalent). */
MI_API void AIFGLOBINSTALL(status_type *overall_status, int32_t user_id);
/* AIFSCGET: reads system configuration items 3001-3046. */
MI_API void AIFSCGET(status_type *overall_status, int32_t *itemnum_array, void **item_array,
                     int32_t *item_status_array, int32_t user_id);
/* AIFSCPUT: writes configuration items, all or nothing, after optional verification. */
MI_API void AIFSCPUT(status_type *overall_status, int32_t *itemnum_array, void **item_array,
                     int32_t *item_status_array, int32_t user_id, int32_t *ver_item_nums,
                     void **ver_items, int32_t *ver_item_statuses);
/* AIFTIME: converts ticks or microseconds since 1970 (or now) to clock, date and names. */
MI_API void AIFTIME(status_type *overall_status, longint_type *ticks, longint_type *microsecs,
                    clock_type *clock, date_type *date, datestr_type *date_str, int32_t user_id);
/* MIGLOBON: enables global counters; mapping in/out (the one in use comes back). */
MI_API void MIGLOBON(status_type *overall_status, int32_t *item_nums, int32_t *item_statuses,
                     int32_t *mapping, int32_t user_id);
/* MIGLOBGET: copies the caller's global counters into buffer_ptr in item order. */
MI_API void MIGLOBGET(status_type *overall_status, int32_t *item_nums, void *buffer_ptr,
                      int32_t *item_statuses, int32_t buffer_size, int32_t mapping, int32_t user_id);
/* MIGLOBOFF: disables all of the caller's global (and processor) counters. */
MI_API void MIGLOBOFF(status_type *overall_status, int32_t user_id);
/* MIPROCON: enables process counters for one PID or (-1/NULL) all, present and future. */
MI_API void MIPROCON(status_type *overall_status, int32_t *item_nums, int32_t *item_statuses,
                     int32_t *mapping, longint_type *pid, int32_t user_id);
/* MIPROCGET: copies one record per monitored process (or the one PID) into buffer_ptr. */
MI_API void MIPROCGET(status_type *overall_status, int32_t *item_nums, void *buffer_ptr,
                      int32_t *item_statuses, int32_t buffer_size, int32_t mapping,
                      longint_type *pid, int32_t *num_of_pids, int32_t *miproc_ptr, int32_t user_id);
/* MIPROCOFF: disables process counters for one PID or (-1/NULL) all. */
MI_API void MIPROCOFF(status_type *overall_status, longint_type *pid, int32_t user_id);
/* MIIOON: enables I/O counters for one LDEV (1-999), a device type (-2..-11) or all (-1). */
MI_API void MIIOON(status_type *overall_status, int32_t *item_nums, int32_t *item_statuses,
                   int32_t *mapping, int32_t *ldev, int32_t user_id);
/* MIIOGET: copies one record per enabled LDEV of the selection into buffer_ptr. */
MI_API void MIIOGET(status_type *overall_status, int32_t *item_nums, void *buffer_ptr,
                    int32_t *item_statuses, int32_t buffer_size, int32_t mapping, int32_t *ldev,
                    int32_t *num_of_ldevs, int32_t user_id);
/* MIIOOFF: disables I/O counters; naming one LDEV disables its whole device type. */
MI_API void MIIOOFF(status_type *overall_status, int32_t *ldev, int32_t user_id);
/* MIPRCSRGET: copies processor counters (enabled through item 21164) for one or all CPUs. */
MI_API void MIPRCSRGET(status_type *overall_status, int32_t *item_nums, void *buffer_ptr,
                       int32_t *item_statuses, int32_t buffer_size, int32_t mapping,
                       int32_t *prcsr_id, int32_t *num_of_prcsrs, int32_t user_id);
/* GETPRIVMODE: puts the current caller in privileged mode (required by every AIF). */
MI_API void GETPRIVMODE(void);
/* GETUSERMODE: returns the current caller to user mode. */
MI_API void GETUSERMODE(void);

/* ---- callers: one OS process may act as several MI users ---------------- */
typedef struct mi_system mi_system;   /* a measured system (see mi_host.h) */
typedef struct mi_session mi_session; /* one MI caller: privilege, access, enable sets */

/* Returns the default system: the one installed with mi_set_default_system, else one created on
 * first use as mi_default_configure said, else the simulated HP 3000 (see mi_source.h). */
MI_API mi_system *mi_default_system(void);
/* Attaches read-only to a store another process shares at path (mi_system_options.share): the
 * file is opened O_RDONLY and mapped PROT_READ, so a store of another user needs only read
 * permission, and nothing this process does writes it. Every read AIF works as on the owner's
 * system; an ON takes the items the store already collects (others: MI_E_STORE_NOT_COLLECTED),
 * AIFSCPUT and user-defined counters need a read-write attach (mi_system_attach_with, .write). NULL on failure, with *err (may be NULL) set to
 * MI_E_STORE_OPEN (errno then says why the file could not be opened or mapped), _NOT_MISH,
 * _VERSION, _TRUNCATED (also: tables that do not fit the file — a damaged or crafted store),
 * _FOREIGN (the file belongs to another user), _OWNER_GONE, or _BUSY (its writer never let the
 * tables be read whole) (see mi_status_message).
 * Free it with mi_system_free; once its owner is gone every AIF returns MI_E_STORE_OWNER_GONE,
 * once the file shrank under it MI_E_STORE_TRUNCATED, and while the owner holds the store too
 * long (stopped in a write section) MI_E_STORE_BUSY. No registry: see mi_system_attach_with. */
MI_API mi_system *mi_system_attach(const char *path, int *err);
/* How mi_system_attach_with attaches. */
typedef struct mi_attach_options {
  const char *registry;  /* this process's user-ID registry file (NULL: memory only); a path written
                          * in the store file is never followed */
  int trust;             /* 1: accept a store file owned by another user (it is input: attach still
                          * checks every table against the file) */
  int write;             /* 1: attach read-write (the file opened O_RDWR and mapped writable): ONs of
                          * items nobody collects, AIFSCPUT, user-defined counters. 0 (the default):
                          * read-only (O_RDONLY, PROT_READ): the reader never writes the store; see
                          * core/STORE.md "Attaching" (#27.8) */
} mi_attach_options;
/* mi_system_attach with options (NULL = none). */
MI_API mi_system *mi_system_attach_with(const char *path, const mi_attach_options *o, int *err);
/* Returns 1 if sys was made by mi_system_attach. */
MI_API int mi_system_attached(const mi_system *sys);
/* Returns 1 if sys is attached read-only (mi_system_attach, or _with without .write). */
MI_API int mi_system_readonly(const mi_system *sys);
/* What mi_system_collect collects: a domain's every counter (the processor counters come with
 * the global domain's item 21164). */
enum { MI_COLLECT_GLOBAL = 1, MI_COLLECT_PROCESS = 2, MI_COLLECT_IO = 4, MI_COLLECT_ALL = 7 };
/* The owner of a shared store collects every counter of the domains in mask (MI_COLLECT_*) for
 * read-only readers, through a standing MI user of its own that monitors no process and no LDEV
 * (freed with the system); a later call adds domains. 0 or a status (-20004 no room, -20002 no
 * user record, MI_E_STORE_READONLY on a read-only attach). */
MI_API int mi_system_collect(mi_system *sys, int mask);
/* Returns the file a shared or attached system lives in, or NULL for a private one. */
MI_API const char *mi_system_share_path(const mi_system *sys);
/* Creates a caller on sys (NULL = default system); NULL if out of memory. */
MI_API mi_session *mi_session_new(mi_system *sys);
/* Turns off everything the caller enabled and frees it; accepts NULL. */
MI_API void mi_session_free(mi_session *s);
/* Makes s the implicit caller of the upper-case API (NULL = default caller); returns the previous one. */
MI_API mi_session *mi_session_use(mi_session *s);
/* Returns the implicit caller of the upper-case API, creating the default one if needed. */
MI_API mi_session *mi_session_current(void);
/* Returns the system a caller measures. */
MI_API mi_system *mi_session_system(const mi_session *s);
/* Sets or clears the caller's privileged mode. */
MI_API void mi_session_set_priv(mi_session *s, int on);

/* Handle-based forms of the procedures: same parameters, explicit caller first. */
MI_API void mi_accesson(mi_session *s, status_type *st, int32_t user_id);
MI_API void mi_accessoff(mi_session *s, status_type *st, int32_t user_id);
MI_API void mi_globinstall(mi_session *s, status_type *st, int32_t user_id);
MI_API void mi_scget(mi_session *s, status_type *st, int32_t *nums, void **items, int32_t *stats, int32_t user_id);
MI_API void mi_scput(mi_session *s, status_type *st, int32_t *nums, void **items, int32_t *stats, int32_t user_id,
                     int32_t *ver_nums, void **ver_items, int32_t *ver_stats);
MI_API void mi_time(mi_session *s, status_type *st, longint_type *ticks, longint_type *micro, clock_type *clock,
                    date_type *date, datestr_type *date_str, int32_t user_id);
MI_API void mi_globon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t user_id);
MI_API void mi_globget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                       int32_t mapping, int32_t user_id);
MI_API void mi_globoff(mi_session *s, status_type *st, int32_t user_id);
MI_API void mi_procon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping,
                      longint_type *pid, int32_t user_id);
MI_API void mi_procget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                       int32_t mapping, longint_type *pid, int32_t *num_of_pids, int32_t *miproc_ptr, int32_t user_id);
MI_API void mi_procoff(mi_session *s, status_type *st, longint_type *pid, int32_t user_id);
MI_API void mi_ioon(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping, int32_t *ldev,
                    int32_t user_id);
MI_API void mi_ioget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                     int32_t mapping, int32_t *ldev, int32_t *num_of_ldevs, int32_t user_id);
MI_API void mi_iooff(mi_session *s, status_type *st, int32_t *ldev, int32_t user_id);
MI_API void mi_prcsrget(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                        int32_t mapping, int32_t *prcsr_id, int32_t *num_of_prcsrs, int32_t user_id);

/* ---- statuses ----------------------------------------------------------- */
/* Returns the short message for a status code ("unknown status" if none). */
MI_API const char *mi_status_message(int code);
/* Returns the symbolic name of a status code (e.g. "BAD_ITEM"), or NULL. */
MI_API const char *mi_status_name(int code);
/* Returns the code of a symbolic status name, or 1 if there is none. */
MI_API int mi_status_code(const char *name);
/* Returns the info half of a status (the code). */
MI_API int mi_status_info(status_type st);

#ifdef __cplusplus
}
#endif
#endif
