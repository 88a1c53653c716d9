/* trace_files.c: the files the trace tests write and read (see trace_files.h). */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include "trace_files.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

const char *trace_file_path(const char *name) {
  static char buf[256];
  const char *dir = getenv("TMPDIR");
  snprintf(buf, sizeof buf, "%s/saspu_%s_%ld.trace", dir ? dir : "/tmp", name,
           (long)getpid());
  return buf;
}

void *trace_file_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc((size_t)n + 1);
  assert_non_null(p);
  assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return p;
}

void trace_file_write(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
}
