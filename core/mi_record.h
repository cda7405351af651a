/* mi_record.h — recordings: a system's raw counter cells written to a file as they change
 * (the recorder), read back record by record (the reader), and replayed as a source
 * ("replay:PATH" for mi_system_open). The file format is specified in core/RECORDING.md:
 * framed, checksummed records that survive a torn tail and damage in the middle.
 * For: programs that record a system to a file, read a recording back, or replay it. */
#ifndef MI_RECORD_H
#define MI_RECORD_H

#include "mi_catalog.h"
#include "mi_userdef.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- recording ---- */
typedef struct mi_recorder mi_recorder;

enum { MI_REC_FSYNC_INTERVAL = 0, MI_REC_FSYNC_NONE = 1, MI_REC_FSYNC_EVERY = 2 };

/* Options of a recorder; NULL or zero fields mean the defaults. */
typedef struct mi_rec_options {
  int fsync;                 /* MI_REC_FSYNC_INTERVAL (default), _NONE or _EVERY */
  int fsync_ms;              /* interval policy: fdatasync when this much time passed (default 10000) */
  int key_every;             /* samples between key records (default 60) */
  int index_every;           /* keys between index records (default 16) */
  int map1;                  /* object-class mapping + 1 to enable with: 1 large, 2 small (the default: 0), 3 standard */
  int32_t user_id;           /* the recorder's MI user ID (default 666) */
  const char *machine;       /* description for the header (default: uname and host name) */
  const char *mish_version;  /* the program's version for the header (default "?") */
} mi_rec_options;

/* An entry of a recorder's item list: every user-defined counter of the system (mi_userdef.h), those
 * installed while it records too. A user-defined counter may also be named by its number (29000..). */
#define MI_REC_USERDEF_ALL (-1)

/* Starts recording sys into path: enables items (counters of any domain; n of them; processor items
 * through global 21164) for all processes and LDEVs as an MI user of its own, then writes the header
 * and a first key sample. The system's table of user-defined counters is always recorded (and again
 * when counters are installed); their values as the item list asks. An existing recording is appended to: a torn tail is cut off (and a mark
 * says so) and a new segment begins; anything else (a symbolic link, not a regular file, not a recording) is
 * refused and left as it was, and an open that fails cuts what it wrote back off. One recorder per file (a
 * lock). NULL with the reason in err. */
MI_API mi_recorder *mi_recorder_open(mi_system *sys, const char *path, const int32_t *items, int n,
                                     const mi_rec_options *o, char *err, size_t errlen);
/* Takes one sample now (brings the source up to date first): births, deaths, device and
 * configuration changes, then the cells. 0, or -1 with errno (a write failed; the file stays
 * readable up to the last whole record). */
MI_API int mi_recorder_sample(mi_recorder *r);
/* Writes a gap mark with a note (e.g. "source unavailable"); 0 or -1. */
MI_API int mi_recorder_mark(mi_recorder *r, const char *text);
/* What a recorder wrote so far. raw_bytes: the cells' bytes had each sample been written as 8-byte
 * words; last_*: of the latest sample alone. */
typedef struct mi_rec_stats {
  int64_t samples, records, bytes, raw_bytes, last_bytes, last_raw_bytes, cells;
} mi_rec_stats;
/* Fills st with the recorder's figures. */
MI_API void mi_recorder_stats(const mi_recorder *r, mi_rec_stats *st);
/* Writes an end mark and a final index, syncs and closes; frees r (NULL is fine). 0 or -1. */
MI_API int mi_recorder_close(mi_recorder *r);

/* ---- reading ---- */
typedef struct mi_rec_reader mi_rec_reader;

/* What mi_rec_next reports, one per call. */
enum {
  MI_REV_END = 0,      /* no more records */
  MI_REV_SEGMENT,      /* a header: a (new) segment begins; the layout and information changed */
  MI_REV_ENTITY,       /* births, deaths, LDEV or CPU changes: see mi_rec_process, _device, _cpus */
  MI_REV_CONFIG,       /* configuration items changed: see mi_rec_config */
  MI_REV_MARK,         /* a mark: mark, a, b, text */
  MI_REV_SAMPLE,       /* a sample: the cells (mi_rec_row) and present entities are now at time */
  MI_REV_DAMAGE,       /* bytes at offset are not whole records: skipped (samples resume at a key) */
  MI_REV_TORN,         /* the file ends in bytes at offset that are not a whole record */
};
enum { MI_MARK_RESTART = 1, MI_MARK_GAP = 2, MI_MARK_TORN = 3, MI_MARK_END = 4 };

