/* labels.c — how the exporter writes a label value's bytes: UTF-8 characters as they are, any
 * other byte (and a control other than newline) as '?'. The groups of processes are keyed by the
 * name as written, so names written alike are one series (one label set). */
#include <string.h>
#include "labels.h"

int mi_om_label_char(const unsigned char *p) {
  unsigned c = *p;
  int n = c < 0x80 ? !(c < 0x20 && c != '\n') : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4 : 0;
  for (int k = 1; k < n; k++) if ((p[k] & 0xC0) != 0x80) return 0;
  return n;
}

const char *mi_om_label_key(const char *name, char *key, size_t cap) {
  size_t kl = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p && kl + 5 < cap;) {
    int n = mi_om_label_char(p);
    if (!n) { key[kl++] = '?'; p++; continue; }
    memcpy(key + kl, p, (size_t)n);
    kl += (size_t)n;
    p += n;
  }
  key[kl] = 0;
  return key;
}
