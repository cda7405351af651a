/* linux.c — the host source: Linux's own accounting from /proc, written into the counter
 * store through mi_host.h only. A refresh reads /proc/stat and what the enabled counters need
 * (mi_host_active, mi_host_wants): interrupts, meminfo, vmstat and diskstats for their items,
 * the process table (/proc listing, every [pid]/stat; at a birth status, exe and the lookups of
 * the process's MPE identity) while someone has processes on, [pid]/io for the process I/O
 * items, and adds the differences since the last reading; mi_linux_refresh reads everything.
 * Only a gone pid directory or stat is a death; a failed read or a malformed file is skipped
 * for this refresh and counted (mi_linux_health), never a death, a birth or a figure. Any tree under the root is safe to read: files are
 * checked to be regular, read whole and NUL-terminated, parsed field by field.
 * The figure behind every mapped item is in the table `map` below; the system-wide files are
 * read in linux_sys.c, the state and helpers both share are in linux_int.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "linux_int.h"
#include "mi_testhook.h"

static const struct { int32_t item; const char *figure; } map[NROLE] = {
  {21177, "/proc/stat cpu idle"}, {21176, "/proc/stat cpu iowait"}, {21184, "/proc/stat cpu user"},
  {21185, "/proc/stat cpu nice"}, {21183, "/proc/stat cpu system"}, {21092, "/proc/stat procs_running"},
  {21112, "/proc/stat procs_blocked"}, {21309, "/proc/meminfo MemFree / 2 KB"},
  {21254, "/proc/vmstat pgmajfault (class 0)"},
  {27006, "/proc/stat cpuN idle + iowait"}, {27012, "/proc/stat cpuN irq + softirq + steal"},
  {27022, "/proc/stat cpuN system"}, {27023, "/proc/stat cpuN user"}, {27024, "/proc/stat cpuN nice"},
  {27014, "/proc/interrupts CPUn column, every per-CPU row"},
  {25047, "/proc/[pid]/stat utime + stime"}, {25167, "/proc/[pid]/io syscr"}, {25168, "/proc/[pid]/io syscw"},
  {25169, "/proc/[pid]/io read_bytes"}, {25170, "/proc/[pid]/io write_bytes"},
  {25202, "/proc/[pid]/stat majflt (class 0)"},
  {23040, "/proc/diskstats sectors read x 512"}, {23041, "/proc/diskstats sectors written x 512"},
  {23024, "/proc/diskstats ms reading"}, {23023, "/proc/diskstats ms writing"},
  {23034, "/proc/diskstats I/Os in progress"}, {23009, "/proc/diskstats reads completed"},
  {23010, "/proc/diskstats writes completed"}, {23048, "/proc/diskstats reads completed"},
  {23049, "/proc/diskstats writes completed"}, {23046, "/proc/diskstats reads + writes completed"},
  {25048, "/proc/[pid]/schedstat run_delay (ns waiting on a run queue)"},
  {25049, "/proc/[pid]/schedstat pcount (times run on a CPU)"},
  {21110, "processes sleeping (S) in the tty read (/proc/[pid]/wchan n_tty_read, tty_read)"},
  {21119, "processes sleeping in nanosleep (/proc/[pid]/wchan *nanosleep*)"},
  {21121, "processes sleeping on a futex (/proc/[pid]/wchan *futex*)"},
  {21122, "processes sleeping in wait4/waitid (/proc/[pid]/wchan do_wait, kernel_wait4)"},
  {21126, "processes sleeping on a pipe or socket (/proc/[pid]/wchan *pipe_*, unix_*, sk_wait_data, inet_csk_accept...)"},
  {21129, "processes sleeping for a System V or POSIX message (/proc/[pid]/wchan do_msgrcv, wq_sleep, *mq_timedreceive)"},
  {25201, "/proc/[pid]/stat rss x page size / 2 KB, now (class 0)"},
  {21159, "processes now: kernel threads and real-time policies (/proc/[pid]/stat flags, policy)"},
  {21160, "processes now: other policies at nice < 0 (/proc/[pid]/stat nice)"},
  {21161, "processes now: SCHED_OTHER at nice 0"},
  {21162, "processes now: nice > 0 or SCHED_BATCH"},
  {21163, "processes now: SCHED_IDLE"},
  {21111, "processes sleeping in a terminal write (/proc/[pid]/wchan n_tty_write, tty_write...)"},
  {21146, "processes sleeping for a signal (/proc/[pid]/wchan sigsuspend, pause, do_sigtimedwait)"},
  {21116, "processes sleeping for a file lock (/proc/[pid]/wchan flock_lock_inode_wait, fcntl_setlk, locks_lock_inode_wait...)"},
  {21319, "processes now: kernel threads and pid 1 (/proc/[pid]/stat flags)"},
  {21320, "processes now: command interpreters (stat comm named in /etc/shells)"},
  {21321, "processes now: others whose parent is a command interpreter (stat ppid)"},
  {21322, "processes now: others whose parent is neither a system process nor a command interpreter"},
};

static const char *const io_key[NIO] = {"syscr", "syscw", "read_bytes", "write_bytes"};

/* ---- identity (core/SOURCES.md, "The host source": MPE names of a Linux process) ---- */

/* The MPE form of the name src[0..n): its first 8 characters, upper case, '_' for a dot or a
 * blank (a dot separates name parts), '?' for anything else that is not printable ASCII. */
static void mpe_name(char dst[12], const char *src, size_t n) {
  if (n > 8) n = 8;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)src[i];
    dst[i] = c == '.' || c == ' ' ? '_' : c < 33 || c > 126 ? '?' : (char)toupper(c);
  }
  dst[n] = 0;
}

/* The name field of the line for id in a passwd- or group-format text (name:password:id:...);
 * its length in *len, NULL if no line has that id. */
static const char *db_entry(const char *text, uint32_t id, size_t *len) {
  for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    const char *c1 = strchr(line, ':'), *eol = strchr(line, '\n');
    if (!c1 || (eol && c1 > eol) || c1 == line) continue;
    const char *c2 = strchr(c1 + 1, ':');
    if (!c2 || (eol && c2 > eol)) continue;
    const char *p = c2 + 1;
    uint64_t v;
    if (!isdigit((unsigned char)*p)) continue;
    for (v = 0; isdigit((unsigned char)*p) && v <= UINT32_MAX; p++) v = v * 10 + (uint64_t)(*p - '0');
    if (*p != ':' || v != id) continue;
    *len = (size_t)(c1 - line);
    return line;
  }
  return NULL;
}

/* The MPE name of user uid (group 0) or group gid (group 1), cached per id; the number when the
 * database has no entry; NULL when the database could not be read just now (noted: the birth
 * waits). The database is the machine's (getpwuid_r, getgrgid_r: NSS) for the root /proc, the
 * files passwd and group of <root>/../etc for any other root (none there: numbers). */
static const char *id_name(host *h, int group, uint32_t id) {
  idname *c = group ? h->groups : h->users;
  int *n = group ? &h->ngroups : &h->nusers;
  for (int i = 0; i < *n; i++) if (c[i].id == id) return c[i].name;
  char name[12] = "";
  if (h->sysdb) {
    struct passwd pw, *pr = NULL;
    struct group gr, *gres = NULL;
    char *b = NULL;
    int e = 0;
    for (size_t cap = 4096;; cap *= 2) {
      char *nb = realloc(b, cap);
      if (!nb) { e = ENOMEM; break; }
      b = nb;
      e = group ? getgrgid_r((gid_t)id, &gr, b, cap, &gres) : getpwuid_r((uid_t)id, &pw, b, cap, &pr);
      if (e != ERANGE || cap >= (1u << 20)) break;
    }
    const char *nm = group ? (gres ? gres->gr_name : NULL) : (pr ? pr->pw_name : NULL);
    if (nm) mpe_name(name, nm, strlen(nm));
    free(b);
    if (!nm && (e == EMFILE || e == ENFILE || e == ENOMEM || e == EINTR || e == EIO || e == EAGAIN)) {
      note_fail(h, e);
      return NULL;
    }
  } else {
    int err;
    size_t len = 0;
    ssize_t r = slurp(h, group ? "../etc/group" : "../etc/passwd", &err);
    if (r == RD_FAIL && err != ENOENT && err != ENOTDIR) { note_fail(h, err); return NULL; }
    if (r == RD_BAD) note_bad(h);   /* not a text file: no database */
    const char *e = r > 0 ? db_entry(h->buf, id, &len) : NULL;
    if (e) mpe_name(name, e, len);
  }
  int i = *n < NIDS ? (*n)++ : (int)(id % NIDS);
  c[i].id = id;
  if (name[0]) memcpy(c[i].name, name, sizeof name);
  else snprintf(c[i].name, sizeof c[i].name, "%u", id);
  return c[i].name;
}

