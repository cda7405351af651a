/* test_recspan.c — span marks (p39, issue #28's open figure): every index record says the span
 * and steps back of the file before it, so an open reads the last one and the frames after it
 * instead of every frame. Included by test_core.c after test_record.c (its helpers: rec_tmp,
 * rec_clock_seg, rec_ahead, rec_replayed; record_fixture.h's rec_indexes, rec_mark_steps); reads
 * spec/record_v1.mir. */

/* 1 if the reader's span at open is what reading every frame gives (mir_span_full). */
static int rs_same_as_full(const char *path, const char *what) {
  char err[300];
  mi_rec_reader *rd = mi_rec_open(path, err, sizeof err);
  if (!rd) { printf("# %s: %s\n", what, err); return 0; }
  const mi_rec_info *in = mi_rec_info_get(rd);
  mir_span s;
  mir_span_full(rd, &s);
  int same = in->steps_back == s.steps && in->first_time == (s.count ? s.first : -1) && in->last_time == (s.count ? s.last : -1);
  if (!same)
    printf("# %s: open %lld..%lld steps %lld, every frame %lld..%lld steps %lld\n", what, (long long)in->first_time,
           (long long)in->last_time, (long long)in->steps_back, (long long)s.first, (long long)s.last, (long long)s.steps);
  mi_rec_close(rd);
  return same;
}

