/* clock.c — the leaf every room may use: the wall clock in ticks and the conversions of
 * ticks (or microseconds) since 1970 to the manual's clock and packed date, in local time. */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "base/clock.h"

int64_t mi_wall_ticks(int32_t tpm) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) * tpm + (ts.tv_nsec % 1000000) * tpm / 1000000;
}

int mi_us_split(int64_t us, struct tm *tm, int *tenths) {
  time_t t = (time_t)(us / 1000000);
  *tenths = (int)(us % 1000000 / 100000);
  if (us < 0 || (int64_t)t != us / 1000000) return -1;   /* a 32-bit time_t cannot hold it */
  return localtime_r(&t, tm) ? 0 : -1;
}

int mi_ticks_to_us(int64_t ticks, int32_t tpm, int64_t *us) {
  if (tpm < 1 || ticks < 0 || ticks / tpm > INT64_MAX / 1000 - 1) return -1;
  *us = ticks / tpm * 1000 + ticks % tpm * 1000 / tpm;
  return 0;
}

void mi_ticks_to_clock(int64_t ticks, int32_t tpm, clock_type *c) {
  struct tm tm; int tenths; int64_t us;
  memset(c, 0, sizeof *c);
  if (ticks <= 0 || mi_ticks_to_us(ticks, tpm, &us) || mi_us_split(us, &tm, &tenths)) return;
  c->hour = (uint8_t)tm.tm_hour; c->min = (uint8_t)tm.tm_min; c->sec = (uint8_t)tm.tm_sec; c->ten_sec = (uint8_t)tenths;
}

uint32_t mi_ticks_to_calendar(int64_t ticks, int32_t tpm) {
  struct tm tm; int tenths; int64_t us;
  if (ticks <= 0 || mi_ticks_to_us(ticks, tpm, &us) || mi_us_split(us, &tm, &tenths)) return 0;
  /* 7 bits of year after 1900, as the manual's packed date; years past 2027 wrap */
  return ((uint32_t)(tm.tm_year & 0x7F) << 25) | ((uint32_t)(tm.tm_yday + 1) << 16);
}