/* Reads the shells file once (/etc/shells for the root /proc, else <root>/../etc/shells):
 * keeps the file names of its paths. 0, or -1 when it could not be read just now (noted). An
 * absent file lists no command interpreter. */
static int read_shells(host *h) {
  if (h->shells_read) return 0;
  int err;
  ssize_t n = h->sysdb ? slurp_at(h, "/etc/shells", "../etc/shells", &err) : slurp(h, "../etc/shells", &err);
  if (n == RD_FAIL && err != ENOENT && err != ENOTDIR) { note_fail(h, err); return -1; }
  if (n == RD_BAD) note_bad(h);
  h->shells_read = 1;
  h->nshells = 0;
  for (const char *line = n > 0 ? h->buf : NULL; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    while (*line == ' ' || *line == '\t') line++;
    if (*line != '/') continue;   /* a comment, a blank line, a relative name */
    size_t len = strcspn(line, " \t\n#");
    const char *base = line + len;
    while (base > line && base[-1] != '/') base--;
    size_t bl = (size_t)(line + len - base);
    if (bl == 0 || bl >= sizeof h->shells[0] || h->nshells >= NSHELLS) continue;
    memcpy(h->shells[h->nshells], base, bl);
    h->shells[h->nshells++][bl] = 0;
  }
  return 0;
}

/* 1 if name (an executable's file name, or a comm) is the file name of a listed shell. */
static int is_shell(const host *h, const char *name) {
  for (int i = 0; i < h->nshells; i++) if (strcmp(h->shells[i], name) == 0) return 1;
  return 0;
}

/* 1 if a failed read of a process's file means we may not see it (another user's process) or
 * it has none (a kernel thread's exe), not a failure of the reading. */
static int unseeable(int err) { return err == ENOENT || err == ESRCH || err == EACCES || err == EPERM || err == EINVAL; }

/* The executable of the process whose directory is rel ("42/"; rel has room for "exe") into
 * path[cap]: 1 if read (an absolute path, " (deleted)" dropped), 0 if there is none we may
 * see (kernel thread, another user's process: ENOENT, EACCES, EPERM; not a link), -1 if the
 * read failed otherwise (noted). *denied is set when it was refused (EACCES, EPERM). */
static int read_exe(host *h, char *rel, int len, char *path, size_t cap, int *denied) {
  int err = 0;
  ssize_t r;
  memcpy(rel + len, "exe", 4);
  *denied = 0;
  if (!injected(h, rel, &err)) h->files++;
  if (err) r = -1;
  else if (h->rootfd >= 0) r = readlinkat(h->rootfd, rel, path, cap - 1);
  else {
    char full[512];
    snprintf(full, sizeof full, "%s/%s", h->root, rel);
    r = readlink(full, path, cap - 1);
  }
  if (r < 0 && !err) err = errno;
  if (r < 0) {
    *denied = err == EACCES || err == EPERM;
    if (unseeable(err)) return 0;
    note_fail(h, err);
    return -1;
  }
  if (r == 0 || (size_t)r >= cap - 1 || path[0] != '/') return 0;   /* cut, or no path: unknown */
  path[r] = 0;
  static const char del[] = " (deleted)";
  if ((size_t)r > sizeof del - 1 && strcmp(path + r - (sizeof del - 1), del) == 0) path[r - (sizeof del - 1)] = 0;
  return 1;
}

/* argv[0] of the process whose directory is rel into path[cap] when it is an absolute path
 * whose file name is comm (as the kernel keeps it: its first 15 characters): 1 if so, else 0.
 * Read only for a process whose exe we may not see; any failure just says 0. */
static int argv0_path(host *h, char *rel, int len, const char *comm, char *path, size_t cap) {
  int err;
  memcpy(rel + len, "cmdline", 8);
  if (injected(h, rel, &err) || h->rootfd < 0) return 0;
  h->files++;
  int fd = open_rd(h->rootfd, rel);
  if (fd < 0) return 0;
  ssize_t r;
  do r = pread(fd, path, cap - 1, 0); while (r < 0 && errno == EINTR);
  close(fd);
  if (r <= 0 || path[0] != '/') return 0;
  path[r] = 0;
  const char *base = strrchr(path, '/') + 1;
  size_t bl = strlen(base), cl = strlen(comm);
  if (bl == 0 || cl == 0 || cl != (bl < 15 ? bl : 15) || strncmp(base, comm, cl) != 0) return 0;
  for (const char *c = path; *c; c++) if ((unsigned char)*c < 32) return 0;
  return 1;
}

/* The program FILE.GROUP.ACCOUNT from an absolute path: its last three components, each an
 * MPE name ("/usr/bin/bash" -> BASH.BIN.USR); parts above the root stay blank ("/init" -> INIT). */
static void program_of_path(const char *path, char part[3][12]) {
  const char *end = path + strlen(path);
  for (int k = 0; k < 3; k++) part[k][0] = 0;
  for (int k = 0; k < 3 && end > path; k++) {
    const char *s = end;
    while (s > path && s[-1] != '/') s--;
    mpe_name(part[k], s, (size_t)(end - s));
    end = s > path ? s - 1 : path;
  }
}

/* Cleans a kernel command name for the MI: printable ASCII, blanks for the rest. */
static void clean_name(char *s) {
  for (; *s; s++) if ((unsigned char)*s < 32 || (unsigned char)*s > 126) *s = '?';
}

/* Parses /proc/[pid]/stat in buf: the comm (up to the last ')') into comm[64], then fields
 * 3-22 must all be there; ppid (4), session (6), flags (9), majflt (12), utime (14), stime (15),
 * starttime (22) must be valid figures and tty_nr (7) a number, maybe negative (f[7] gets 1 if
 * it is not 0). Returns 1 if so. */
static int parse_pid_stat(const char *buf, char comm[64], uint64_t f[23]) {
  const char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
  if (!open_p || !close_p || close_p < open_p) return 0;
  size_t len = (size_t)(close_p - open_p - 1);
  if (len >= 64) len = 63;
  memcpy(comm, open_p + 1, len);
  comm[len] = 0;
  clean_name(comm);
  /* after ") ": state(3) ppid(4) ... minflt(10) cminflt(11) majflt(12) cmajflt(13) utime(14) stime(15) ... starttime(22) */
  const char *p = close_p + 1;
  for (int k = 3; k <= 22; k++) {   /* one blank between fields, as the kernel writes them */
    if (*p++ != ' ') return 0;
    if (k == 4 || k == 6 || k == 9 || k == 12 || k == 14 || k == 15 || k == 22) {
      if (!isdigit((unsigned char)*p) || !num(&p, &f[k])) return 0;
    } else if (k == 7) {   /* the device number of the controlling terminal, printed signed */
      if (*p == '-') p++;
      if (!isdigit((unsigned char)*p) || !num(&p, &f[k])) return 0;
      f[k] = f[k] != 0;
    } else {
      size_t n = strcspn(p, " \n");
      if (n == 0) return 0;
      p += n;
    }
  }
  return *p == ' ' || *p == '\n' || *p == 0;
}

/* The real ID of a "Uid:" or "Gid:" line (key) of /proc/[pid]/status ("Uid:\t1000\t...");
 * 1 if it is there and valid. */
static int status_id(const char *text, const char *key, uint64_t *id) {
  char nl[8] = "\n";
  memcpy(nl + 1, key, 6);
  const char *u = strncmp(text, key, 5) == 0 ? text : strstr(text, nl);
  if (!u) return 0;
  const char *p = u + (*u == '\n' ? 6 : 5);
  return isdigit((unsigned char)*p) && num(&p, id) && *id <= UINT32_MAX;
}

/* Field k (> 22) of a /proc/[pid]/stat text that parse_pid_stat accepted, counted as the
 * kernel's manual page does (vsize 23, rss 24); 1 and *v set if it is a plain figure. */
static int stat_field(const char *buf, int k, uint64_t *v) {
  const char *p = strrchr(buf, ')');
  for (int i = 2; p && i < k; i++) p = strchr(p + 1, ' ');
  if (!p) return 0;
  p++;
  return isdigit((unsigned char)*p) && num(&p, v);
}

/* 1 if a failed read of a process's file means the process is gone (its directory too). */
static int gone(int err) { return err == ENOENT || err == ESRCH; }

/* The start of a process in ticks since 1970 from btime and starttime (jiffies since boot),
 * 0 (= now) when either is unknown or out of range. */
