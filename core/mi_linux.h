/* mi_linux.h — the live Linux host as a measured system: a source that reads the kernel's
 * accounting from /proc and plays the operating system for the core through mi_host.h.
 * The mapping from kernel figures to catalog items is in core/README.md ("The host
 * source") and, item by item, in core/catalog/COVERAGE-host.md. */
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
/* Reads /proc now, whatever the age; returns the number of processes seen, -1 if not attached. */
MI_API int mi_linux_refresh(mi_system *sys);
/* Returns the kernel figure that drives item (e.g. "/proc/stat cpuN user"), NULL if none. */
MI_API const char *mi_linux_figure(int32_t item);
/* Describes mapped item i (0, 1, ...): returns its number and sets *figure; 0 past the end. */
MI_API int32_t mi_linux_mapping(int i, const char **figure);

#ifdef __cplusplus
}
#endif
#endif
