/* fuzz_registry.c — the user-ID registry file (AIFGLOBINSTALL / AIFACCESSON with
 * mi_system_options.registry): the file's content is the fuzz input. Checks: statuses from
 * Appendix A; every line (up to 80 characters) that is just a decimal ID 1..2^31-1 is accepted; nothing is
 * accepted that is not the leading number of a line; an ID AIFGLOBINSTALL reports installed
 * is in the file on a line of its own, and a system reading the file afterwards has it and
 * every ID it had before. */
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_common.h"

static char base[128], regpath[720];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  fz_avoid_init();
  unsetenv("MI_AIFKUF");
  snprintf(base, sizeof base, "%s", fz_scratch_dir("reg"));
  return 0;
}

/* How a line's leading number reads with strtol semantics (the lenient reading); 0 if none in 1..INT32_MAX. */
static int32_t lenient(const char *line) {
  char *end;
  long v = strtol(line, &end, 10);
  return end != line && v > 0 && v <= INT32_MAX ? (int32_t)v : 0;
}
/* The ID of a line of at most 80 characters that is only blanks, 1-10 digits and blanks
 * (core/DECISIONS.md decision 4: a longer line is a bad line whatever it holds); 0 if not such a line. */
static int32_t strict(const char *line, size_t len) {
  size_t i = 0;
  if (len > 80) return 0;
  while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) i++;
  size_t d0 = i;
  int64_t v = 0;
  while (i < len && line[i] >= '0' && line[i] <= '9' && i - d0 < 11) v = v * 10 + (line[i++] - '0');
  size_t nd = i - d0;
  while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) i++;
  if (i != len || nd == 0 || nd > 10 || v < 1 || v > INT32_MAX) return 0;
  return (int32_t)v;
}

/* A set of IDs. */
typedef struct idset { int32_t v[4096]; int n; } idset;
/* Adds a nonzero ID to a set. */
static void add_id(idset *s, int32_t v) { if (v && s->n < 4096) s->v[s->n++] = v; }
/* 1 if the set holds v. */
static int has_id(const idset *s, int32_t v) { for (int i = 0; i < s->n; i++) if (s->v[i] == v) return 1; return 0; }
/* Reads text line by line into the strict and the lenient set of IDs (a line is cut at a NUL). */
static void read_sets(const uint8_t *text, size_t n, idset *strict_set, idset *lenient_set) {
  strict_set->n = lenient_set->n = 0;
  char line[4200];
  size_t start = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i < n && text[i] != '\n') continue;
    size_t len = i - start < sizeof line - 1 ? i - start : sizeof line - 1;
    memcpy(line, text + start, len);
    line[len] = 0;
    size_t cut = strlen(line);
    add_id(lenient_set, lenient(line));
    if (cut == len) add_id(strict_set, strict(line, len));
    start = i + 1;
  }
}

/* Reads a whole file into buf; bytes read or -1. */
static long slurp(const char *path, uint8_t *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return (long)n;
}