static int64_t start_ticks(const host *h, uint64_t starttime, int64_t tpm) {
  if (h->btime <= 0 || tpm <= 0 || starttime / (uint64_t)h->hz > 1000000000000ull) return 0;
  int64_t ms = h->btime * 1000 + (int64_t)(starttime / (uint64_t)h->hz) * 1000 + (int64_t)(starttime % (uint64_t)h->hz) * 1000 / h->hz;
  return ms > INT64_MAX / tpm ? 0 : ms * tpm;
}

typedef struct wtally wtally;
static int read_proc(mi_system *sys, host *h, int64_t pid, int pio, int first, int depth, wtally *w);
static void where_stat(host *h, wtally *w, int64_t pid, const char *comm, const uint64_t *f, char *rel, int len);
static void where_read(host *h, wtally *w, int64_t pid);

/* A hash of a comm (never 0, so 0 means none yet). */
static uint64_t comm_hash(const char *comm) { return mi_host_hash(MI_HOST_HASH0, comm, strlen(comm)) | 1; }

/* The program of the process whose directory is rel (len) into prog: from its exe, or argv[0]
 * where the exe is refused, or its comm; *path_out = the executable's file name or NULL.
 * 0, or -1 when a read failed (noted). */
static int program_of(host *h, char *rel, int len, const char *comm, int kthread, char path[4096], char prog[3][12],
                      const char **name) {
  int denied = 0;
  int got = kthread ? 0 : read_exe(h, rel, len, path, 4096, &denied);
  if (got < 0) return -1;
  if (!got && denied) got = argv0_path(h, rel, len, comm, path, 4096);
  if (got) program_of_path(path, prog);
  else {
    mpe_name(prog[0], comm, strlen(comm));
    prog[1][0] = prog[2][0] = 0;
  }
  *name = got ? strrchr(path, '/') + 1 : comm;
  return 0;
}

/* The process type (MI_PT_*) of pid from its stat fields f, its program's file name and its parent. */
static int ptype_of(mi_system *sys, const host *h, int64_t pid, const uint64_t *f, const char *name) {
  int64_t ppid = (int64_t)f[4], sid = (int64_t)f[6];
  int ps = ppid > 0 ? mi_host_proc_slot(sys, ppid) : -1;
  int parent = ps >= 0 && mi_host_proc_alive(sys, ps) ? h->p[ps].ptype : -1;
  if ((f[9] & PF_KTHREAD) != 0 || pid == 1) return MI_PT_SYSTEM;
  if (pid == sid) return MI_PT_JSMAIN;
  if (is_shell(h, name)) return MI_PT_CI;
  if (parent == MI_PT_USER || parent == MI_PT_SON) return MI_PT_SON;
  return MI_PT_USER;
}

/* A known process whose comm changed ran another executable (exec; or renamed itself, when
 * its program, read again, stays): its program and type are read again as at its birth. */
static void reidentify(mi_system *sys, host *h, int slot, int64_t pid, char *rel, int len, const char *comm, const uint64_t *f) {
  char path[4096], prog[3][12];
  const char *name;
  if (program_of(h, rel, len, comm, (f[9] & PF_KTHREAD) != 0, path, prog, &name) < 0) return;   /* noted; tried again next time */
  if (read_shells(h) != 0) return;
  int pt = ptype_of(sys, h, pid, f, name);
  if (mi_host_proc_identity(sys, slot, prog[0], prog[1], prog[2], pt) == 0) h->p[slot].ptype = pt;
  h->p[slot].comm = comm_hash(comm);
}

/* The job/session number of a name: (hash mod 16383) + 1, the same name always the same. */
static int js_of_name(const char *s, size_t n) { return (int)(mi_host_hash(MI_HOST_HASH0, s, n) % 16383) + 1; }

/* What a process's cgroup v2 path (/proc/[pid]/cgroup, its "0::" line) says of its MPE
 * identity (core/SOURCES.md, "The host's processes"), from the deepest component up: a systemd
 * service unit ("nginx.service"; a timer runs its service) is a job (*js_type 2, *js_num from
 * the unit's name); a user session scope ("session-3.scope") is that session (1, its number);
 * a container ("docker-ID.scope", "libpod-ID.scope", "cri-containerd-ID.scope", "crio-ID.scope",
 * "machine-NAME.scope", "lxc.payload.NAME") is its own account (acct = the MPE form of its
 * name or ID). *js_type stays -1 and acct "" where the path says nothing (no file, cgroup v1 only,
 * the root, init.scope). Returns -1 when the read failed otherwise than by the process ending
 * or the file's absence (noted), else 0. */
static int cgroup_identity(host *h, char *rel, int len, int *js_type, int *js_num, char acct[12]) {
  int err;
  *js_type = -1;
  acct[0] = 0;
  memcpy(rel + len, "cgroup", 7);
  ssize_t n = slurp(h, rel, &err);
  if (n == RD_FAIL) { if (unseeable(err)) return 0; note_fail(h, err); return -1; }
  if (n < 0) { note_bad(h); return 0; }
  const char *line = h->buf;
  while (line && strncmp(line, "0::", 3) != 0) { line = strchr(line, '\n'); if (line) line++; }
  if (!line) return 0;
  const char *path = line + 3, *end = path + strcspn(path, "\n");
  for (const char *e = end; e > path;) {   /* components, deepest first */
    const char *b = e;
    while (b > path && b[-1] != '/') b--;
    size_t cl = (size_t)(e - b);
    static const char *const ctr[] = {"docker-", "libpod-", "cri-containerd-", "crio-", "machine-"};
    if (!acct[0]) {
      for (size_t k = 0; k < sizeof ctr / sizeof ctr[0]; k++) {
        size_t pl = strlen(ctr[k]);
        if (cl > pl + 6 && strncmp(b, ctr[k], pl) == 0 && strncmp(e - 6, ".scope", 6) == 0) {
          mpe_name(acct, b + pl, cl - pl - 6);
          break;
        }
      }
      if (!acct[0] && cl > 12 && strncmp(b, "lxc.payload.", 12) == 0) mpe_name(acct, b + 12, cl - 12);
    }
    if (*js_type < 0 && cl > 8 + 6 && strncmp(b, "session-", 8) == 0 && strncmp(e - 6, ".scope", 6) == 0) {
      uint64_t v = 0;
      const char *d = b + 8;
      for (; d < e - 6 && isdigit((unsigned char)*d) && v < 1000000000; d++) v = v * 10 + (uint64_t)(*d - '0');
      if (d == e - 6 && v > 0) { *js_type = 1; *js_num = (int)((v - 1) % 16383 + 1); }
    }
    if (*js_type < 0 && cl > 8 && strncmp(e - 8, ".service", 8) == 0 && !(cl > 5 && strncmp(b, "user@", 5) == 0)) {
      *js_type = 2;
      *js_num = js_of_name(b, cl - 8);
    }
    e = b > path ? b - 1 : path;
  }
  return 0;
}

/* The MPE identity of a new process (core/SOURCES.md, "The host source") from its stat (comm,
 * f), its status, its exe (or argv[0], or comm), the user database and the shells; creates it.
 * Returns its slot, -2 if the process is gone, -1 when the birth must wait (a read failed:
 * noted), -3 when the table is full.
 * A parent not yet in the table is read first (depth: parents read so far for this child). */
