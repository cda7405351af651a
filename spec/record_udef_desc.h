/* record_udef_desc.h — the user-defined counters of the recording tests and of the record
 * harness's seeds (spec/test_record.c, spec/fuzz/fuzz_record_seeds.c): every kind, 0-6
 * installed before a recording, 7 and 8 while it records. */
#ifndef RECORD_UDEF_DESC_H
#define RECORD_UDEF_DESC_H
#include "mi_userdef.h"
static const mi_udef_desc ud_desc[9] = {
  {"orders_placed", MI_UDEF_ACCUM, "orders", "orders the shop took", 0, 1},
  {"proc_orders", MI_UDEF_ACCUM, NULL, "orders a process took", 1, 1},
  {"bytes_total", MI_UDEF_FACCUM, "bytes", "bytes shipped", 0, 1},
  {"server_busy", MI_UDEF_BUSY, NULL, "time the server was busy", 0, 1},
  {"work_queue", MI_UDEF_QUEUE, NULL, "work list length, time-weighted", 0, 1},
  {"disk_qbusy", MI_UDEF_QBUSY, NULL, NULL, 0, 1},
  {"size_buckets", MI_UDEF_ACCUM, NULL, "orders by size", 0, 4},
  {"late_events", MI_UDEF_ACCUM, NULL, "installed while recording", 0, 1},
  {"late_busy", MI_UDEF_BUSY, NULL, "per-process busy, installed while recording", 1, 1},
};
#endif
