/* config.c — the store's configuration cells (items 3001-3046): defaults from config.tsv
 * and the writers a source uses (mi_host_config_*). The AIFs that read and change them,
 * AIFSCGET and AIFSCPUT, are in aif/config.c. */
#include <stdlib.h>
#include <string.h>
#include "mi_internal.h"
#include "mi_source.h"

#define CFG(sys, item) ((sys)->seg->cfg[(item) - 3001])

/* Returns the mask bytes and size of item 3015/3016. */
uint8_t *mi_config_mask(mi_system *sys, int32_t item, int *nbytes) {
  *nbytes = item == 3015 ? 12 : 8;
  return item == 3015 ? sys->seg->allow : sys->seg->logging;
}

/* Returns the text buffer of item 3037/3044/3045, or NULL. */
char *mi_config_text(mi_system *sys, int32_t item) {
  char (*t)[8] = sys->seg->text;
  return item == 3037 ? t[0] : item == 3044 ? t[1] : item == 3045 ? t[2] : NULL;
}

/* Notes that a configuration value changed (in a write section): sources re-read it. */
void mi_config_changed(mi_seg *g) { MI_ST(g->h.cfg_gen, g->h.cfg_gen + 1); }

void mi_config_defaults(mi_system *sys) {
  for (int i = 0; i < MI_NCONFIG; i++) {
    const mi_config_info *c = &mi_config_[i];
    switch (c->type) {
    case MI_CT_I32: case MI_CT_BOOL: sys->seg->cfg[i] = (int32_t)strtol(c->deflt, NULL, 10); break;
    case MI_CT_CA8: mi_host_config_text(sys, c->item, c->deflt); break;
    default: {
      int n; uint8_t *m = mi_config_mask(sys, c->item, &n);
      for (const char *p = c->deflt; *p;) {
        char *end; long b = strtol(p, &end, 10);
        if (end == p) break;
        if (b >= 0 && b < n * 8) m[b >> 3] |= (uint8_t)(0x80 >> (b & 7));
        p = *end == ',' ? end + 1 : end;
      }
    }
    }
  }
}

int mi_host_config_set(mi_system *sys, int32_t item, int32_t value) {
  const mi_config_info *c = mi_config_lookup(item);
  if (!sys || sys->attached || !c || (c->type != MI_CT_I32 && c->type != MI_CT_BOOL)) return -1;
  if ((item == 3042 || item == 3043) && value < 1) return -1;   /* every tick conversion divides by them */
  int32_t v = c->type == MI_CT_BOOL ? value != 0 : value;
  mi_wlock(sys);
  if (CFG(sys, item) != v) { MI_ST(CFG(sys, item), v); mi_config_changed(sys->seg); }
  if (item == 3042) mi_set_round(sys->seg, value);
  mi_wunlock(sys);
  return 0;
}

uint32_t mi_host_config_gen(const mi_system *sys) { return sys ? MI_LD(sys->seg->h.cfg_gen) : 0; }

int32_t mi_host_config(const mi_system *sys, int32_t item) {
  const mi_config_info *c = mi_config_lookup(item);
  return sys && c && (c->type == MI_CT_I32 || c->type == MI_CT_BOOL) ? MI_LD(CFG(sys, item)) : 0;
}

int mi_host_config_text(mi_system *sys, int32_t item, const char *text) {
  char *t = sys && !sys->attached ? mi_config_text(sys, item) : NULL;
  if (!t || !text) return -1;
  size_t n = strnlen(text, 8);
  mi_wlock(sys);
  for (size_t k = 0; k < 8; k++) MI_ST(t[k], k < n ? text[k] : ' ');
  mi_config_changed(sys->seg);
  mi_wunlock(sys);
  return 0;
}

int mi_host_config_mask(mi_system *sys, int32_t item, const uint8_t *bytes, int n) {
  if (!sys || sys->attached || !bytes || (item != 3015 && item != 3016)) return -1;
  int size;
  uint8_t *m = mi_config_mask(sys, item, &size);
  if (n != size) return -1;
  mi_wlock(sys);
  for (int k = 0; k < size; k++) MI_ST(m[k], bytes[k]);
  mi_config_changed(sys->seg);
  mi_wunlock(sys);
  return 0;
}

int mi_host_config_bit(const mi_system *sys, int32_t item, int bit) {
  if (!sys || (item != 3015 && item != 3016)) return 0;
  int n; uint8_t *m = mi_config_mask((mi_system *)sys, item, &n);
  return bit >= 0 && bit < n * 8 ? (MI_LD(m[bit >> 3]) >> (7 - (bit & 7))) & 1 : 0;
}