static int birth(mi_system *sys, host *h, int64_t pid, char *rel, int len, const char *comm, const uint64_t *f,
                 int pio, int first, int depth) {
  int err;
  int64_t ppid = (int64_t)f[4], sid = (int64_t)f[6];
  if (ppid > 0 && ppid != pid && ppid <= INT32_MAX && depth < DEPTH_MAX && mi_host_proc_slot(sys, ppid) < 0) {
    read_proc(sys, h, ppid, pio, first, depth + 1, NULL);
    if (mi_host_proc_slot(sys, pid) >= 0) return -1;   /* a loop of parents made it already */
  }
  memcpy(rel + len, "status", 7);
  ssize_t n = slurp(h, rel, &err);
  if (n == RD_FAIL) { if (!gone(err)) note_fail(h, err); return gone(err) ? -2 : -1; }
  uint64_t uid, gid;
  if (n < 0 || !status_id(h->buf, "Uid:\t", &uid)) { note_bad(h); return -1; }
  int have_gid = status_id(h->buf, "Gid:\t", &gid);
  int kthread = (f[9] & PF_KTHREAD) != 0;
  char path[4096], prog[3][12];
  const char *name;
  if (program_of(h, rel, len, comm, kthread, path, prog, &name) < 0) return -1;
  if (read_shells(h) != 0) return -1;
  const char *user = id_name(h, 0, (uint32_t)uid), *acct = have_gid ? id_name(h, 1, (uint32_t)gid) : "";
  if (!user || !acct) return -1;
  int cg_type, cg_num = 0;
  char cg_acct[12];
  if (cgroup_identity(h, rel, len, &cg_type, &cg_num, cg_acct) < 0) return -1;
  mi_proc_desc d = {0};
  d.pid = pid;
  d.program = prog[0]; d.program_group = prog[1]; d.program_account = prog[2];
  d.user = user; d.user_group = acct; d.account = cg_acct[0] ? cg_acct : acct;
  d.proc_type = ptype_of(sys, h, pid, f, name);
  /* the session is the job or session: a session with a terminal, a job without; MPE's numbers
   * are 1-16383, so the session id is folded into them (sid 1-16383 keeps its number); a
   * systemd service or session scope says which instead */
  d.js_type = d.proc_type == MI_PT_SYSTEM || sid <= 0 ? 0 : f[7] ? 1 : 2;
  d.js_num = d.js_type ? (int)((sid - 1) % 16383 + 1) : 0;
  if (cg_type > 0 && d.proc_type != MI_PT_SYSTEM) { d.js_type = cg_type; d.js_num = cg_num; }
  d.start_ticks = start_ticks(h, f[22], mi_host_ticks_per_ms(sys));
  int slot = mi_host_proc_create(sys, &d);
  if (slot < 0) return -3;                   /* table full: users of "all" get warning 20001 */
  hproc *hp = &h->p[slot];
  memset(hp, 0, sizeof *hp);
  hp->pid = pid;
  hp->ppid = ppid;
  hp->ptype = d.proc_type;
  hp->comm = comm_hash(comm);
  /* a process born since we started counts its whole life; one found at the first
   * reading starts from what it had then, like the CPU and disk totals */
  if (first) {
    hp->cpu = hp->majflt = hp->runq = hp->launch = UINT64_MAX;
    for (int k = 0; k < NIO; k++) hp->io[k] = UINT64_MAX;
  }
  return slot;
}

/* /proc/[pid]/schedstat of the process in slot (rel: its directory, len long): the time it
 * waited on a run queue (run_delay, ns) into 25048 as MI_Time and the times it was given a CPU
 * (pcount) into 25049. A kernel without schedstats has no such file: nothing is added. */
static void read_sched(mi_system *sys, host *h, int slot, char *rel, int len) {
  int err;
  memcpy(rel + len, "schedstat", 10);
  ssize_t n = slurp(h, rel, &err);
  if (n == RD_FAIL) {
    if (!unseeable(err)) note_fail(h, err);
    return;
  }
  const char *p = h->buf;
  uint64_t run, delay, count;
  if (n == RD_BAD || !num(&p, &run) || !num(&p, &delay) || !num(&p, &count)) { note_bad(h); return; }
  hproc *hp = &h->p[slot];
  bump(sys, h, P_LAUNCH, slot, count, &hp->launch, 1);
  if (hp->runq != UINT64_MAX && delay > hp->runq) {   /* ns to ticks; the remainder stays in the baseline */
    int64_t tpm = mi_host_ticks_per_ms(sys);
    uint64_t d = delay - hp->runq, ticks = d / 1000000 * (uint64_t)tpm + d % 1000000 * (uint64_t)tpm / 1000000;
    add_sat(sys, h->c[P_RUNQ], slot, 0, ticks > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ticks);
    hp->runq += ticks / (uint64_t)tpm * 1000000 + ticks % (uint64_t)tpm * 1000000 / (uint64_t)tpm;
  } else hp->runq = delay;
}

/* 1 if pid is among the processes that found the table full (h->over, sorted). */
static int over_has(const host *h, int64_t pid) {
  int lo = 0, hi = h->nover;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (h->over[mid] < pid) lo = mid + 1; else hi = mid;
  }
  return lo < h->nover && h->over[lo] == pid;
}

/* Remembers pid as one without a slot in the listing under way; 0 or -1 (out of memory: it is
 * simply read again next time). */
static int over_add(host *h, int64_t pid) {
  if (h->nover_next == h->cover) {
    int cap = h->cover ? h->cover * 2 : 256;
    int64_t *a = realloc(h->over, sizeof *a * (size_t)cap), *b = a ? realloc(h->over_next, sizeof *b * (size_t)cap) : NULL;
    if (a) h->over = a;
    if (!b) return -1;
    h->over_next = b;
    h->cover = cap;
  }
  h->over_next[h->nover_next++] = pid;
  return 0;
}

/* Compares two pids for qsort. */
static int pid_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* One /proc/[pid]: creates the MI process at first sight (birth), then reads what it did since
 * (its io only when pio: kept in io_now, added by add_io once the deaths are known). Returns 0
 * if the process is gone (its stat does not exist), 1 if seen or kept: a stat that cannot be
 * read for another reason or is malformed skips this refresh for the process (kept alive,
 * nothing added) and never makes a birth. A process that found the table full is not read
 * again until the pids without a slot are tried again (h->over). w (the listing's own pids
 * only, depth 0): the where pass runs in this one, counting the same stat read. */
static int read_proc(mi_system *sys, host *h, int64_t pid, int pio, int first, int depth, wtally *w) {
  char rel[64], comm[64];
  int err, slot = mi_host_proc_slot(sys, pid);
  if (slot >= 0 && !mi_host_proc_alive(sys, slot)) {   /* an unreported death holds the pid */
    if (w) where_read(h, w, pid);
    return 1;
  }
  if (slot < 0 && h->nover && over_has(h, pid)) {
    if (depth == 0) over_add(h, pid);
    if (w) where_read(h, w, pid);   /* no slot, but a process the levels count */
    return 1;
  }
  if (slot >= 0) h->p[slot].gen = h->gen;   /* kept unless the stat says it is gone */
  int len = snprintf(rel, sizeof rel, "%lld/", (long long)pid);
  memcpy(rel + len, "stat", 5);
  ssize_t n = slurp(h, rel, &err);
  if (n == RD_FAIL && gone(err)) {           /* gone since readdir: it is simply not seen */
    if (slot >= 0) h->p[slot].gen = 0;
    return 0;
  }
  if (n == RD_FAIL) { note_fail(h, err); return 1; }
  uint64_t f[23] = {0}, rss = UINT64_MAX, threads = 1;
  if (n == RD_BAD || !parse_pid_stat(h->buf, comm, f)) { note_bad(h); return 1; }
  if (h->rss && !stat_field(h->buf, 24, &rss)) rss = UINT64_MAX;   /* (before a birth reads other files) */
  if (!stat_field(h->buf, 20, &threads) || threads == 0) threads = 1;
  if (w) where_stat(h, w, pid, comm, f, rel, len);   /* last use of the stat text: may read wchan */
  int born = slot < 0;
  if (slot < 0 && (slot = birth(sys, h, pid, rel, len, comm, f, pio, first, depth)) < 0) {
    if (slot == -3 && depth == 0) { over_add(h, pid); if (!first) h->born_scan += threads; }   /* seen, if slotless */
    return slot != -2;
  }
  hproc *hp = &h->p[slot];
  /* tasks seen born: a new process and its threads, or threads a known one added */
  if (!first) h->born_scan += born ? threads : threads > hp->threads ? threads - hp->threads : 0;
  hp->threads = threads;
  hp->ppid = (int64_t)f[4];
  if (hp->comm != comm_hash(comm)) reidentify(sys, h, slot, pid, rel, len, comm, f);
  hp->gen = h->gen;
  int64_t tick = (int64_t)mi_host_ticks_per_ms(sys) * 1000 / h->hz;
  bump(sys, h, P_TIME, slot, sum_sat(f[14], f[15]), &hp->cpu, tick);
  bump(sys, h, P_PF, slot, f[12], &hp->majflt, 1);
  if (rss != UINT64_MAX) {   /* a level: the difference from what was written, as 2 KB pages */
    int64_t pages = rss > (uint64_t)INT32_MAX ? INT32_MAX : (int64_t)rss * h->page_kb / 2;
    mi_host_add_objcl(sys, h->c[P_RSS], slot, 0, pages - hp->rss);
    hp->rss = pages;
  }
  if (h->sched) read_sched(sys, h, slot, rel, len);
  if (!pio) return 1;
  memcpy(rel + len, "io", 3);
  n = slurp(h, rel, &err);
  if (n == RD_FAIL) {   /* another user's io is unreadable, and it may be gone: skipped */
    if (!gone(err) && err != EACCES && err != EPERM) note_fail(h, err);
    return 1;
  }
  uint64_t v[NIO];
  for (int k = 0; k < NIO; k++)
    if (n == RD_BAD || !keyed(h->buf, io_key[k], &v[k])) { note_bad(h); return 1; }
  memcpy(hp->io_now, v, sizeof v);
  hp->io_gen = h->gen;
  return 1;
}

