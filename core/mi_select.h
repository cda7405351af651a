/* mi_select.h — entity selection and read-active (issue 14, after NonStop Measure).
 * For: readers that pick entities by name or number, and step through them (read-active).
 * An entity descriptor names processes (by pid, program FILE.GROUP.ACCOUNT, user
 * USER.ACCOUNT, job/session, process type; '*' and '?' in any name part) or LDEVs (by number,
 * range, device type). A list of descriptors selects: the union of the includes (type > 0; no
 * include = everything) minus the excludes (type < 0). MIPROCONSEL enables process counters
 * for the selection, evaluated again for every process born later; MIIOONSEL for LDEVs.
 * MIREADACTIVE returns the records of the active entities a caller measures that match a
 * selection, in modes EXACT, LIST and CHANGED, resumable through an opaque context
 * (core/STORE.md, "Selection and read-active"). */
#ifndef MI_SELECT_H
#define MI_SELECT_H

#include "mi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Descriptor types (NonStop's PROCESS^T is 2); the negative value excludes. */
#define MI_SEL_PROCESS 2
#define MI_SEL_LDEV 3
/* Job/session kinds of a descriptor (js_type). */
#define MI_SEL_ANY (-1)
#define MI_SEL_JS_NONE 0      /* no job or session: system processes */
#define MI_SEL_JS_SESSION 1
#define MI_SEL_JS_JOB 2
#define MI_SEL_PATTERN 52     /* bytes of a name pattern field, NUL included */
#define MI_SEL_MAX 32         /* descriptors a caller's selection keeps (all its MIPROCONSELs) */

/* One entity descriptor. Every field set to MI_SEL_ANY (or "" for patterns) matches anything:
 * start from mi_sel_init. Patterns: parts separated by '.', each 1-16 characters (printable,
 * no blank), '*' any run, '?' one character, case-insensitive; missing trailing parts match
 * anything ("CI" is "CI.*.*"). */
typedef struct mi_entity_desc {
  int32_t type;                    /* MI_SEL_PROCESS or MI_SEL_LDEV; negative: exclude */
  int32_t len;                     /* sizeof(mi_entity_desc) */
  int64_t pid;                     /* process: a pid > 0, or MI_SEL_ANY */
  char program[MI_SEL_PATTERN];    /* process: "FILE.GROUP.ACCOUNT" pattern, "" = any */
  char user[MI_SEL_PATTERN];       /* process: "USER.ACCOUNT" pattern, "" = any */
  int32_t js_type;                 /* process: MI_SEL_JS_*, or MI_SEL_ANY */
  int32_t js_num;                  /* process: 1-16383, or MI_SEL_ANY */
  int32_t ptype;                   /* process: MI_PT_SYSTEM .. MI_PT_SON (item 20012), or MI_SEL_ANY */
  int32_t ldev_lo, ldev_hi;        /* LDEV: a range within 1-999 (lo <= hi), or both MI_SEL_ANY */
  int32_t devtype;                 /* LDEV: a device type 1-10 (mi_catalog.h), or MI_SEL_ANY */
} mi_entity_desc;

/* What a descriptor is matched against: one process or LDEV. Names as the store keeps them
 * (filename_type images: three blank-padded 16-byte fields). */
typedef struct mi_entity_info {
  int32_t type;                    /* MI_SEL_PROCESS or MI_SEL_LDEV */
  int32_t ptype;                   /* process type (item 20012) */
  int64_t pid;
  char program[48], user[48];      /* user: USER (field 1), ACCOUNT (field 3) */
  uint32_t js;                     /* jsnum_type image: kind in bits 14-15, number in 0-13 */
  int32_t ldev, devtype;
} mi_entity_info;

/* Read-active modes. */
#define MI_RA_EXACT 0     /* one matching entity per call, the first after the context; the context continues */
#define MI_RA_LIST 1      /* every match, as many records as fit; the context continues */
#define MI_RA_CHANGED 2   /* as LIST, each record flagged changed (1) or unchanged (0) */

/* Fills d with a descriptor of type (MI_SEL_PROCESS or MI_SEL_LDEV, negative to exclude) that
 * matches everything of that type. */