/* Writes b (n bytes) to path; 0 or -1. */
static int rs_write(const char *path, const uint8_t *b, long n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int ok = fwrite(b, 1, (size_t)n, f) == (size_t)n;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static void test_record_span_marks(void) {
  const char *path = rec_tmp("span.mir"), *copy = rec_tmp("span2.mir");
  int64_t boot = 1790000000;
  uint8_t *b = NULL;
  long n, idx[64];
  unlink(path);
  unlink(copy);

  /* an old-style file (format version 1: indexes without marks) reads every frame as before; an
   * append by this recorder marks its indexes with the span of the whole file, the old part too */
  CHECK(rs_same_as_full("spec/record_v1.mir", "v1"), "p39: a file without span marks (version 1) opens with the span of every frame");
  n = rec_slurp("spec/record_v1.mir", &b);
  CHECK(n > 0 && rs_write(path, b, n) == 0, "p39: a copy of the version-1 fixture");
  free(b);
  rec_clock_seg(path, boot, 10, 1, 3);   /* appended by this recorder (a clock far later than the fixture's) */
  CHECK(rs_same_as_full(path, "v1+append"), "p39: the fixture appended to: the open (from the last mark) gives every frame's span");
  mi_rec_reader *rd = mi_rec_open(path, NULL, 0);
  mi_rec_health h;
  EQ(mi_rec_verify(rd, &h), 0, "p39: ... the file is whole");
  EQ(h.bad_marks, 0, "p39: ... and every mark holds (the old part counted in the new marks)");
  mi_rec_close(rd);
  unlink(path);

  /* a clock set back by a real writer (#27.3), keys every 3 samples: found at open through the marks */
  rec_clock_seg(path, boot + 3600, 10, 1, 3);
  rec_clock_seg(path, boot, 10, 1, 3);
  CHECK(rs_same_as_full(path, "step back"), "p39: a clock step back: the open's span and steps are every frame's");
  rd = mi_rec_open(path, NULL, 0);
  const mi_rec_info *in = mi_rec_info_get(rd);
  EQ(in->steps_back, 1, "p39: ... the step back is known at open");
  EQ(mi_rec_verify(rd, &h), 0, "p39: ... whole");
  EQ(h.bad_marks, 0, "p39: ... no mark disagrees");
  mi_rec_close(rd);
  n = rec_slurp(path, &b);
  int ni = n > 0 ? rec_indexes(b, n, idx, 64) : 0;
  CHECK(ni >= 2, "p39: the file has the indexes of both closes");

  /* a writer that died after the step back, before its close's index: the tail after the last
   * mark (the first segment's close) holds the step, and the open still finds it */
  if (ni >= 2) {
    CHECK(rs_write(copy, b, idx[ni - 1]) == 0, "p39: the file cut before its last index");
    CHECK(rs_same_as_full(copy, "died"), "p39: a writer that died before its last index: the open reads the tail after the last mark");
    rd = mi_rec_open(copy, NULL, 0);
    EQ(rd ? mi_rec_info_get(rd)->steps_back : -1, 1, "p39: ... the step back in the tail is found");
    mi_rec_close(rd);
    /* the first segment only, cut before its close's index: no mark at all (a key's pointer says none) */
    CHECK(rs_write(copy, b, idx[0]) == 0 && rs_same_as_full(copy, "no mark"), "p39: a file with no index: every frame read, as before");
  }

  /* a mark that lies: the last index says no step back. The open believes it; reading meets the
   * step and believes it no longer (a seek then starts from the start); verify counts the lie */
  if (ni >= 2 && rec_mark_steps(b, idx[ni - 1], 0) == 0) {
    CHECK(rs_write(copy, b, n) == 0, "p39: the lying copy written");
    rd = mi_rec_open(copy, NULL, 0);
    in = rd ? mi_rec_info_get(rd) : NULL;
    EQ(in ? in->steps_back : -1, 0, "p39: the open takes the last mark's word (it reads no frame before it)");
    int back = 0;
    EQ(rd ? rec_ahead(rd, in->first_time, &back) : -1, 20, "p39: reading the lying file: every sample");
    EQ(back, 1, "p39: ... the step back marked");
    EQ(in ? in->steps_back : -1, 1, "p39: ... and counted: the mark is believed no longer");
    mi_rec_span_frames(rd);
    EQ(in ? in->steps_back : -1, 1, "the frames' own span: the hidden step found");
    {   /* a replay takes the frames' word, not the mark's: a window is refused as for the honest
         * file, a whole replay plays every sample */
      char spec[300], err[300] = "";
      snprintf(spec, sizeof spec, "replay:%s", copy);
      mi_source_args wa = {.window = "from=+10s"};
      mi_system *rs = mi_system_open(spec, NULL, &wa, err, sizeof err);
      CHECK(!rs && strstr(err, "goes back"), "a replay window over a file whose mark hides a step back: refused, as for the honest file");
      mi_system_free(rs);
      rs = mi_system_open(spec, NULL, NULL, err, sizeof err);
      while (rs && mi_replay_step(rs, 1) == 1) {}
      EQ(rs ? mi_replay_samples(rs) : -1, 20, "a whole replay of it: every sample");
      mi_system_free(rs);
    }
    EQ(rd ? mi_rec_seek(rd, in->first_time + 8000 * 1000) : -1, 0, "p39: a seek after it");
    EQ(rd ? rec_ahead(rd, in->first_time + 8000 * 1000, NULL) : -1, 19, "p39: ... starts from the start: no sample at or after the time is lost");
    mi_rec_close(rd);
    rd = mi_rec_open(copy, NULL, 0);
    in = rd ? mi_rec_info_get(rd) : NULL;
    EQ(rd ? mi_rec_verify(rd, &h) : -1, 2, "p39: verify of the lying file: not clean");
    EQ(h.bad_marks, 1, "p39: ... one mark disagrees with the samples before it");
    EQ(h.steps_back, 1, "p39: ... the step counted from the frames");
    EQ(h.damaged_regions + h.seq_gaps, 0, "p39: ... and nothing else is wrong");
    EQ(in ? in->steps_back : -1, 1, "p39: ... after verify the reader believes the frames");
    mi_rec_close(rd);
    /* a mark that cannot be true (more steps back than samples): not believed at open */
    uint8_t *c2 = malloc((size_t)n);
    long i2[64];
    memcpy(c2, b, (size_t)n);
    rec_indexes(c2, n, i2, 64);
    CHECK(rec_mark_steps(c2, i2[0], 127) == 0 && rs_write(copy, c2, n) == 0, "p39: a copy whose first mark claims 127 steps");
    CHECK(rec_mark_steps(c2, i2[ni - 1], 127) == 0 && rs_write(copy, c2, n) == 0, "p39: ... and its last");
    CHECK(rs_same_as_full(copy, "impossible"), "p39: a mark that cannot be true is not believed: every frame read");
    rd = mi_rec_open(copy, NULL, 0);
    EQ(rd ? mi_rec_verify(rd, &h) : -1, 2, "p39: ... verify says so");
    EQ(h.bad_marks, 2, "p39: ... both marks counted");
    mi_rec_close(rd);
    free(c2);
  } else CHECK(0, "p39: the last index has a span mark");
  free(b);
  b = NULL;
  unlink(path);

  /* honest damage before a mark: the mark counts samples the damage took, which is no lie; once
   * verify has read every frame, the reader's span is theirs */
  rec_clock_seg(path, boot, 40, 1, 2);
  n = rec_slurp(path, &b);
  ni = n > 0 ? rec_indexes(b, n, idx, 64) : 0;
  CHECK(ni >= 2, "p39: 40 samples, keys every 2: indexes every 16 keys and at the close");
  long key = -1;
  for (long off = 0; n > 0 && off + MIR_MIN <= n && key < 0; off += mir_get32(b + off + 4))
    if (mir_get16(b + off + 8) == MIR_T_KEY) key = off;
  if (ni >= 2 && key > 0) {
    b[key + MIR_HEAD + 2] ^= 0x55;   /* the first sample (a key), damaged */
    CHECK(rs_write(copy, b, n) == 0, "p39: a damaged copy");
    rd = mi_rec_open(copy, NULL, 0);
    in = rd ? mi_rec_info_get(rd) : NULL;
    mir_span s;
    if (rd) mir_span_full(rd, &s);
    EQ(in ? in->first_time : -1, boot * 1000 * 8000, "p39: the open takes the mark's span (the lost first sample in it)");
    EQ(rd ? mi_rec_verify(rd, &h) : -1, 2, "p39: a damaged file: verify says so");
    CHECK(h.damaged_regions == 1 && h.bad_marks == 0, "p39: ... one damaged region, and no mark counted as lying (damage explains it)");
    CHECK(rd && s.count == 39 && in->first_time == s.first && in->last_time == s.last && in->steps_back == s.steps,
          "p39: ... after verify the span is the frames' (from the second sample)");
    mi_rec_close(rd);
  }
  free(b);
  unlink(path);
  unlink(copy);
}