/* A process that died: what Linux adds to its parent's io when the parent reaps it (its whole
 * io, as last read) is owed by the parent, not done by it. */
static void owe_parent(mi_system *sys, host *h, int slot) {
  const hproc *c = &h->p[slot];
  int ps = c->ppid > 0 ? mi_host_proc_slot(sys, c->ppid) : -1;
  if (ps < 0 || ps == slot || !mi_host_proc_alive(sys, ps) || h->p[ps].pid != c->ppid) return;
  hproc *p = &h->p[ps];
  for (int k = 0; k < NIO; k++) {
    uint64_t last = c->io_gen == h->gen ? c->io_now[k] : c->io[k];
    if (last != UINT64_MAX) p->owe[k] = sum_sat(p->owe[k], last);
  }
  p->owe_left = 2;
}

/* Adds the io read this refresh (io_now) for every process, less what its reaped children did
 * (owe): a child's figures are the child's. A debt is paid from the next two readings of the
 * parent's io that grew (the child may be reaped just after its parent's file was read), then
 * what is left of it lapses. */
static void add_io(mi_system *sys, host *h) {
  for (int s = 0, hi = mi_host_proc_hi(sys); s < hi; s++) {
    hproc *hp = &h->p[s];
    if (hp->io_gen != h->gen || !mi_host_proc_alive(sys, s)) continue;
    int grew = 0;
    for (int k = 0; k < NIO; k++) {
      uint64_t now = hp->io_now[k], last = hp->io[k];
      if (hp->owe_left && now > last && last != UINT64_MAX) {
        uint64_t d = now - last, take = d < hp->owe[k] ? d : hp->owe[k];
        grew = 1;
        hp->owe[k] -= take;
        bump(sys, h, P_RD + k, s, now - take, &hp->io[k], 1);   /* the child's part is not added */
        hp->io[k] = now;
      } else bump(sys, h, P_RD + k, s, now, &hp->io[k], 1);
    }
    if (grew && --hp->owe_left == 0) memset(hp->owe, 0, sizeof hp->owe);
  }
}

/* A pid directory name: 1-10 digits, no leading zero, at most INT32_MAX; else 0. */
static int64_t pid_name(const char *s) {
  if (*s < '1' || *s > '9') return 0;
  int64_t v = 0;
  for (int i = 0; s[i]; i++) {
    if (i >= 10 || s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (s[i] - '0');
  }
  return v <= INT32_MAX ? v : 0;
}

/* 1 if any of roles [from, to] is counted by someone. */
static int any_active(mi_system *sys, const host *h, int from, int to) {
  for (int r = from; r <= to; r++) if (mi_host_active(sys, h->c[r])) return 1;
  return 0;
}

/* Opens (again) the root as a directory for openat and the listing; keeps what is open while
 * the root is still there. 0, or -1 with the failure noted. */
static int open_root(host *h) {
  struct stat st;
  if (h->rootfd >= 0 && (h->procfs || (fstat(h->rootfd, &st) == 0 && st.st_nlink > 0))) return 0;   /* a procfs stays */
  if (h->dir) closedir(h->dir);   /* closes rootfd too */
  h->dir = NULL;
  h->rootfd = -1;
  for (int k = 0; k < NKEPT; k++) if (h->kfd[k] >= 0) { close(h->kfd[k]); h->kfd[k] = -1; }
  int fd;
  do fd = open(h->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC); while (fd < 0 && errno == EINTR);
  if (fd < 0) { note_fail(h, errno); return -1; }
  h->dir = fdopendir(fd);
  if (!h->dir) { note_fail(h, errno); close(fd); return -1; }
  h->rootfd = fd;
  struct statfs sf;
  h->procfs = fstatfs(fd, &sf) == 0 && sf.f_type == 0x9fa0;   /* PROC_SUPER_MAGIC */
  return 0;
}

/* Where a sleeping process waits, from the kernel function its wchan names (a ".constprop.0"
 * or ".isra.0" suffix ignored): the role of the global level it counts in, -1 for none (a
 * poll or select on several descriptors, a kernel thread's own loop, no name). */
static int wchan_role(const char *w) {
  static const struct { const char *part; int role; } rule[] = {
    {"n_tty_read", W_TRMRD}, {"tty_read", W_TRMRD}, {"tty_write", W_TRMWT}, {"tty_wait_until_sent", W_TRMWT},
    {"sigsuspend", W_SIGNAL}, {"sys_pause", W_SIGNAL}, {"sigtimedwait", W_SIGNAL},
    {"flock_lock_inode_wait", W_RIN}, {"locks_lock_inode_wait", W_RIN}, {"fcntl_setlk", W_RIN},
    {"posix_lock_inode_wait", W_RIN}, {"flock_lock_file_wait", W_RIN}, {"__do_sys_flock", W_RIN},
    {"nanosleep", W_TIMER},
    {"futex", W_SEM},
    {"do_wait", W_CHILD}, {"kernel_wait4", W_CHILD}, {"kernel_waitid", W_CHILD}, {"wait_for_vfork_done", W_CHILD},
    {"msgrcv", W_MSG}, {"mq_timedreceive", W_MSG}, {"wq_sleep", W_MSG},
    {"pipe_read", W_PORT}, {"pipe_write", W_PORT}, {"pipe_wait", W_PORT}, {"unix_stream", W_PORT},
    {"unix_dgram", W_PORT}, {"sk_wait_data", W_PORT}, {"inet_csk_accept", W_PORT}, {"skb_wait_for_more", W_PORT},
  };
  for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++) if (strstr(w, rule[i].part)) return rule[i].role;
  return -1;
}

/* The dispatcher queue (role Q_AS..Q_ES) of a process from its stat text (accepted by
 * parse_pid_stat) and flags: kernel threads and real-time policies (FIFO 1, RR 2, DEADLINE 6)
 * AS, SCHED_IDLE (5) ES, SCHED_BATCH (3) or nice > 0 DS, nice < 0 BS, the rest CS; -1 when
 * the nice or policy field is not there. */
static int queue_role(const char *buf, uint64_t flags) {
  uint64_t pol;
  if (flags & PF_KTHREAD) return Q_AS;
  if (!stat_field(buf, 41, &pol)) return -1;
  if (pol == 1 || pol == 2 || pol == 6) return Q_AS;
  if (pol == 5) return Q_ES;
  if (pol == 3) return Q_DS;
  const char *p = strrchr(buf, ')');   /* nice (19) is printed signed */
  for (int i = 2; p && i < 19; i++) p = strchr(p + 1, ' ');
  if (!p) return -1;
  return p[1] == '-' ? Q_BS : p[1] == '0' && (p[2] == ' ' || p[2] == '\n') ? Q_CS : isdigit((unsigned char)p[1]) ? Q_DS : -1;
}

/* A process of the type pass (read_where): its pid, its parent and its kind (KIND_*). */
typedef struct wproc { int64_t pid, ppid; int kind; } wproc;
enum { KIND_SYS, KIND_CI, KIND_OTHER };

/* Compares two wproc by pid for qsort and bsearch. */
static int wproc_cmp(const void *a, const void *b) {
  int64_t x = ((const wproc *)a)->pid, y = ((const wproc *)b)->pid;
  return (x > y) - (x < y);
}

/* The process-type levels 21319-21322 from the kinds of the processes listed (t[0..nt)): system,
 * command interpreters, the others by their parent's kind (a command interpreter: 21321; another
 * such process: 21322; a system process or one not listed: neither). */
static void set_types(mi_system *sys, host *h, wproc *t, int nt) {
  int n[4] = {0};
  if (nt > 1) qsort(t, (size_t)nt, sizeof *t, wproc_cmp);
  for (int i = 0; i < nt; i++) {
    if (t[i].kind != KIND_OTHER) { n[t[i].kind]++; continue; }
    wproc key = {t[i].ppid, 0, 0}, *par = bsearch(&key, t, (size_t)nt, sizeof *t, wproc_cmp);
    if (par && par->kind == KIND_CI) n[2]++;
    else if (par && par->kind == KIND_OTHER) n[3]++;
  }
  for (int k = 0; k < 4; k++) mi_host_set(sys, h->c[T_SYS + k], 0, n[k]);
}

/* Adds a process to the type pass's list (grown as needed); 0, or -1 out of memory. */
static int wproc_add(wproc **t, int *nt, int *cap, int64_t pid, int64_t ppid, int kind) {
  if (*nt == *cap) {
    int c = *cap ? *cap * 2 : 512;
    wproc *b = realloc(*t, sizeof *b * (size_t)c);
    if (!b) return -1;
    *t = b;
    *cap = c;
  }
  (*t)[(*nt)++] = (wproc){pid, ppid, kind};
  return 0;
}

