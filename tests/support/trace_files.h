/* trace_files.h: the files the trace tests write and read: a path per test and process, a whole file in memory, bytes to a file. */
#ifndef trace_files_h
#define trace_files_h

#include <stddef.h>

/* TMPDIR/saspu_<name>_<pid>.trace (a static buffer: copy it to keep two). */
const char *trace_file_path(const char *name);
/* The file's bytes (malloc'd, free them) and their count in *len; fails
 * the running cmocka test when it cannot be read. */
void *trace_file_read(const char *path, size_t *len);
/* Writes data[0..len) to path (created or truncated), or fails the test. */
void trace_file_write(const char *path, const void *data, size_t len);

#endif
