/* catalog.c — lookups over the generated catalog tables: items by number and
 * name, object-class maps and their folding, semaphore classes, configuration
 * items, device types and status messages. */
#include <string.h>
#include <strings.h>
#include "catalog/catalog_int.h"
#include "mi_userdef.h"

#define MI_ITEM_BASE 20000
#define MI_ITEM_SPAN 8000

int16_t mi_by_number_[MI_ITEM_SPAN];        /* item - 20000 -> position + 1 */
static int16_t by_dense[MI_DOM_COUNT][MI_HOST_INDEX_LIMIT]; /* dense index -> position */
uint16_t mi_fold_[3][3][MI_NLARGE];
static int ready;

/* Builds the number index and the fold tables once. */
void mi_catalog_init(void) {
  if (ready) return;
  for (int i = 0; i < mi_nitems_; i++) {
    const mi_item_info *it = &mi_items_[i];
    mi_by_number_[it->item - MI_ITEM_BASE] = (int16_t)(i + 1);
    if (it->index >= 0) by_dense[it->domain][it->index] = (int16_t)i;
  }
  for (int m = 0; m < 3; m++)
    for (int i = 0; i < mi_objcl_len(m); i++) {
      int small = m == 0 ? mi_objcl_large_fold_[i] : i;
      int std = m == 2 ? i : mi_objcl_small_fold_[small];
      mi_fold_[m][m][i] = (uint16_t)i;
      if (m == 0) mi_fold_[0][1][i] = (uint16_t)small;
      if (m <= 1) mi_fold_[m][2][i] = (uint16_t)std;
    }
  ready = 1;
}

const mi_item_info *mi_item_lookup(int32_t item) {
  mi_catalog_init();
  if (item < MI_ITEM_BASE || item >= MI_ITEM_BASE + MI_ITEM_SPAN) return NULL;
  int p = mi_by_number_[item - MI_ITEM_BASE];
  return p ? &mi_items_[p - 1] : NULL;
}

const mi_item_info *mi_item_find(const char *name, int domain) {
  if (!name) return NULL;
  const mi_item_info *pseudo = NULL;
  for (int i = 0; i < mi_nitems_; i++) {
    const mi_item_info *it = &mi_items_[i];
    if ((domain < 0 || it->domain == domain) && strcasecmp(it->name, name) == 0) {
      if (it->kind != MI_KIND_PSEUDO) return it;
      if (!pseudo) pseudo = it;
    }
  }
  return pseudo;
}

const char *mi_item_description(int32_t item) {
  const mi_item_info *it = mi_item_lookup(item);
  return it ? it->description : NULL;
}

int mi_item_count(void) { return mi_nitems_; }

const mi_item_info *mi_item_at(int i) { return i >= 0 && i < mi_nitems_ ? &mi_items_[i] : NULL; }

int mi_domain_counters(int domain) {
  return domain >= 0 && domain < MI_DOM_COUNT ? mi_domain_counters_[domain] : 0;
}

const mi_item_info *mi_domain_item(int domain, int index) {
  mi_catalog_init();
  if (domain < 0 || domain >= MI_DOM_COUNT || index < 0 || index >= mi_domain_counters_[domain]) return NULL;
  return &mi_items_[by_dense[domain][index]];
}

int32_t mi_item_size(const mi_item_info *it, int mapping) {
  if (!it) return 4;
  if ((uint32_t)it->item - MI_UDEF_FIRST < MI_UDEF_MAX) {   /* a user-defined counter (mi_userdef.h) */
    const mi_udef_info *u = (const mi_udef_info *)(const void *)it;
    return u->kind == MI_UDEF_FACCUM || u->kind == MI_UDEF_QBUSY ? 8 : 4 * u->elements;
  }
  switch (it->type) {
  case MI_TYPE_I64: return 8;
  case MI_TYPE_FILENAME: return (int32_t)sizeof(filename_type);
  case MI_TYPE_I32A:
    if (it->kind == MI_KIND_SEMCL) return 4 * MI_NSEMCL;
    return mapping >= 0 && mapping <= 2 ? 4 * mi_objcl_len(mapping) : -1;
  default: return 4;
  }
}

/* Words of 64-bit storage an item needs at a system mapping. */
int mi_item_words(const mi_item_info *it, int mapping) {
  if (it->kind == MI_KIND_SEMCL) return MI_NSEMCL;
  if (it->kind == MI_KIND_OBJCL) return mi_objcl_len(mapping);
  return 1;
}