/* The where pass under way (read_where, or scan_table's listing when both run in one refresh):
 * the processes counted per level, the type pass's list, and which levels are counted now
 * (blk: blocked by reason, pop: queue populations, typ: process types). */
struct wtally { int n[NROLE], nt, cap, oom, blk, pop, typ; wproc *t; };

/* Starts a where pass: nothing counted yet, and which of its levels someone counts. */
static void where_begin(mi_system *sys, host *h, wtally *w) {
  memset(w, 0, sizeof *w);
  w->blk = any_active(sys, h, W_TRMRD, W_MSG) || any_active(sys, h, W_TRMWT, W_RIN);
  w->pop = any_active(sys, h, Q_AS, Q_ES);
  w->typ = any_active(sys, h, T_SYS, T_USER) && read_shells(h) == 0;
}

/* Counts process pid into w from its stat, in h->buf and already accepted by parse_pid_stat
 * (comm, f): its queue, its type and, asleep (S) and not a kernel thread while a blocked level
 * is counted, the reason its wchan names (read into h->buf: the stat text is gone after). rel
 * is the process's directory (len long, room for "wchan"). */
static void where_stat(host *h, wtally *w, int64_t pid, const char *comm, const uint64_t *f, char *rel, int len) {
  int err;
  const char *st = strrchr(h->buf, ')');
  int q = w->pop ? queue_role(h->buf, f[9]) : -1;
  if (q >= 0) w->n[q]++;
  if (w->typ) {
    int kind = (f[9] & PF_KTHREAD) || pid == 1 ? KIND_SYS : is_shell(h, comm) ? KIND_CI : KIND_OTHER;
    w->oom |= wproc_add(&w->t, &w->nt, &w->cap, pid, (int64_t)f[4], kind) != 0;
  }
  if (!w->blk || !st || st[1] != ' ' || st[2] != 'S' || (f[9] & PF_KTHREAD)) return;
  memcpy(rel + len, "wchan", 6);
  ssize_t r = slurp(h, rel, &err);
  if (r == RD_FAIL) { if (!unseeable(err)) note_fail(h, err); return; }
  if (r < 0) { note_bad(h); return; }
  int role = wchan_role(h->buf);
  if (role >= 0) w->n[role]++;
}

/* Counts process pid into w, reading its stat for the pass alone (a pid the table does not read). */
static void where_read(host *h, wtally *w, int64_t pid) {
  char rel[64], comm[64];
  int err, len = snprintf(rel, sizeof rel, "%lld/", (long long)pid);
  memcpy(rel + len, "stat", 5);
  uint64_t f[23] = {0};
  ssize_t r = slurp(h, rel, &err);
  if (r == RD_FAIL) { if (!gone(err)) note_fail(h, err); return; }
  if (r == RD_BAD || !parse_pid_stat(h->buf, comm, f)) { note_bad(h); return; }
  where_stat(h, w, pid, comm, f, rel, len);
}

/* Ends a where pass: sets each level to the processes counted for it when the listing was
 * complete (and the type list held), else leaves the levels of the last reading. */
static void where_end(mi_system *sys, host *h, wtally *w, int complete) {
  if (w->oom) note_fail(h, ENOMEM);
  if (complete && !w->oom) {
    for (int role = W_TRMRD; role <= W_MSG; role++) mi_host_set(sys, h->c[role], 0, w->n[role]);
    for (int role = W_TRMWT; role <= W_RIN; role++) mi_host_set(sys, h->c[role], 0, w->n[role]);
    for (int role = Q_AS; role <= Q_ES; role++) mi_host_set(sys, h->c[role], 0, w->n[role]);
    if (w->typ) set_types(sys, h, w->t, w->nt);
  }
  free(w->t);
  w->t = NULL;
}

/* The blocked-by-reason levels (21110, 21111, 21116, 21119, 21121, 21122, 21126, 21129, 21146),
 * the queue populations (21159-21163) and the process-type levels (21319-21322) on a refresh
 * that does not read the process table: a pass over the listing reading each [pid]/stat (its
 * state, nice, policy, flags, comm, parent) and, for a process asleep (S) whose levels are
 * counted, its wchan; each level is set to the processes found waiting for its reason, each
 * population to the processes of its class. Kernel threads wait for no user (left out of the
 * blocked levels; in AS). Levels are set only after a complete listing. When the table is read
 * too, scan_table counts them in its own listing (one stat per process). */
static void read_where(mi_system *sys, host *h) {
  wtally w;
  if (h->rootfd < 0 || !h->dir) return;
  where_begin(sys, h, &w);
  rewinddir(h->dir);
  struct dirent *de;
  for (;;) {
    errno = 0;
    if (!(de = readdir(h->dir))) break;
    int64_t pid = pid_name(de->d_name);
    if (pid > 0) where_read(h, &w, pid);
  }
  if (errno) note_fail(h, errno);
  where_end(sys, h, &w, errno == 0);
}

/* The domain whose reads return group g's figures (MI_DOM_GLOBAL stands for processors too). */
static const int group_dom[NGROUP] = {MI_DOM_GLOBAL, MI_DOM_GLOBAL, MI_DOM_GLOBAL, MI_DOM_IO, MI_DOM_PROCESS, MI_DOM_PROCESS,
                                      MI_DOM_PROCESS, MI_DOM_GLOBAL, MI_DOM_PROCESS};

/* Which groups of files are counted now (on) and which this refresh reads (use): see
 * refresh_all. house: the configuration's once-a-second reading is due. */
static void plan_groups(mi_system *sys, host *h, int full, int house, int64_t ms, int on[NGROUP], int use[NGROUP]) {
  int wg = mi_host_wants(sys, MI_DOM_GLOBAL), wp = mi_host_wants(sys, MI_DOM_PROCESS), wi = mi_host_wants(sys, MI_DOM_IO);
  int reading = full ? 0 : mi_host_reading(sys);
  if (reading & 1 << MI_DOM_PROCESSOR) reading |= 1 << MI_DOM_GLOBAL;
  uint64_t lg = mi_host_layout_gen(sys);   /* what is counted changes only with the layout */
  if (h->on_gen != lg) {
    int *o = h->on_cache;
    o[GR_INTR] = mi_host_active(sys, h->c[C_INTR]);
    o[GR_MEM] = mi_host_active(sys, h->c[G_FREE]) || mi_lx_sys_active(sys, h, GR_MEM);
    o[GR_VM] = mi_host_active(sys, h->c[G_PF]) || mi_lx_sys_active(sys, h, GR_VM);
    o[GR_DISK] = any_active(sys, h, D_RDRTT, D_COMPL) || mi_lx_sys_active(sys, h, GR_DISK);
    o[GR_SCAN] = any_active(sys, h, P_TIME, P_WTSZ) || any_active(sys, h, P_PF, P_PF);
    o[GR_PIO] = any_active(sys, h, P_RD, P_WTSZ);
    o[GR_SCHED] = any_active(sys, h, P_RUNQ, P_LAUNCH);
    o[GR_WHERE] = any_active(sys, h, W_TRMRD, W_MSG) || any_active(sys, h, Q_AS, Q_ES) || any_active(sys, h, W_TRMWT, T_USER);
    o[GR_RSS] = any_active(sys, h, P_RSS, P_RSS);
    o[GR_SCAN] |= o[GR_RSS];
    o[GR_SCAN] |= o[GR_SCHED];
    h->on_gen = lg;
  }
  memcpy(on, h->on_cache, sizeof h->on_cache);
  use[GR_INTR] = full || wg == 2 || on[GR_INTR];
  use[GR_MEM] = full || wg == 2 || on[GR_MEM] || house;
  use[GR_VM] = full || wg == 2 || on[GR_VM];
  use[GR_DISK] = full || wi || on[GR_DISK] || house;
  use[GR_SCAN] = full || wp == 2 ||
                 ((wp || on[GR_SCAN]) && (h->proc_age_ms <= 0 || ms - h->scan_ms >= h->proc_age_ms || !h->scan_ms));
  use[GR_PIO] = full || wp == 2 || (on[GR_PIO] && use[GR_SCAN]);
  use[GR_SCHED] = full || wp == 2 || (on[GR_SCHED] && use[GR_SCAN]);
  use[GR_RSS] = on[GR_RSS] && use[GR_SCAN];
  /* levels: read when counted (an ON's refresh comes before), from process files, so at most every
   * proc_age_ms like the process table (mish --serve's --proc-interval: levels of the last reading) */
  use[GR_WHERE] = on[GR_WHERE] && (full || h->proc_age_ms <= 0 || h->kept[GR_WHERE] + 1 != h->gen || ms - h->where_ms >= h->proc_age_ms);
  for (int g = 0; g < NGROUP; g++)   /* not for this read: left for the reads that return it */
    if (reading && !(reading >> group_dom[g] & 1) && !(house && (g == GR_MEM || g == GR_DISK))) use[g] = 0;
}

