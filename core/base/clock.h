/* clock.h — the leaf room: wall-clock ticks and tick conversions (core/base/clock.c).
 * For: every room of the core; it depends on nothing but libc. Not installed. */
#ifndef MI_BASE_CLOCK_H
#define MI_BASE_CLOCK_H
#include <stdint.h>
#include <time.h>
#include "mi.h"

/* The wall clock now, in ticks of ticks_per_ms per millisecond since 1970. */
int64_t mi_wall_ticks(int32_t ticks_per_ms);
/* Splits microseconds since 1970 into local broken-down time and tenths; 0 or -1. */
int mi_us_split(int64_t us, struct tm *tm, int *tenths);
/* Converts non-negative ticks to microseconds into *us; -1 when tpm is not a positive rate or the
 * result would not fit in 64 bits (only possible with a rate below 1000 ticks/ms). */
int mi_ticks_to_us(int64_t ticks, int32_t tpm, int64_t *us);
/* Ticks since 1970 as the manual's clock (hour, minute, second, tenths); zeros for ticks <= 0. */
void mi_ticks_to_clock(int64_t ticks, int32_t tpm, clock_type *c);
/* Ticks since 1970 as the manual's packed date (7 bits of year after 1900, day of year); 0 if none. */
uint32_t mi_ticks_to_calendar(int64_t ticks, int32_t tpm);

#endif