MI_API void mi_sel_init(mi_entity_desc *d, int32_t type);
/* Checks n descriptors; 0, or MI_E_BAD_DESCRIPTOR with *bad (may be NULL) the 0-based index of
 * the first bad one and *field (may be NULL) the name of its bad field ("type", "len", "pid",
 * "program", "user", "js_type", "js_num", "ptype", "ldev", "devtype") and *why (may be NULL)
 * a short reason. */
MI_API int mi_sel_check(const mi_entity_desc *d, int n, int *bad, const char **field, const char **why);
/* Returns 1 if entity e is selected by the n (checked) descriptors d: an include of its type
 * matches it (or there is none) and no exclude of its type does. */
MI_API int mi_sel_match(const mi_entity_desc *d, int n, const mi_entity_info *e);
/* Returns 1 if name (a blank-padded 48-byte filename_type image) matches pattern (a checked
 * program pattern with up to `parts` parts: 3 for programs, 2 for users: USER.ACCOUNT). */
MI_API int mi_sel_name_match(const char *pattern, const char name[48], int parts);

/* MIPROCONSEL: MIPROCON for the processes the n descriptors select — those alive now and every
 * one born later. Parameters and statuses as MIPROCON's, plus MI_E_BAD_DESCRIPTOR for a bad
 * list (nothing enabled) and MI_E_SELECTION_FULL when the caller's selections would hold more
 * than MI_SEL_MAX descriptors. No descriptor (num_descs 0) selects everything, as MIPROCON of
 * all. A later call adds its selection (union); MIPROCON of all processes makes everything
 * monitored; MIPROCOFF ends the selection. */
MI_API void MIPROCONSEL(status_type *overall_status, int32_t *item_nums, int32_t *item_statuses,
                        int32_t *mapping, const mi_entity_desc *descs, int32_t num_descs, int32_t user_id);
/* MIIOONSEL: MIIOON for the configured LDEVs the n descriptors select (fixed at the call). */
MI_API void MIIOONSEL(status_type *overall_status, int32_t *item_nums, int32_t *item_statuses,
                      int32_t *mapping, const mi_entity_desc *descs, int32_t num_descs, int32_t user_id);
/* MIREADACTIVE: reads the records (item_nums as MIPROCGET/MIIOGET lay them out) of the active
 * entities of entity_type (MI_SEL_PROCESS: live processes the caller monitors, and monitored
 * deaths not yet reported, once, PID State 1; MI_SEL_LDEV: the caller's enabled LDEVs) that
 * the n descriptors select (n 0: all). *context: 0 or -1 starts an iteration; on return 0 when
 * it is complete, else the value to pass to the next call — of this session, for this entity
 * type and an equal selection: any other context is MI_E_BAD_CONTEXT (#30). *num_of_recs gets the records
 * written; rec_flags (may be NULL; one per record that fits) gets 1 changed / 0 unchanged in
 * CHANGED mode (since this caller's last read of the entity with this item list), 1 otherwise.
 * Statuses as MIPROCGET's, plus MI_E_BAD_DESCRIPTOR, MI_E_BAD_MODE, MI_E_BAD_CONTEXT. */
MI_API void MIREADACTIVE(status_type *overall_status, int32_t *item_nums, void *buffer_ptr,
                         int32_t *item_statuses, int32_t buffer_size, int32_t mapping, int32_t entity_type,
                         int32_t mode, const mi_entity_desc *descs, int32_t num_descs, int32_t *num_of_recs,
                         int32_t *rec_flags, longint_type *context, int32_t user_id);

/* Handle-based forms: same parameters, explicit caller first. */
/* MIPROCONSEL for session s. */
MI_API void mi_proconsel(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping,
                         const mi_entity_desc *descs, int32_t n, int32_t user_id);
/* MIIOONSEL for session s. */
MI_API void mi_ioonsel(mi_session *s, status_type *st, int32_t *nums, int32_t *stats, int32_t *mapping,
                       const mi_entity_desc *descs, int32_t n, int32_t user_id);
/* MIREADACTIVE for session s. */
MI_API void mi_readactive(mi_session *s, status_type *st, int32_t *nums, void *buf, int32_t *stats, int32_t size,
                          int32_t mapping, int32_t entity_type, int32_t mode, const mi_entity_desc *descs, int32_t n,
                          int32_t *num_of_recs, int32_t *rec_flags, longint_type *context, int32_t user_id);

#ifdef __cplusplus
}
#endif
#endif