/* Marks the groups counted or read now and clears the baselines of those counted again after a
 * gap (refresh_all); returns 1 when this is (again) the first look at the processes. */
static int rebase_groups(mi_system *sys, host *h, const int on[NGROUP], const int use[NGROUP]) {
  int rebase[NGROUP], kept_on[NGROUP], wp = mi_host_wants(sys, MI_DOM_PROCESS);
  for (int g = 0; g < NGROUP; g++) kept_on[g] = h->kept[g] + 1 == h->gen;
  for (int g = 0; g < NGROUP; g++) {
    rebase[g] = use[g] && on[g] && !kept_on[g] && h->gen > 1;
    if (on[g] || use[g] || (g == GR_SCAN && wp)) h->kept[g] = h->gen;   /* read now, or counted: no gap */
  }
  if (rebase[GR_INTR]) for (int c = 0; c < NCPU_MI; c++) h->intr[c] = UINT64_MAX;
  if (rebase[GR_VM]) h->pgmajfault = UINT64_MAX;
  h->rebase_disks = rebase[GR_DISK];
  int first = h->gen == 1 || (use[GR_SCAN] && !kept_on[GR_SCAN]);   /* (again) the first look at processes */
  if (first || rebase[GR_PIO] || rebase[GR_SCHED] || (on[GR_RSS] && !kept_on[GR_RSS]))
    for (int s = 0, hi = mi_host_proc_hi(sys); s < hi; s++) {
      hproc *hp = &h->p[s];
      if (on[GR_RSS] && !kept_on[GR_RSS]) hp->rss = 0;   /* a level enabled afresh starts from 0 in the store */
      if (first) hp->cpu = hp->majflt = UINT64_MAX;
      if (first || rebase[GR_SCHED]) hp->runq = hp->launch = UINT64_MAX;
      if (!first && !rebase[GR_PIO]) continue;
      for (int k = 0; k < NIO; k++) hp->io[k] = UINT64_MAX;
      memset(hp->owe, 0, sizeof hp->owe);
      hp->owe_left = 0;
    }
  return first;
}

/* The process table: every listed pid read (births, figures, io when pio), then the deaths a
 * complete listing shows and the io added; returns the processes seen (or kept). where: the
 * levels of read_where come from the same listing and the same stat reads. */
static int scan_table(mi_system *sys, host *h, int rooted, int pio, int first, int64_t ms, int where) {
  int seen = 0, listed = 0, inj = 0;
  wtally w;
  if (where) where_begin(sys, h, &w);
  for (int i = 0; i < NINJECT; i++)
    if (h->inject[i].err && h->inject[i].rel[0] == 0) { note_fail(h, h->inject[i].err); inj = 1; }
  int retry = ms - h->over_ms >= OVER_RETRY_MS;   /* pids without a slot are tried again now and then */
  if (retry) { h->nover = 0; h->over_ms = ms; }
  h->nover_next = 0;
  if (!inj && rooted) {
    rewinddir(h->dir);
    struct dirent *de;
    for (;;) {
      errno = 0;
      if (!(de = readdir(h->dir))) break;
      int64_t pid = pid_name(de->d_name);
      if (pid > 0) seen += read_proc(sys, h, pid, pio, first, 0, where ? &w : NULL);
    }
    if (errno) note_fail(h, errno); else listed = 1;
  }
  if (where) where_end(sys, h, &w, listed);
  if (listed) {   /* the pids without a slot that are still there */
    int64_t *t = h->over;
    h->over = h->over_next; h->over_next = t;
    h->nover = h->nover_next;
    if (h->nover > 1) qsort(h->over, (size_t)h->nover, sizeof *h->over, pid_cmp);
  }
  /* deaths: live MI processes a complete listing did not show, or whose stat is gone */
  if (listed)
    for (int s = 0, hi = mi_host_proc_hi(sys); s < hi; s++)
      if (mi_host_proc_alive(sys, s) && h->p[s].gen != h->gen && h->p[s].pid == mi_host_proc_pid(sys, s)) {
        owe_parent(sys, h, s);
        mi_host_proc_exit(sys, s);
      }
  if (pio) add_io(sys, h);
  h->scan_ms = ms;
  /* the tasks forked since the last scan that no scan saw (first: a new baseline) */
  if (!first && h->scan_forks != UINT64_MAX && h->s.forks != UINT64_MAX && h->s.forks >= h->scan_forks) {
    h->forks_sum = sum_sat(h->forks_sum, h->s.forks - h->scan_forks);
    h->born_sum = sum_sat(h->born_sum, h->born_scan);
    h->forks_measured = 1;
  }
  h->scan_forks = h->s.forks;
  h->born_scan = 0;
  h->health.short_lived = !h->forks_measured ? -1 : h->forks_sum > h->born_sum ? (int64_t)(h->forks_sum - h->born_sum) : 0;
  return seen;
}

/* The health figures of a refresh that began at thread CPU time c0 (when refreshes are timed). */
static void close_health(mi_system *sys, host *h, const struct timespec *c0) {
  h->health.refreshes++;
  if (h->trouble) h->health.incomplete++;
  h->health.complete = !h->trouble;
  if (h->timed) {   /* two thread-CPU clock reads are system calls (~1 us each on a VM): only when asked */
    struct timespec c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    h->health.last_cpu_ns = (int64_t)(c1.tv_sec - c0->tv_sec) * 1000000000 + (c1.tv_nsec - c0->tv_nsec);
    h->health.cpu_ns += h->health.last_cpu_ns;
  }
  h->health.last_files = h->files;
  h->health.files_read += h->files;
  h->last_ms = mono_ms();
  h->layout = mi_host_layout_gen(sys);
}

/* Reads what is needed once (everything when full); returns the number of processes seen (or
 * kept). A group of files is read when its items are counted and the read under way returns
 * them (mi_host_reading: a global GET does not read the process table), when an ON of its
 * domain is under way (the ON's baselines), or on a full reading; the process table while
 * anyone has processes on, at most every proc_age_ms. A group counted now that the previous
 * refresh neither read nor found counted starts from a new baseline: what happened while nobody
 * counted it is not added; a group counted all along but left unread by other domains' reads
 * adds everything since its last reading when it is read. Only a complete listing of the root can show a
 * death: when the directory cannot be opened or read to its end, nobody dies this time. */
static int refresh_all(mi_system *sys, host *h, int full) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t tpm = mi_host_ticks_per_ms(sys);
  mi_host_set_now(sys, (int64_t)ts.tv_sec * 1000 * tpm + ts.tv_nsec / 1000000 * tpm);
  h->gen++;
  h->trouble = 0;
  int64_t ms = mono_ms();
  int house = full || h->gen == 1 || ms - h->house_ms >= HOUSEKEEP_MS;
  struct timespec c0 = {0, 0};
  if (h->timed) clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
  h->files = 0;
  mi_lx_sys_levels(sys, h);
  int on[NGROUP], use[NGROUP];
  plan_groups(sys, h, full, house, ms, on, use);
  int first = rebase_groups(sys, h, on, use);
  h->sched = use[GR_SCHED];
  h->rss = use[GR_RSS];
  if (house && !full) h->house_ms = ms;
  int rooted = open_root(h) == 0;
  mi_lx_read_stat(sys, h);
  if (use[GR_INTR]) mi_lx_read_interrupts(sys, h);
  if (use[GR_MEM]) mi_lx_read_memory(sys, h);
  if (use[GR_VM]) mi_lx_read_vmstat(sys, h);
  if (use[GR_DISK]) mi_lx_read_disks(sys, h);
  h->rebase_disks = 0;
  int where = use[GR_WHERE] && rooted;   /* with the table: in its listing, one stat per process */
  if (where && !use[GR_SCAN]) read_where(sys, h);
  if (where) h->where_ms = ms;
  int seen = use[GR_SCAN] ? scan_table(sys, h, rooted, use[GR_PIO], first, ms, where) : 0;
  for (int g = 0; g < NGROUP; g++) if (use[g]) h->rd[g] = h->gen;
  close_health(sys, h, &c0);
  return use[GR_SCAN] ? seen : mi_host_proc_count(sys);
}

