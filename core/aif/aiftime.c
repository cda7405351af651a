/* aiftime.c — AIFTIME and the tick conversions behind items 20005-20010:
 * ticks or microseconds since 1970 to clock, date and names in local time. */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include "mi_internal.h"


int64_t mi_wall_ticks(int32_t tpm) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) * tpm + (ts.tv_nsec % 1000000) * tpm / 1000000;
}

/* Splits microseconds since 1970 into local broken-down time and tenths; 0 or -1. */
static int split(int64_t us, struct tm *tm, int *tenths) {
  time_t t = (time_t)(us / 1000000);
  *tenths = (int)(us % 1000000 / 100000);
  if (us < 0 || (int64_t)t != us / 1000000) return -1;   /* a 32-bit time_t cannot hold it */
  return localtime_r(&t, tm) ? 0 : -1;
}

/* Converts non-negative ticks to microseconds into *us; -1 when tpm is not a positive rate or
 * the result would not fit in 64 bits (only possible with a rate below 1000 ticks/ms). */
static int ticks_to_us(int64_t ticks, int32_t tpm, int64_t *us) {
  if (tpm < 1 || ticks < 0 || ticks / tpm > INT64_MAX / 1000 - 1) return -1;
  *us = ticks / tpm * 1000 + ticks % tpm * 1000 / tpm;
  return 0;
}

void mi_ticks_to_clock(int64_t ticks, int32_t tpm, clock_type *c) {
  struct tm tm; int tenths; int64_t us;
  memset(c, 0, sizeof *c);
  if (ticks <= 0 || ticks_to_us(ticks, tpm, &us) || split(us, &tm, &tenths)) return;
  c->hour = (uint8_t)tm.tm_hour; c->min = (uint8_t)tm.tm_min; c->sec = (uint8_t)tm.tm_sec; c->ten_sec = (uint8_t)tenths;
}

uint32_t mi_ticks_to_calendar(int64_t ticks, int32_t tpm) {
  struct tm tm; int tenths; int64_t us;
  if (ticks <= 0 || ticks_to_us(ticks, tpm, &us) || split(us, &tm, &tenths)) return 0;
  /* 7 bits of year after 1900, as the manual's packed date; years past 2027 wrap */
  return ((uint32_t)(tm.tm_year & 0x7F) << 25) | ((uint32_t)(tm.tm_yday + 1) << 16);
}

void mi_time(mi_session *s, status_type *st, longint_type *ticks, longint_type *micro, clock_type *clock,
             date_type *date, datestr_type *date_str, int32_t user_id) {
  static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec", days[] = "SunMonTueWedThuFriSat";
  if (!st) return;
  int rc = mi_enter(s, user_id);
  if (rc) { MI_STATUS(st, rc); return; }
  if ((date && ((uintptr_t)date & 3)) || (ticks && ((uintptr_t)ticks & 3)) || (micro && ((uintptr_t)micro & 3))) {
    MI_STATUS(st, MI_E_BAD_ALIGNMENT);
    return;
  }
  /* like every AIF, bring the measured system up to date first: "now" is its clock now */
  mi_sys_refresh(s->sys);
  int32_t tpm = mi_host_ticks_per_ms(s->sys);
  int64_t us = -1;
  if (ticks) {
    if (ticks_to_us(mi_longint_get(ticks), tpm, &us)) { MI_STATUS(st, MI_E_TIME_INVALID); return; }
  } else if (micro) {
    us = mi_longint_get(micro);
    if (us < 0) { MI_STATUS(st, MI_E_TIME_INVALID); return; }
  } else if (ticks_to_us(mi_host_now(s->sys), tpm, &us)) {
    MI_STATUS(st, MI_E_TIME_INVALID);
    return;
  }
  struct tm tm; int tenths;
  if (split(us, &tm, &tenths)) { MI_STATUS(st, MI_E_TIME_INVALID); return; }
  if (clock) { clock->hour = (uint8_t)tm.tm_hour; clock->min = (uint8_t)tm.tm_min; clock->sec = (uint8_t)tm.tm_sec; clock->ten_sec = (uint8_t)tenths; }
  if (date) { date->year = tm.tm_year + 1900; date->month = tm.tm_mon + 1; date->day_of_month = tm.tm_mday; }
  if (date_str) { memcpy(date_str->month_str, months + 3 * tm.tm_mon, 3); memcpy(date_str->day_of_week, days + 3 * tm.tm_wday, 3); }
  MI_STATUS(st, 0);
}
