/* labels.h — how the exporter writes a label value's bytes (core/export only). */
#ifndef MI_EXPORT_LABELS_H
#define MI_EXPORT_LABELS_H
#include <stddef.h>

/* Bytes of the character at p as a label writes it; 0: written as '?' (not UTF-8, or a control
 * other than newline). */
int mi_om_label_char(const unsigned char *p);
/* Writes into key (cap bytes, cap >= 6) the program name as a label shows it, '?' for each byte
 * written as '?' (unescaped; cut at a character's edge when it does not fit); returns key. */
const char *mi_om_label_key(const char *name, char *key, size_t cap);

#endif