typedef struct mi_rec_event {
  int type;                /* MI_REV_* */
  int64_t time;            /* ticks since 1970 of the recorded system */
  int64_t offset, bytes;   /* the record (DAMAGE, TORN: the region) */
  uint64_t seq;            /* the record's sequence number */
  int key;                 /* SAMPLE: 1 for a key record */
  int skipped;             /* SAMPLE: 1 if it could not be applied (after damage, until a key) */
  int mark;                /* MARK: MI_MARK_* */
  int64_t a, b;            /* MARK: MI_MARK_TORN offset and bytes cut */
  const char *text;        /* MARK: its note (valid until the next call) */
  int back;                /* SAMPLE: 1 if its time is earlier than the previous sample's (the clock went back) */
} mi_rec_event;

/* One recorded item of a domain: its number, words in a row, first word and catalog entry (of a
 * user-defined counter: from the recorded table; NULL for a number this mish does not know). */
typedef struct mi_rec_item { int32_t item, words, at; const mi_item_info *it; } mi_rec_item;
/* A process as recorded (the pseudo-items' identity). */
typedef struct mi_rec_proc {
  int64_t pid, start_ticks, end_ticks;
  char user[48], program[48];   /* filename_type images: name, group, account, 16 bytes each */
  uint32_t js;                  /* jsnum_type image */
  int32_t ptype;
  int alive;
  uint32_t seen;                /* changes whenever the identity is read (a birth, a key's entry) */
} mi_rec_proc;
/* The file's header information (of the segment being read). */
typedef struct mi_rec_info {
  int version;
  int32_t tpm, mapping;
  char mish_version[32], source[64], machine[256];
  int64_t first_time, last_time;   /* the file's span: its earliest and latest sample time (-1 if none) */
  int64_t file_bytes;
  int continued;                   /* the segment's header only says the layout grew (version 2) */
  int64_t sample_time;             /* the time of the latest sample applied (-1 before one) */
  int udef_count;                  /* user-defined counters in the segment's table (version 2) */
  int64_t steps_back;              /* samples of the file whose time is earlier than the sample before (at open: the
                                      last span mark's and the frames after it; reading a step a mark left out counts it) */
} mi_rec_info;
/* A user-defined counter as recorded (format version 2): its catalog entry (number MI_UDEF_FIRST +
 * its place in the table, name, domain, unit, type; description = help, or the name), its kind
 * (MI_UDEF_*), array elements, cells per row, the pid that installed it, and the texts. */
typedef struct mi_rec_udef {
  mi_item_info item;
  int kind, elements, words;
  int32_t owner_pid;
  char name[MI_UDEF_NAME], unit[MI_UDEF_UNIT], help[MI_UDEF_HELP];
} mi_rec_udef;
/* A full check of a file (mi_rec_verify). */
typedef struct mi_rec_health {
  int64_t bytes, records, samples, keys, segments;        /* samples (and keys): those a reader applies */
  int64_t damaged_regions, damaged_bytes, first_damage;   /* first_damage -1 if none */
  int64_t torn_at, torn_bytes;                            /* torn_at -1 if the tail is whole */
  int64_t seq_gaps, first_time, last_time;
  int64_t continued;   /* continued headers: a segment grew (counters installed while recording); not in segments */
  int64_t steps_back, first_step_back;   /* samples earlier than the sample before; the first one's offset (-1) */
  int64_t unreadable;  /* whole sample records past damage that cannot be read (no key since): not in samples (#30.6) */
  int64_t bad_marks;   /* index records whose span mark cannot be true or disagrees with the samples before them */
} mi_rec_health;

/* Opens a recording for reading (mapped, never written). NULL with the reason in err: cannot open,
 * not a recording, a newer format version or another byte order. */
MI_API mi_rec_reader *mi_rec_open(const char *path, char *err, size_t errlen);
/* Closes a reader; NULL is fine. */
MI_API void mi_rec_close(mi_rec_reader *r);
/* Reads the next record and reports it in ev; returns ev->type (MI_REV_END at the end). */
MI_API int mi_rec_next(mi_rec_reader *r, mi_rec_event *ev);
/* Says what the next mi_rec_next will report (MI_REV_DAMAGE for bytes that are not a whole record)
 * and *t its time, without reading it: the state stays as it is. */
MI_API int mi_rec_peek(mi_rec_reader *r, int64_t *t);
/* Positions the reader where every sample at or after ticks is still ahead, and forgets the state:
 * at the latest key before ticks (through the index; the start if none), or at the start when the
 * file's clock goes back somewhere (steps_back). 0, or -1 if the file holds no key. */
