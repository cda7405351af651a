/* mi_testhook.h — hooks the project's own tests use to make a source fail on purpose.
 * For: mish's tests only. Not installed, not exported by libmi.so (hidden symbols of libmi.a). */
#ifndef MI_TESTHOOK_H
#define MI_TESTHOOK_H
#include "mi_host.h"

/* Test hook: reads of the file rel (relative to the proc root, e.g. "42/stat"; "" = the listing
 * of the root itself) fail with errno err from now on; err 0 ends that. 0, or -1 if sys is not
 * the host, rel is too long or four paths already fail. */
int mi_linux_inject_fail(mi_system *sys, const char *rel, int err);

/* Test hook: 0 when the simulator's resolved tables (worked out once per process, copied into
 * each model) are byte for byte what a model working them out itself gets; 1 if not, -1 if
 * memory is short. */
int mi_sim_resolve_selfcheck(void);

#endif
