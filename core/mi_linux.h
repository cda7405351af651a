/* mi_linux.h — the live Linux host as a measured system: a source that reads the kernel's
 * accounting from /proc and plays the operating system for the core through mi_host.h.
 * For: programs that measure the live Linux host and want its mapping and reading health.
 * The mapping from kernel figures to catalog items is in core/SOURCES.md ("The host
 * source") and, item by item, in core/catalog/COVERAGE-host.md. Each process gets an MPE
 * identity at its birth (program FILE.GROUP.ACCOUNT from its executable, user USER.GROUP.ACCOUNT
 * from its real UID and GID, its session as job/session, a process type); for a proc root
 * other than /proc, users, groups and shells come from passwd, group and shells in <root>/../etc. */
#ifndef MI_LINUX_H
#define MI_LINUX_H

#include "mi_host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a system measuring this machine; proc_root NULL = "/proc"; counters are refreshed
 * on an AIF call when older than age_ms (< 0 = the default 100 ms; 0 = every call). */
MI_API mi_system *mi_linux_new(const char *proc_root, int age_ms);
/* Makes an empty system (from mi_system_new) measure the host; 0 or -1. */
MI_API int mi_linux_attach(mi_system *sys, const char *proc_root, int age_ms);
/* Returns 1 if sys is driven by the host source. */
MI_API int mi_linux_attached(mi_system *sys);
/* Reads everything now (every file and the process table, whatever is enabled and whatever the
 * age; an AIF call's refresh reads only what enabled counters need); returns the number of
 * processes seen, -1 if not attached. */
MI_API int mi_linux_refresh(mi_system *sys);
/* How the host source's reading of /proc went. A read that fails (EMFILE, EACCES, ENOMEM...)
 * or a file rejected for its content is never taken for a process's death or birth: the
 * figures it would have given are skipped this time and counted here. */
typedef struct mi_linux_health {
  int64_t refreshes;     /* refreshes done, the first (at attach) included */
  int64_t incomplete;    /* refreshes that skipped something: a failed read or a rejected file */
  int64_t failed_reads;  /* reads that failed other than by a process ending (ENOENT/ESRCH) */
  int64_t malformed;     /* files rejected: truncated, a field missing, a figure out of range, not a file */
  int last_errno;        /* errno of the latest failed read; 0 if none yet */
  int complete;          /* 1 if the latest refresh read and used everything */
  /* what measuring costs (the monitor's own figures) */
  int64_t files_read;    /* files read (opened, or kept open and read again) by all refreshes */
  int64_t last_files;    /* files read by the latest refresh */
  int64_t cpu_ns;        /* CPU time of the refreshes (the thread that ran them) since they are
                          * timed (mi_linux_time_refreshes), nanoseconds; -1 if never timed */
  int64_t last_cpu_ns;   /* CPU time of the latest timed refresh (-1 if none) */
  int64_t self_cpu_ns;   /* CPU time of the whole program so far (every thread), when copied */
  /* tasks born and gone between two readings of the process table (never seen): /proc/stat's
   * fork count (which counts threads too) less the processes seen born and the threads added
   * to the live ones, since the table was first read; an upper bound of the processes lost.
   * -1 until measured: no two readings of the table had a fork count (no "processes" line) */
  int64_t short_lived;
} mi_linux_health;
/* Copies the reading health of a host system into *out; 0, or -1 if sys is not the host. */
MI_API int mi_linux_health_get(mi_system *sys, mi_linux_health *out);
/* Turns the timing of each refresh's own CPU (the health's cpu_ns, last_cpu_ns) on or off: two
 * thread-CPU clock reads per refresh, system calls of ~1 us each on a VM, so off by default (the
 * figures read -1); the exporter and the Lua binding turn it on. 0, or -1 if sys is not the host. */
MI_API int mi_linux_time_refreshes(mi_system *sys, int on);
/* Reads the process table (each /proc/[pid]'s files) at most every ms milliseconds, however
 * often the AIFs are called (0, the default: at every refresh that returns processes; an ON
 * still reads at once); other files keep the system's age. 0, or -1 if sys is not the host. */
MI_API int mi_linux_set_process_age(mi_system *sys, int ms);
/* Returns the kernel's name of the whole disk that is LDEV ldev ("vda"), NULL if none or sys is not the host. */
MI_API const char *mi_linux_disk_name(mi_system *sys, int ldev);
/* One processor's figures as the host counts them since it first read them: what its
 * processor items (Appendix I) would hold, for every CPU, past the MI's 8 too. */
typedef struct mi_linux_cpu {
  int cpu;                          /* the kernel's CPU number ("cpu12") */
  int64_t idle, ics, bs, cs, ds;    /* 27006, 27012, 27022, 27023, 27024: MI_Time, as a GET returns them */
  int64_t interrupts, launches;     /* 27014, 27013: counts (while those files are read) */
} mi_linux_cpu;
/* Copies the figures of the first max processors (the CPUs of /proc/stat, or of mish's cpuset,
 * in order: processor k is out[k]) into out; returns how many processors there are (at most
 * 1024), -1 if sys is not the host. */
MI_API int mi_linux_cpus(mi_system *sys, mi_linux_cpu *out, int max);
/* mish's own limits when it runs in a container (cgroup v2; core/SOURCES.md, "Containers"). */
typedef struct mi_linux_limits {
  int cpus;                /* CPUs it may use at once: its cpuset's (all without one), at most cpu.max rounded up */
  int cpuset;              /* CPUs of its cpuset (cpuset.cpus.effective), or of /proc/stat without one */
  int64_t cpu_quota_us;    /* the smallest share of time on its cgroup path (cpu.max): quota per period, µs; */
  int64_t cpu_period_us;   /*   0 and 0 when no cgroup limits it */
  int64_t memory_max;      /* the lowest memory.max on its path, bytes; -1 when none */
} mi_linux_limits;
/* Copies the limits the host read last (at most a second ago) into *out; 0, or -1 if sys is not the host. */
MI_API int mi_linux_limits_get(mi_system *sys, mi_linux_limits *out);
/* Returns the kernel figure that drives item (e.g. "/proc/stat cpuN user"), NULL if none. */
MI_API const char *mi_linux_figure(int32_t item);
/* Describes mapped item i (0, 1, ...): returns its number and sets *figure; 0 past the end. */
MI_API int32_t mi_linux_mapping(int i, const char **figure);

#ifdef __cplusplus
}
#endif
#endif