static const char *const dom_names[] = {"global", "process", "io", "processor"};
static const char *const kind_names[] = {"simple", "object_class", "semaphore_class", "pseudo"};
static const char *const unit_names[] = {"count", "mi_time", "none"};
static const char *const inst_names[] = {"yes", "no", "not_incremented"};
static const char *const type_names[] = {"I32", "I32A", "I64", "filename", "clock", "calendar", "jsnum"};
static const char *const src_names[] = {"manual", "example_h", "inferred"};
static const char *const reading_names[] = {"total", "level", "watermark"};
#define NAME_OF(tab, i) ((i) >= 0 && (size_t)(i) < sizeof(tab) / sizeof(tab[0]) ? tab[i] : "?")
const char *mi_domain_name(int d) { return NAME_OF(dom_names, d); }
const char *mi_kind_name(int k) { return NAME_OF(kind_names, k); }
const char *mi_unit_name(int u) { return NAME_OF(unit_names, u); }
const char *mi_instrumented_name(int i) { return NAME_OF(inst_names, i); }
const char *mi_type_name(int t) { return NAME_OF(type_names, t); }
const char *mi_source_name(int s) { return NAME_OF(src_names, s); }
const char *mi_reading_name(int r) { return NAME_OF(reading_names, r); }

int mi_objcl_len(int mapping) {
  static const int len[3] = {720, 33, 10};
  return mapping >= 0 && mapping <= 2 ? len[mapping] : -1;
}

const char *mi_objcl_name(int mapping, int idx) {
  if (idx < 0 || idx >= mi_objcl_len(mapping)) return NULL;
  return mapping == 0 ? mi_objcl_large_names_[idx] : mapping == 1 ? mi_objcl_small_names_[idx]
                                                                  : mi_objcl_standard_names_[idx];
}

int mi_objcl_fold(int from, int to, int idx) {
  mi_catalog_init();
  if (from < 0 || to > 2 || from > to || idx < 0 || idx >= mi_objcl_len(from)) return -1;
  return mi_fold_[from][to][idx];
}

int mi_objcl_find(int mapping, const char *name) {
  int n = mi_objcl_len(mapping);
  for (int i = 0; name && i < n; i++)
    if (strcasecmp(mi_objcl_name(mapping, i), name) == 0) return i;
  return -1;
}

const char *mi_semcl_name(int idx) { return idx >= 0 && idx < MI_NSEMCL ? mi_semcl_names_[idx] : NULL; }

int mi_semcl_find(const char *name) {
  for (int i = 0; name && i < MI_NSEMCL; i++)
    if (strcasecmp(mi_semcl_names_[i], name) == 0) return i;
  return -1;
}

const mi_config_info *mi_config_lookup(int32_t item) {
  return item >= 3001 && item <= 3000 + MI_NCONFIG ? &mi_config_[item - 3001] : NULL;
}

const char *mi_config_description(int32_t item) {
  const mi_config_info *c = mi_config_lookup(item);
  return c ? c->description : NULL;
}

const mi_config_info *mi_config_find(const char *name) {
  for (int i = 0; name && i < MI_NCONFIG; i++)
    if (strcasecmp(mi_config_[i].name, name) == 0) return &mi_config_[i];
  return NULL;
}

int mi_config_size(const mi_config_info *c) {
  switch (c->type) {
  case MI_CT_BA96: return 12;
  case MI_CT_BA64: return 8;
  case MI_CT_CA8: return 8;
  default: return 4;
  }
}

const mi_devtype_info *mi_devtype(int code) {
  return code >= 1 && code <= mi_ndevtypes_ ? &mi_devtypes_[code - 1] : NULL;
}

const mi_devtype_info *mi_devtype_find(const char *name) {
  for (int i = 0; name && i < mi_ndevtypes_; i++)
    if (strcasecmp(mi_devtypes_[i].name, name) == 0) return &mi_devtypes_[i];
  return NULL;
}

int mi_devtype_count(void) { return mi_ndevtypes_; }

/* ---- statuses, from the one X-macro list ---- */
#define ROW(code, name, msg) {code, #name, msg},
static const struct { int code; const char *name, *msg; } statuses[] = {MI_STATUS_MAP(ROW)};
#undef ROW
#define NSTATUS ((int)(sizeof(statuses) / sizeof(statuses[0])))

const char *mi_status_message(int code) {
  for (int i = 0; i < NSTATUS; i++)
    if (statuses[i].code == code) return statuses[i].msg;
  return "unknown status";
}

const char *mi_status_name(int code) {
  for (int i = 0; i < NSTATUS; i++)
    if (statuses[i].code == code) return statuses[i].name;
  return NULL;
}

int mi_status_code(const char *name) {
  for (int i = 0; name && i < NSTATUS; i++)
    if (strcasecmp(statuses[i].name, name) == 0) return statuses[i].code;
  return 1;
}

int mi_status_at(int i, int *code, const char **name, const char **message) {
  if (i < 0 || i >= NSTATUS) return 0;
  if (code) *code = statuses[i].code;
  if (name) *name = statuses[i].name;
  if (message) *message = statuses[i].msg;
  return 1;
}

int mi_status_info(status_type st) { return st.all == 0 ? 0 : st.s.info; }

int64_t mi_longint_get(const longint_type *v) {
  return v ? (int64_t)(((uint64_t)(uint32_t)v->left << 32) | (uint32_t)v->right) : 0;
}

void mi_longint_set(longint_type *v, int64_t x) {
  if (!v) return;
  v->left = (int32_t)(uint32_t)((uint64_t)x >> 32);
  v->right = (int32_t)(uint32_t)(uint64_t)x;
}
