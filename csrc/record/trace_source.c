/* trace_source.c: a trace's bytes as the reader walks them: all in memory, or a file read through a window of 1 MiB (more for a larger chunk). */
#include <stdio.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_record.h"

static const uint8_t *find_mark(const uint8_t *p, const uint8_t *end) {
  for (; end - p >= 4; p++)
    if (memcmp(p, SP_CHUNK_MARK, 4) == 0) return p;
  return end;
}

#define SRC_WINDOW ((size_t)1 << 20)

/* Makes bytes [at, at + n) of the trace available in buf (at + n <= size).
 * 0: out of memory (io_error 0) or the file could not be read. */
int sp__source_need(SpTraceSource *s, uint64_t at, size_t n) {
  if (at >= s->off && at + n <= s->off + s->len) return 1;
  if (s->f == NULL) return 0;
  uint64_t want = n > SRC_WINDOW ? n : SRC_WINDOW;
  if (want > s->size - at) want = s->size - at;
  if (want > s->cap) {
    uint8_t *b = sp__mem_realloc(s->alloc, s->own, s->cap, (size_t)want);
    if (b == NULL) return 0;
    s->own = b;
    s->cap = (size_t)want;
  }
  size_t keep = 0;
  if (at >= s->off && at < s->off + s->len) {
    keep = (size_t)(s->off + s->len - at);
    memmove(s->own, s->own + (at - s->off), keep);
  } else if (fseek(s->f, (long)at, SEEK_SET) != 0) {
    s->io_error = 1;
    return 0;
  }
  size_t got = fread(s->own + keep, 1, (size_t)want - keep, s->f);
  s->buf = s->own;
  s->off = at;
  s->len = keep + got;
  if (s->len < n) {
    s->io_error = 1;
    s->len = 0;
    return 0;
  }
  return 1;
}

/* The position of the next chunk mark at or after p (size: none); sets
 * *fail when the bytes could not be had. */
uint64_t sp__source_mark(SpTraceSource *s, uint64_t p, int *fail) {
  while (s->size - p >= 4) {
    uint64_t left = s->size - p;
    size_t n = left > SRC_WINDOW ? SRC_WINDOW : (size_t)left;
    if (!sp__source_need(s, p, n)) {
      *fail = 1;
      return s->size;
    }
    const uint8_t *b = s->buf + (p - s->off), *m = find_mark(b, b + n);
    if (m != b + n) return p + (uint64_t)(m - b);
    if (n == left) break;
    p += n - 3;
  }
  return s->size;
}