MI_API int mi_rec_seek(mi_rec_reader *r, int64_t ticks);
/* Finds the span and the steps back from every frame's time, not from the file's span marks, and
 * makes them the reader's (a reader that must not take the file's word: a replay). NULL is fine. */
MI_API void mi_rec_span_frames(mi_rec_reader *r);
/* Scans the whole file (from the start; the reader is rewound after, its span and steps back then
 * those of every frame). Returns 0 clean, 1 torn tail only, 2 damaged regions, gaps or span marks
 * that lie (a torn tail too, maybe). */
MI_API int mi_rec_verify(mi_rec_reader *r, mi_rec_health *h);
/* Returns the header information of the segment being read. */
MI_API const mi_rec_info *mi_rec_info_get(const mi_rec_reader *r);
/* Returns the items of domain recorded in this segment (*row_words: words per entity). */
MI_API int mi_rec_layout(const mi_rec_reader *r, int domain, const mi_rec_item **items, int *row_words);
/* Returns what a GET shows of a recorded user-defined counter whose cells are at c (from mi_rec_row
 * plus its item's first word), part 0 (QBUSY: 1 the queue part), at the latest sample: ACCUM the
 * sum of its elements, FACCUM its value, BUSY/QUEUE/QBUSY the accumulated time in ticks up to
 * the sample's time (the level since its last change included). 0 for anything else. */
MI_API int64_t mi_rec_udef_value(const mi_rec_reader *r, int32_t item, const int64_t *c, int part);
/* Returns the user-defined counters of the segment being read (*tab: entry k is item MI_UDEF_FIRST + k;
 * 0 for a version-1 file). */
MI_API int mi_rec_udefs(const mi_rec_reader *r, const mi_rec_udef **tab);
/* Returns how many entities of domain the latest sample held; *keys their keys (process slot,
 * LDEV, processor; 0 for global) in ascending order. */
MI_API int mi_rec_present(const mi_rec_reader *r, int domain, const int32_t **keys);
/* Returns the cells of an entity as of the latest sample (row_words of them), or NULL. */
MI_API const int64_t *mi_rec_row(const mi_rec_reader *r, int domain, int32_t key);
/* Returns the recorded process in slot (0-2699), or NULL. */
MI_API const mi_rec_proc *mi_rec_process(const mi_rec_reader *r, int32_t slot);
/* Returns LDEV's device type as recorded (0 none). */
MI_API int mi_rec_device(const mi_rec_reader *r, int32_t ldev);
/* Returns the number of processors as recorded. */
MI_API int mi_rec_cpus(const mi_rec_reader *r);
/* Returns configuration item's recorded bytes (*size of them; as AIFSCGET gives them), or NULL. */
MI_API const uint8_t *mi_rec_config(const mi_rec_reader *r, int32_t item, int *size);
/* Parses a time: ISO 8601 "2026-11-22T06:00:00[.fff][Z|+hh:mm]" or a date "2026-11-22" (no zone =
 * UTC), a time of day "10:51[:30[.fff]][zone]" (the one within 12 hours of base), "@TICKS" (digits),
 * or an offset "+10m" / "-1.5h" from base: a decimal number, digits only, and s, m, h, d (no unit =
 * seconds). 0 with *out in ticks (tpm ticks per ms), -1 if it is none of those or its ticks would
 * leave 64 bits. */
MI_API int mi_rec_parse_time(const char *s, int64_t base, int32_t tpm, int64_t *out);

/* ---- replay (the "replay" source, core/sources/replay.c) ---- */
/* The text of mi_source_args.window: "from=T,to=T,speed=N|max" (any part may be left out; T as
 * mi_rec_parse_time, offsets from the file's first sample; "to=+10m" from the window's start). */

/* Advances a replayed system by ms of recorded time (speed max: the program steps it), at least
 * to the next sample. 1 if it moved, 0 at the end of the window, -1 if sys is not a replay. */
MI_API int mi_replay_step(mi_system *sys, int64_t ms);
/* The replay's recorded time in milliseconds since 1970, or -1 if sys is not a replay. */
MI_API int64_t mi_replay_clock_ms(mi_system *sys);
/* 1 once a replay has shown the last sample of its window (a paced replay too), 0 before, -1 not a replay. */
MI_API int mi_replay_ended(mi_system *sys);
/* The samples of its window a replay has applied so far (several sharing one recorded time are
 * applied in one step, each counted), or -1 if sys is not a replay. */
MI_API int64_t mi_replay_samples(mi_system *sys);
/* What a replay has seen of its file: 1 if it found damage or a torn tail so far, text saying what. */
MI_API int mi_replay_state(mi_system *sys, char *text, size_t n);

#ifdef __cplusplus
}
#endif
#endif
