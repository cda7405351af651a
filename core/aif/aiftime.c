/* aiftime.c — AIFTIME: ticks or microseconds since 1970 to clock, date and names in local
 * time (the conversions are in base/clock.c). */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include "mi_internal.h"
#include "base/clock.h"


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
    if (mi_ticks_to_us(mi_longint_get(ticks), tpm, &us)) { MI_STATUS(st, MI_E_TIME_INVALID); return; }
  } else if (micro) {
    us = mi_longint_get(micro);
    if (us < 0) { MI_STATUS(st, MI_E_TIME_INVALID); return; }
  } else if (mi_ticks_to_us(mi_host_now(s->sys), tpm, &us)) {
    MI_STATUS(st, MI_E_TIME_INVALID);
    return;
  }
  struct tm tm; int tenths;
  if (mi_us_split(us, &tm, &tenths)) { MI_STATUS(st, MI_E_TIME_INVALID); return; }
  if (clock) { clock->hour = (uint8_t)tm.tm_hour; clock->min = (uint8_t)tm.tm_min; clock->sec = (uint8_t)tm.tm_sec; clock->ten_sec = (uint8_t)tenths; }
  if (date) { date->year = tm.tm_year + 1900; date->month = tm.tm_mon + 1; date->day_of_month = tm.tm_mday; }
  if (date_str) { memcpy(date_str->month_str, months + 3 * tm.tm_mon, 3); memcpy(date_str->day_of_week, days + 3 * tm.tm_wday, 3); }
  MI_STATUS(st, 0);
}