static void refresh(mi_system *sys, void *arg) {
  host *h = arg;
  /* fresh enough, unless someone enabled counters since (levels must not read 0 until the next
   * age) or an ON is under way (its baselines are taken now); a read of processes also wants
   * the process table no older than the age */
  int64_t ms = mono_ms();
  int reading = mi_host_reading(sys);
  if (h->age_ms > 0 && ms - h->last_ms < h->age_ms && mi_host_layout_gen(sys) == h->layout &&
      mi_host_wants(sys, -1) != 2 &&
      (!(reading >> MI_DOM_PROCESS & 1) || ms - h->scan_ms < (h->proc_age_ms > h->age_ms ? h->proc_age_ms : h->age_ms)))
    return;
  refresh_all(sys, h, 0);
}

/* The first 8 characters of s as a hex number (non-hex digits count 0), 31 bits. */
static int32_t hex8(const char *s) {
  uint32_t v = 0;
  for (int i = 0; i < 8 && s[i]; i++) {
    int c = tolower((unsigned char)s[i]);
    v = v << 4 | (uint32_t)(isdigit(c) ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0);
  }
  return (int32_t)(v & 0x7fffffff);
}

/* Frees a host source. */
static void host_free(void *arg) {
  host *h = arg;
  if (!h) return;
  for (int k = 0; k < NKEPT; k++) if (h->kfd[k] >= 0) close(h->kfd[k]);
  if (h->dir) closedir(h->dir);
  free(h->over);
  free(h->over_next);
  free(h->buf);
  free(h);
}

extern const mi_source_ops mi_source_host_ops;
/* The host state driving sys, or NULL if sys is not the host. */
host *mi_lx_of(mi_system *sys) {
  return mi_system_source_ops(sys) == &mi_source_host_ops ? (host *)mi_system_source(sys) : NULL;
}

int mi_linux_attached(mi_system *sys) { return mi_lx_of(sys) != NULL; }

int mi_linux_refresh(mi_system *sys) {
  if (!mi_linux_attached(sys)) return -1;
  mi_host_begin(sys);
  int n = refresh_all(sys, mi_lx_of(sys), 1);
  mi_host_publish(sys);
  return n;
}

int mi_linux_attach(mi_system *sys, const char *proc_root, int age_ms) {
  if (!sys) return -1;
  host *h = calloc(1, sizeof *h);
  if (!h) return -1;
  /* not measured: short-lived tasks until two readings of the table had fork counts, CPU until timed */
  h->health.short_lived = h->health.cpu_ns = h->health.last_cpu_ns = -1;
  snprintf(h->root, sizeof h->root, "%s", proc_root ? proc_root : "/proc");
  h->sysdb = strcmp(h->root, "/proc") == 0;
  h->rootfd = -1;
  for (int k = 0; k < NKEPT; k++) h->kfd[k] = -1;
  h->on_gen = UINT64_MAX;   /* plan_groups works out what is counted at the first refresh */
  open_root(h);   /* a root that cannot be opened now is tried again at each refresh */
  h->age_ms = age_ms < 0 ? 100 : age_ms;
  h->hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  h->page_kb = sysconf(_SC_PAGESIZE) >= 2048 ? sysconf(_SC_PAGESIZE) / 1024 : 4;
  for (int r = 0; r < NROLE; r++) h->c[r] = mi_host_counter(map[r].item);
  for (int c = 0; c <= NCPU_MI; c++) for (int k = 0; k < 8; k++) h->cpu[c][k] = UINT64_MAX;  /* first read: baseline */
  for (int c = 0; c < NCPU_MI; c++) h->intr[c] = UINT64_MAX;
  h->pgmajfault = UINT64_MAX;
  h->scan_forks = UINT64_MAX;
  mi_lx_sys_init(h);
  /* configuration with a Linux meaning; the rest keep their defaults */
  int err;
  uint64_t x;
  const char *p;
  if (slurp(h, "sys/kernel/threads-max", &err) > 0 && (p = h->buf, num(&p, &x)))
    mi_host_config_set(sys, 3035, x > INT32_MAX ? INT32_MAX : (int32_t)x);
  if (slurp(h, "sys/kernel/random/boot_id", &err) >= 8) mi_host_config_set(sys, 3046, hex8(h->buf));
  if ((strcmp(h->root, "/proc") == 0 ? slurp_at(h, "/etc/machine-id", "../etc/machine-id", &err)
                                      : slurp(h, "../etc/machine-id", &err)) >= 8)
    mi_host_config_set(sys, 3038, hex8(h->buf));
  mi_host_config_text(sys, 3037, "LINUX   ");
  mi_source_attach(sys, &mi_source_host_ops, h);
  mi_host_begin(sys);
  refresh_all(sys, h, 0);   /* baseline of what is always read; a group's own comes at its first ON */
  mi_host_publish(sys);
  return 0;
}

mi_system *mi_linux_new(const char *proc_root, int age_ms) {
  mi_system *sys = mi_system_new(NULL);
  if (sys && mi_linux_attach(sys, proc_root, age_ms) != 0) { mi_system_free(sys); return NULL; }
  return sys;
}

const char *mi_linux_figure(int32_t item) {
  for (int r = 0; r < NROLE; r++) if (map[r].item == item) return map[r].figure;
  return mi_lx_sys_figure(item);
}

int32_t mi_linux_mapping(int i, const char **figure) {
  if (i >= NROLE) return mi_lx_sys_mapping(i - NROLE, figure);
  if (i < 0) return 0;
  if (figure) *figure = map[i].figure;
  return map[i].item;
}

int mi_linux_limits_get(mi_system *sys, mi_linux_limits *out) {
  if (!mi_linux_attached(sys) || !out) return -1;
  mi_host_begin(sys);
  mi_lx_limits(mi_lx_of(sys), out);
  mi_host_publish(sys);
  return 0;
}

int mi_linux_cpus(mi_system *sys, mi_linux_cpu *out, int max) {
  if (!mi_linux_attached(sys) || (max > 0 && !out)) return -1;
  mi_host_begin(sys);   /* a write section: not half-way through a publisher thread's refresh */
  host *h = mi_lx_of(sys);
  int32_t round = mi_host_config(sys, 3042);   /* MI_ROUND_FACTOR: ticks per MI_Time */
  int n = mi_lx_cpus(h, (int64_t)mi_host_ticks_per_ms(sys) * 1000 / h->hz, round > 0 ? round : 1, out, max);
  mi_host_publish(sys);
  return n;
}

const char *mi_linux_disk_name(mi_system *sys, int ldev) {
  if (!mi_linux_attached(sys) || ldev < 1 || ldev > mi_lx_of(sys)->ndisks) return NULL;
  return mi_lx_of(sys)->disk[ldev - 1].name;
}

int mi_linux_inject_fail(mi_system *sys, const char *rel, int err) {
  if (!mi_linux_attached(sys) || !rel || strlen(rel) >= sizeof ((host *)0)->inject[0].rel) return -1;
  host *h = mi_lx_of(sys);
  int free_i = -1;
  for (int i = 0; i < NINJECT; i++) {
    if (h->inject[i].err && strcmp(h->inject[i].rel, rel) == 0) { h->inject[i].err = err; return 0; }
    if (!h->inject[i].err && free_i < 0) free_i = i;
  }
  if (err == 0) return 0;
  if (free_i < 0) return -1;
  snprintf(h->inject[free_i].rel, sizeof h->inject[free_i].rel, "%s", rel);
  h->inject[free_i].err = err;
  return 0;
}

/* The "host[:PROC-ROOT]" source's open: this machine from /proc (or another proc root, e.g. a
 * fixture), re-read when older than a->age_ms. */
static int host_open(mi_system *sys, const char *arg, const mi_source_args *a, char *err, size_t errlen) {
  const char *root = arg && arg[0] ? arg : "/proc";
  if (access(root, R_OK) != 0) {
    if (err && errlen) snprintf(err, errlen, "cannot read proc root '%.200s': %s", root, strerror(errno));
    return -1;
  }
  if (mi_linux_attach(sys, root, a->age_ms < 0 ? 0 : a->age_ms == 0 ? -1 : a->age_ms) != 0) {
    if (err && errlen) snprintf(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}

/* What a program may choose of the host: another proc root. */
static const mi_source_option host_options[] = {
  {"proc", MI_SOPT_PATH, MI_SOPT_TO_ARG, 0, 0, "DIR", "the proc root the host system reads (default /proc)"},
  {NULL, 0, 0, 0, 0, NULL, NULL},
};

/* The live Linux host as a source. */
const mi_source_ops mi_source_host_ops = {
  "host", "this Linux machine from /proc (host:/path reads another proc root)", host_open, refresh, host_free, host_options,
};
