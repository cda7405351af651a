/* mi_catalog.h — the Measurement Interface catalog as data: counter items
 * (Appendices E, F, G, I and the pseudo-items), configuration items 3001-3046,
 * object-class maps (Appendix C), semaphore classes (Appendix D), device types.
 * For: tools that list, describe or validate items (names, ranges, kinds, status texts). */
#ifndef MI_CATALOG_H
#define MI_CATALOG_H

#include "mi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MI_DOM_GLOBAL, MI_DOM_PROCESS, MI_DOM_IO, MI_DOM_PROCESSOR, MI_DOM_COUNT } mi_domain;
typedef enum { MI_KIND_SIMPLE, MI_KIND_OBJCL, MI_KIND_SEMCL, MI_KIND_PSEUDO } mi_kind;
typedef enum { MI_UNIT_COUNT, MI_UNIT_MI_TIME, MI_UNIT_NONE } mi_unit;
typedef enum { MI_INST_YES, MI_INST_NO, MI_INST_NOT_INCREMENTED } mi_instrumented;
typedef enum { MI_TYPE_I32, MI_TYPE_I32A, MI_TYPE_I64, MI_TYPE_FILENAME, MI_TYPE_CLOCK,
               MI_TYPE_CALENDAR, MI_TYPE_JSNUM } mi_type;
typedef enum { MI_SRC_MANUAL, MI_SRC_EXAMPLE, MI_SRC_INFERRED } mi_source;
/* What a value reads as: a running total (a rate over an interval means something), a level
 * (a value now: a queue length, a setting, a time of day) or a watermark (the highest or lowest
 * value seen). */
typedef enum { MI_READ_TOTAL, MI_READ_LEVEL, MI_READ_WATERMARK } mi_reading;

/* One catalog item. index is the dense position among its domain's counters (-1 for pseudo-items);
 * description is one line saying what the item measures; reading is an mi_reading (kept last,
 * so the fields before it stay where they were). */
typedef struct mi_item_info {
  int32_t item;
  const char *name;
  uint8_t domain, kind, unit, instrumented, type, source;
  int16_t index;
  const char *description;
  uint8_t reading;
} mi_item_info;

typedef enum { MI_CT_I32, MI_CT_BOOL, MI_CT_BA96, MI_CT_BA64, MI_CT_CA8 } mi_config_type;

/* One configuration item of Table 5-1; defaults are text (comma list for masks). */
typedef struct mi_config_info {
  int32_t item;
  const char *name;
  uint8_t type, put, has_range;
  int32_t min, max, error;
  const char *deflt, *label, *description;
} mi_config_info;

/* One device type; selector is the negative ldev that names it (-2..-11). */
typedef struct mi_devtype_info { int code, selector; const char *name, *label; } mi_devtype_info;

/* Returns the item with this number, or NULL (O(1)). */
MI_API const mi_item_info *mi_item_lookup(int32_t item);
/* Returns the item with this name (case-insensitive) in domain (-1 = any, counters first), or NULL. */
MI_API const mi_item_info *mi_item_find(const char *name, int domain);
/* Returns the one-line description of what an item measures, or NULL for an unknown item. */
MI_API const char *mi_item_description(int32_t item);
/* Returns the number of catalog items. */
MI_API int mi_item_count(void);
/* Returns the i-th catalog item in item-number order (0-based), or NULL. */
MI_API const mi_item_info *mi_item_at(int i);
/* Returns the number of counters (not pseudo-items) of a domain. */
MI_API int mi_domain_counters(int domain);
/* Returns the counter of a domain at a dense index, or NULL. */
MI_API const mi_item_info *mi_domain_item(int domain, int index);
/* Returns the value size in bytes of an item in a GET buffer for a mapping (-1 if mapping bad). */
MI_API int32_t mi_item_size(const mi_item_info *it, int mapping);
/* Returns the name of a domain ("global", "process", "io", "processor"). */
MI_API const char *mi_domain_name(int domain);
/* Returns kind, unit, type, instrumented and source names for display. */
MI_API const char *mi_kind_name(int kind);
MI_API const char *mi_unit_name(int unit);
MI_API const char *mi_type_name(int type);
MI_API const char *mi_instrumented_name(int inst);
MI_API const char *mi_source_name(int src);
/* Returns the name of an mi_reading ("total", "level", "watermark"), or "?". */
MI_API const char *mi_reading_name(int reading);

/* Returns the number of object classes of a mapping (720, 33, 10), or -1. */
MI_API int mi_objcl_len(int mapping);
/* Returns the name of class idx in a mapping, or NULL. */
MI_API const char *mi_objcl_name(int mapping, int idx);
/* Returns the class of a coarser mapping `to` that class idx of `from` folds into, or -1. */
MI_API int mi_objcl_fold(int from, int to, int idx);
/* Returns the index of a class name in a mapping, or -1. */
MI_API int mi_objcl_find(int mapping, const char *name);
/* Returns the name of semaphore class idx (0-255), or NULL. */
MI_API const char *mi_semcl_name(int idx);
/* Returns the index of a semaphore class name, or -1. */
MI_API int mi_semcl_find(const char *name);

/* Returns configuration item info by number (3001-3046), or NULL. */
MI_API const mi_config_info *mi_config_lookup(int32_t item);
/* Returns the one-line description of a configuration item (3001-3046), or NULL. */
MI_API const char *mi_config_description(int32_t item);
/* Returns configuration item info by name (case-insensitive, e.g. "JOB_FENCE"), or NULL. */
MI_API const mi_config_info *mi_config_find(const char *name);
/* Returns the size in bytes of a configuration item's value. */
MI_API int mi_config_size(const mi_config_info *c);

/* Returns the device type with this code (1-10), or NULL. */
MI_API const mi_devtype_info *mi_devtype(int code);
/* Returns the device type with this name ("disk", ...), or NULL. */
MI_API const mi_devtype_info *mi_devtype_find(const char *name);
/* Returns the number of device types. */
MI_API int mi_devtype_count(void);

/* Iterates the status table: returns 0 past the end, else fills code/name/message. */
MI_API int mi_status_at(int i, int *code, const char **name, const char **message);

#ifdef __cplusplus
}
#endif
#endif
