/* sp_record.h: the trace format shared by record.c (writing) and trace_read.c (reading): marks, chunk layout, varints, checksum. */
#ifndef sp_record_h
#define sp_record_h

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "saspu_record.h"

/* A trace: the 16-byte file head "SASPU-TRACE\0" + version (u32 LE),
 * then chunks. A chunk: the mark "SPck", its type (u8), 3 zero bytes,
 * the payload's length (u32 LE), its sequence number (u32 LE), the
 * FNV-1a 64 of type, length, sequence and payload (u64 LE), then the
 * payload. Integers inside payloads are LEB128 varints (signed ones
 * zigzagged), strings a varint length then the bytes, clocks 8-byte
 * IEEE doubles LE.
 *
 * HEADER: grid w, h; positions; start clock; places (name, x, y); event
 *   kind names (the C kinds, then SP_TRACE_HOOK_FAILED); reason names;
 *   facts (name, values, value now); crowds (class, recorded, slots:
 *   agent indices are below it, actions,
 *   goals, variables (name, value names); the crowds' slots add up to
 *   at most 2^26); walls: a run count (0: none),
 *   then the lengths of runs of open, blocked, open, ... cells in reading
 *   order (adding up to w * h).
 * SNAPSHOT: frame number (the next frame), crowd, agent count, then per
 *   agent its cell as the zigzag of x and y minus the previous agent's
 *   (a gone agent: x = 0xFFFF, y = 0xFFFF taken as a cell).
 * FRAMES: frames until the payload ends; a frame: frame number, clock,
 *   fact changes (count, then fact, value), crowd blocks (count, then per
 *   block: crowd, binding event count, binding events, event count,
 *   events, cell count, cells, note count, notes: the event's index among
 *   the block's C events and a string, sensed count, sensed values:
 *   zigzag(agent - previous one's agent, per sensor), variable (u8),
 *   value (u8)). A binding event (one made in Lua,
 *   which world:events gives before the crowd's C events): agent, kind
 *   (u8), action + 1, its text as a string. An event:
 *   zigzag(agent - previous event's agent), kind | flags << 7, reason,
 *   goal, action + 1, zigzag(detail). A cell: agent - previous cell's
 *   agent - 1 (agents in order), then one byte (dx + 7) * 15 + (dy + 7)
 *   for a move of at most 7 cells each way from the agent's last cell,
 *   CELL_GONE, or CELL_FAR followed by x and y. */
#define SP_TRACE_HEAD     "SASPU-TRACE"
#define SP_TRACE_HEAD_LEN 16
#define SP_CHUNK_MARK     "SPck"
#define SP_CHUNK_HEAD_LEN 24
#define SP_CHUNK_HEADER   1
#define SP_CHUNK_SNAPSHOT 2
#define SP_CHUNK_FRAMES   3
#define SP_CELL_GONE      254
#define SP_CELL_FAR       255
#define SP_CELL_NEAR_MAX  7
#define SP_TRACE_NO_CELL  UINT32_MAX
/* The kind the header names after the C kinds: a hook that failed. */
#define SP_TRACE_HOOK_FAILED "hook_failed"
#define SP_TRACE_KINDS       (SP_EV_COUNT + 1)
/* The recorder's mark for a sensed value not written yet. */
#define SP_TRACE_UNSENSED 0xFF
/* A chunk's payload is at most this long (a reader refuses more). */
#define SP_TRACE_CHUNK_MAX ((uint32_t)1 << 30)
/* A grid of more cells has no walls in its trace. */
#define SP_TRACE_WALLS_MAX ((size_t)1 << 24)
/* Strings are at most this long (names 255, notes SP_RECORD_NOTE_MAX). */
#define SP_TRACE_STR_MAX 4096

static inline uint64_t sp_trace_fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t k = 0; k < n; k++) {
    h ^= b[k];
    h *= 0x100000001b3ull;
  }
  return h;
}
#define SP_TRACE_FNV_START 0xcbf29ce484222325ull

static inline void sp_trace_put_le(uint8_t *p, uint64_t v, int n) {
  for (int k = 0; k < n; k++) p[k] = (uint8_t)(v >> (8 * k));
}
static inline uint64_t sp_trace_get_le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int k = 0; k < n; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
}
static inline uint64_t sp_trace_zigzag(int64_t v) {
  return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t sp_trace_unzigzag(uint64_t v) {
  return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ---- trace_source.c: the bytes the reader walks ------------------------- */

/* All in memory (f NULL: buf holds the whole trace), or a window of a
 * file: buf holds bytes [off, off + len) of the trace's `size`. */
typedef struct SpTraceSource {
  const uint8_t *buf;
  size_t len;
  uint64_t off, size;
  FILE *f;
  uint8_t *own; /* the window (cap bytes) */
  size_t cap;
  SpAllocator alloc;
  int io_error; /* a read fell short */
} SpTraceSource;

/* Makes bytes [at, at + n) of the trace available in buf (at + n <= size).
 * 0: out of memory (io_error 0) or the file could not be read. */
int sp__source_need(SpTraceSource *s, uint64_t at, size_t n);
/* The position of the next chunk mark at or after p (size: none); sets
 * *fail when the bytes could not be had. */
uint64_t sp__source_mark(SpTraceSource *s, uint64_t p, int *fail);

/* ---- between trace_read.c and trace_scan.c ------------------------------ */

/* Where t's arrays stood before a chunk was decoded. */
typedef struct SpTraceMark {
  size_t frames, events, cells, notes, sensed, snapshots;
} SpTraceMark;

/* Frees a snapshot's cells (and agents; trace_scan.c). */
void sp__trace_snapshot_free(const SpTrace *t, SpTraceSnapshot *s);
/* Once t's header is read: checks opt against it and sets t->scan up.
 * SP_ERR_INVALID (a kept agent out of range, a density grid too large),
 * SP_ERR_MEMORY. */
SpStatus sp__scan_start(SpTrace *t, const SpTraceReadOptions *opt,
                        SpError *err);
/* After a chunk decoded: sums up what it added since `before`, then (a
 * streamed read) drops what is not kept. 0: out of memory. */
int sp__scan_chunk(SpTrace *t, const SpTraceMark *before);
/* A frames chunk of more bytes than this is decoded twice, a block at a
 * time (SIZE_MAX: never, as without a streamed read). */
size_t sp__scan_twice_above(const SpTrace *t);
/* At the end: fills t->summary. 0: out of memory. */
int sp__scan_finish(SpTrace *t);
void sp__scan_free(SpTrace *t);

/* ---- trace_summary.c: the sums (used by trace_scan.c) ------------------ */

typedef struct SpSum SpSum;
/* Sums for trace t (its header read) as opt asks (NULL: defaults, no
 * density). SP_ERR_INVALID for a density out of range; SP_ERR_MEMORY. */
SpStatus sp__sum_new(const SpTrace *t, const SpTraceReadOptions *opt,
                     SpSum **out, SpError *err);
/* Adds events [from, to) of t; its notes from index `note` on are theirs. */
int sp__sum_events(SpSum *S, const SpTrace *t, size_t from, size_t to,
                   size_t note);
void sp__sum_snapshot(SpSum *S, const SpTraceSnapshot *s, uint32_t bin);
void sp__sum_cells(SpSum *S, const SpTrace *t, size_t from, size_t to,
                   uint32_t bin);
/* The summary, given away (NULL: out of memory); free S after. */
SpTraceSummary *sp__sum_finish(SpSum *S, const SpTrace *t);
void sp__sum_free(SpSum *S);

#endif