/* One input: a registry file and path, a system reading it, an AIFACCESSON and an AIFGLOBINSTALL. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  uint8_t mode = fz_u8(&in);
  int32_t install = fz_u8(&in) < 200 ? 1 + (int32_t)(fz_u32(&in) % 100000) : fz_int32(&in);
  int32_t probe = fz_int32(&in);
  /* the registry path: a plain file, a directory, or a path longer than the core's 512 bytes */
  char dir[700];
  snprintf(dir, sizeof dir, "%s", base);
  if ((mode & 7) == 7 && !(fz_avoid & FZ_AVOID_REGPATH)) {
    for (int k = 0; k < 3; k++) {
      size_t l = strlen(dir);
      dir[l] = '/';
      memset(dir + l + 1, 'a' + k, 180);
      dir[l + 181] = 0;
      mkdir(dir, 0755);
    }
  }
  snprintf(regpath, sizeof regpath, "%s/aifkuf", dir);
  int is_dir = (mode & 7) == 6;
  /* the file content: the rest of the input (lines kept short and ended when avoiding known defects) */
  static uint8_t text[8192];
  size_t n = 0;
  int col = 0;
  while (in.n && n < sizeof text - 2) {
    uint8_t c = fz_u8(&in);
    if (fz_avoid & FZ_AVOID_REGLINE) {
      if (c == '\n') col = 0;
      else if (++col > 60) { text[n++] = '\n'; col = 1; }
    }
    text[n++] = c;
  }
  if ((fz_avoid & FZ_AVOID_REGLINE) && n && text[n - 1] != '\n') text[n++] = '\n';
  unlink(regpath);
  rmdir(regpath);
  if (is_dir) mkdir(regpath, 0755);
  else {
    FILE *f = fopen(regpath, "wb");
    if (!f) abort();
    fwrite(text, 1, n, f);
    fclose(f);
  }
  idset strict_set, lenient_set;
  static idset S1, L1;
  read_sets(text, is_dir ? 0 : n, &strict_set, &lenient_set);
  S1 = strict_set; L1 = lenient_set;

  mi_system_options o = {0};
  o.registry = regpath;
  mi_system *sys = mi_system_new(&o);
  FZ_CHECK(sys != NULL || strlen(regpath) >= 4096, "mi_system_new with registry '%s'", regpath);
  if (!sys) return 0;   /* a path too long is refused, never cut (then nothing to check) */
  mi_session *s = mi_session_new(sys);
  mi_session_set_priv(s, 1);
  for (int i = 0; i < sys->nuids; i++)
    FZ_CHECK(has_id(&L1, sys->uids[i]), "registry: ID %d accepted but no line of the file starts with it", (int)sys->uids[i]);
  for (int i = 0; i < S1.n; i++) {
    status_type st;
    mi_accesson(s, &st, S1.v[i]);
    FZ_CHECK(st.all == 0, "registry: the line '%d' is not accepted (AIFACCESSON %d)", (int)S1.v[i], st.s.info);
  }
  status_type st;
  mi_accesson(s, &st, probe);
  fz_check_overall(st, 0, "AIFACCESSON");
  FZ_CHECK(st.all == 0 || st.s.info == MI_E_NO_SUCH_USER_ID, "AIFACCESSON(%d): %d", (int)probe, st.s.info);
  if (st.all == 0) FZ_CHECK(mi_registry_has(sys, probe), "AIFACCESSON(%d) succeeded for an ID not installed", (int)probe);
  mi_globinstall(s, &st, install);
  fz_check_overall(st, 0, "AIFGLOBINSTALL");
  FZ_CHECK(st.all == 0 || st.s.info == MI_E_NO_SUCH_USER_ID || st.s.info == MI_E_SHARED_CREATE, "AIFGLOBINSTALL(%d): %d",
           (int)install, st.s.info);
  if (is_dir) FZ_CHECK(st.all != 0 || has_id(&L1, install), "AIFGLOBINSTALL(%d) into a directory succeeded", (int)install);
  if (st.all == 0 && !is_dir && !has_id(&L1, install)) {
    /* it was written: the file must now hold it on a line of its own, and a new reader must see everything */
    static uint8_t after[8300];
    long m = slurp(regpath, after, sizeof after);
    FZ_CHECK(m >= 0, "registry file '%s' gone after AIFGLOBINSTALL", regpath);
    idset S2, L2;
    read_sets(after, (size_t)m, &S2, &L2);
    FZ_CHECK(has_id(&S2, install), "AIFGLOBINSTALL(%d) succeeded but the file at the given path has no line '%d'",
             (int)install, (int)install);
    mi_system *again = mi_system_new(&o);
    FZ_CHECK(mi_registry_has(again, install), "a system reading the registry after AIFGLOBINSTALL(%d) does not have it", (int)install);
    for (int i = 0; i < S1.n; i++)
      FZ_CHECK(mi_registry_has(again, S1.v[i]), "after AIFGLOBINSTALL(%d) the ID %d of the file is lost", (int)install, (int)S1.v[i]);
    mi_system_free(again);
  }
  mi_accessoff(s, &st, probe);
  fz_check_overall(st, 0, "AIFACCESSOFF");
  mi_system_free(sys);
  unlink(regpath);
  rmdir(regpath);
  return 0;
}
