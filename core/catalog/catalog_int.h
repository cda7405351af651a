/* catalog_int.h — the catalog room's own declarations: the generated tables
 * (core/gen/catalog_data.c) and the indexes catalog.c builds over them.
 * For: the rooms above the catalog (store, query, aif, through mi_internal.h). Not installed. */
#ifndef MI_CATALOG_INT_H
#define MI_CATALOG_INT_H
#include <stdint.h>
#include "mi_host.h"

#define MI_NCONFIG 46
#define MI_NSEMCL 256
#define MI_NLARGE 720

/* generated tables (core/gen/catalog_data.c) */
extern const mi_item_info mi_items_[];
extern const int mi_nitems_;
extern const int mi_domain_counters_[MI_DOM_COUNT];
extern const char *const mi_objcl_large_names_[], *const mi_objcl_small_names_[];
extern const char *const mi_objcl_standard_names_[], *const mi_semcl_names_[];
extern const uint8_t mi_objcl_large_fold_[], mi_objcl_small_fold_[];
extern const mi_config_info mi_config_[];
extern const mi_devtype_info mi_devtypes_[];
extern const int mi_ndevtypes_;

/* Fold table: fold_[from][to][i] = class of map `to` for class i of map `from` (from <= to). */
extern uint16_t mi_fold_[3][3][MI_NLARGE];
void mi_catalog_init(void);
extern int16_t mi_by_number_[8000];
/* mi_item_lookup without the init check, for the GET path (the catalog is ready once a system exists). */
static inline const mi_item_info *mi_item_fast(int32_t item) {
  uint32_t k = (uint32_t)item - 20000u;   /* unsigned: no overflow at INT32_MIN */
  int p = k < 8000 ? mi_by_number_[k] : 0;
  return p ? &mi_items_[p - 1] : 0;
}

/* Words of 64-bit storage an item needs at a system mapping. */
int mi_item_words(const mi_item_info *it, int mapping);

#endif
