/* saspu_record.h: recording a world's frames to a trace file (events, cell changes, fact changes) and reading a trace back. */
#ifndef saspu_record_h
#define saspu_record_h

#include <stddef.h>
#include <stdint.h>

#include "saspu.h"
#include "saspu_agents.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Recording                                                          */
/* ------------------------------------------------------------------ */
/* A recorder appends, after each frame, what the frame changed: every
 * event of the recorded crowds (the C records, about 6 bytes each), the
 * cells of agents that changed cell (delta-coded, about 2 bytes each),
 * the world facts that changed, and the values the crowds' sensors read
 * (every agent's the first frame a sensor is seen, then the changes; only
 * in frames the sensor read). The file is a header chunk (the
 * world's names: places, facts, event kinds and reasons, per crowd its
 * class, actions and goals) and a snapshot chunk per crowd (every
 * agent's cell), then frame chunks of up to SP_RECORD_CHUNK bytes, each
 * with its own checksum; a snapshot chunk again every
 * SP_RECORD_SNAPSHOT_EVERY frame chunks (a reader seeks and resyncs
 * there). A sealed chunk is checksummed and written by the recorder's own thread, so the
 * caller's frame pays for encoding only. While a crowd is recorded it
 * keeps its spatial index's cell keys (4 bytes an agent; an update then
 * writes a key when an agent changes cell): a crowd not recorded pays
 * nothing. */

#if !defined(SP_RECORD_CHUNK)
#define SP_RECORD_CHUNK ((size_t)256 << 10)
#endif
#if !defined(SP_RECORD_SNAPSHOT_EVERY)
#define SP_RECORD_SNAPSHOT_EVERY 64
#endif
#define SP_TRACE_VERSION 2

typedef struct SpRecorder SpRecorder;

/* Names written into the header (any may be NULL: places are called
 * "place#<id>", classes by their domain's name, goals "goal <index + 1>"). */
typedef struct SpRecordNames {
  const char *const *places;       /* sp_world_place_count entries */
  const char *const *classes;      /* one per crowd */
  const char *const *const *goals; /* per crowd, its goal names or NULL */
} SpRecordNames;

typedef struct SpRecordOptions {
  int positions; /* cell changes every this many frames (0: none; 1: every) */
  const uint8_t *crowds; /* per crowd 1: recorded (NULL: every crowd) */
} SpRecordOptions;

typedef struct SpRecordStats {
  uint64_t frames, events, cells, facts;
  uint64_t sensed; /* sensed values written (a sensor's every agent first) */
  uint64_t bytes;  /* written to the file so far, or queued for it */
  uint64_t event_bytes, cell_bytes; /* of `bytes`, what events and cells took */
  double ms_encode; /* sp_world_record_frame on the caller's thread, in all */
  double ms_wait;   /* of which waiting for the writer to take a chunk */
} SpRecordStats;

/* Starts recording w and crowds[0..count-1] (the crowds of w, in a fixed
 * order: the header and every frame name them by position) to the file
 * at `path` (created or truncated). Writes the header and the snapshots.
 * SP_ERR_INVALID (with the system's reason) when the file cannot be
 * opened or written; SP_ERR_STATE when a crowd lives in another world;
 * SP_ERR_MEMORY. Nothing is left open on failure. */
SP_API SpStatus sp_world_record_start(SpWorld *w, SpCrowd *const *crowds,
                                      size_t count, const char *path,
                                      const SpRecordNames *names,
                                      const SpRecordOptions *opt,
                                      SpRecorder **out, SpError *err);
/* Records the frame the crowds just updated (call after each update;
 * crowds[k] is the same crowd as at the start, or NULL once it was
 * freed: it is then left out). `count` must be the start's. SP_ERR_INVALID
 * when a write failed (the recording stops: later frames are refused
 * with the same error); SP_ERR_MEMORY (this frame is lost). */
SP_API SpStatus sp_world_record_frame(SpRecorder *r, SpCrowd *const *crowds,
                                      size_t count, SpError *err);
/* A text about event `event` (0-based, in sp_crowd_events order) of
 * crowds[crowd] in the frame the next sp_world_record_frame records (the
 * binding notes why a no_plan had no plan). Texts are cut to
 * SP_RECORD_NOTE_MAX bytes. SP_ERR_INVALID for a crowd out of range;
 * SP_ERR_MEMORY. */
#if !defined(SP_RECORD_NOTE_MAX)
#define SP_RECORD_NOTE_MAX 1024
#endif
SP_API SpStatus sp_world_record_note(SpRecorder *r, size_t crowd, size_t event,
                                     const char *text, SpError *err);
/* An event made by the binding (in Lua: a hook that failed, a move
 * blocked for want of a target) for agent `agent` of crowds[crowd] in the
 * frame the next sp_world_record_frame records, before that crowd's C
 * events (world:events' order), in call order. `kind` is an event kind's
 * name or "hook_failed"; action -1: none; text (NULL: "") is cut to
 * SP_RECORD_NOTE_MAX bytes. The reader gives it as an event with flags
 * SP_TRACE_LUA and its text as its note. SP_ERR_INVALID for a crowd,
 * agent, kind or action out of range; SP_ERR_MEMORY. */
SP_API SpStatus sp_world_record_lua_event(SpRecorder *r, size_t crowd,
                                          size_t agent, const char *kind,
                                          int action, const char *text,
                                          SpError *err);
/* Seals the frames buffered so far into a chunk and waits until the
 * file has every chunk (sp_world_record_stats then counts them all).
 * SP_ERR_INVALID when some write failed. */
SP_API SpStatus sp_world_record_flush(SpRecorder *r, SpError *err);
/* Writes what is buffered, closes the file and frees r (NULL is
 * ignored). The status of the last writes: SP_ERR_INVALID when some
 * write failed. */
SP_API SpStatus sp_world_record_stop(SpRecorder *r, SpError *err);
SP_API void sp_world_record_stats(const SpRecorder *r, SpRecordStats *out);

/* ------------------------------------------------------------------ */
/* Reading                                                            */
/* ------------------------------------------------------------------ */
/* A trace decoded into arrays. The input is untrusted: a chunk whose
 * checksum, length or contents are wrong is skipped and reported in
 * `problems` (lines ending in '\n'); the reader then looks for the next
 * chunk's mark. Cells after a skipped frame chunk are approximate until
 * the next snapshot (the cells are deltas); `problems` says so. */

#define SP_TRACE_LUA 2 /* SpTraceEvent.flags: made by the binding */

typedef struct SpTraceEvent {
  uint32_t frame; /* index into frames */
  uint32_t agent;
  uint16_t crowd;
  uint8_t kind, reason, goal, flags;
  int16_t action;
  int32_t detail;
} SpTraceEvent;

typedef struct SpTraceCell {
  uint32_t frame, agent;
  uint16_t crowd;
  uint16_t x, y; /* 0xFFFF, 0xFFFF: the agent is gone */
} SpTraceCell;

typedef struct SpTraceSensed {
  uint32_t frame, agent;
  uint16_t crowd;
  uint8_t var, value; /* the crowd's variable and its value, from 0 */
} SpTraceSensed;

typedef struct SpTraceFact {
  uint32_t frame;
  uint16_t fact, value;
} SpTraceFact;

typedef struct SpTraceNote {
  size_t event; /* index into events */
  char *text;
} SpTraceNote;

typedef struct SpTraceSnapshot {
  uint32_t frame; /* the first frame after it (frames before it: none) */
  uint16_t crowd;
  uint32_t count;
  uint32_t *cells; /* y << 16 | x per agent, UINT32_MAX: no agent */
  /* a streamed read keeps the kept agents' cells only: cells[j] is agent
   * agents[j]'s (ascending, nkept of them); NULL: every agent's */
  uint32_t *agents;
  uint32_t nkept;
} SpTraceSnapshot;

typedef struct SpTraceFrame {
  double clock;    /* the crowds' clock after the frame, in seconds */
  uint32_t number; /* frames since recording started, from 0 */
} SpTraceFrame;

typedef struct SpTraceCrowd {
  char *name;
  int recorded;
  uint32_t slots; /* agent indices are below it */
  uint32_t nactions, ngoals, nvars;
  char **actions, **goals;
  struct SpTraceFactInfo *vars; /* the domain's variables (start: 0) */
} SpTraceCrowd;

typedef struct SpTracePlace {
  char *name;
  int x, y;
} SpTracePlace;

typedef struct SpTraceFactInfo {
  char *name;
  uint32_t nvalues;
  char **values;
  uint32_t start; /* its value when recording started */
} SpTraceFactInfo;

typedef struct SpTrace {
  int grid_w, grid_h;
  int positions;
  double start_clock;
  uint32_t nplaces, nkinds, nreasons, nfacts, ncrowds;
  SpTracePlace *places;
  char **kinds, **reasons;
  SpTraceFactInfo *facts;
  SpTraceCrowd *crowds;
  uint8_t *blocked; /* grid_w * grid_h, 1: blocked; NULL: not recorded */
  size_t nframes, nevents, ncells, nfact_changes, nsnapshots, nnotes, nsensed;
  SpTraceFrame *frames;
  SpTraceEvent *events;
  SpTraceCell *cells;
  SpTraceFact *fact_changes;
  SpTraceSnapshot *snapshots;
  SpTraceNote *notes;    /* in event order */
  SpTraceSensed *sensed; /* values sensors read, in frame order */
  char *problems;        /* NUL-terminated; "" when the trace read cleanly */
  size_t problems_len, problems_cap;
  size_t chunks, chunks_skipped;
  /* What the trace holds, kept or not (a streamed read keeps only some). */
  uint64_t all_events, all_cells, all_sensed;
  struct SpTraceSummary *summary; /* NULL unless the read was asked one */
  /* bookkeeping */
  SpAllocator alloc;
  size_t cap_frames, cap_events, cap_cells, cap_facts, cap_snapshots, cap_notes,
      cap_sensed;
  int header_ok;
  struct SpTraceScan *scan; /* while reading with options */
} SpTrace;

/* Decodes data[0..len) into a new *out (release with sp_trace_free).
 * SP_ERR_INVALID only when the data is no trace at all (no file mark, or
 * no readable header chunk); damage after the header is reported in
 * (*out)->problems. SP_ERR_MEMORY. */
SP_API SpStatus sp_trace_read(const void *data, size_t len, SpAllocator alloc,
                              SpTrace **out, SpError *err);
SP_API void sp_trace_free(SpTrace *t);

/* ------------------------------------------------------------------ */
/* Reading a large trace: streamed, summed up                         */
/* ------------------------------------------------------------------ */
/* A trace of a million agents holds hundreds of millions of events: too
 * many to decode into arrays. A streamed read goes through the file once,
 * a chunk at a time (memory: the largest chunk, a few bytes per agent and
 * per place, kind and reason; never per event), keeps the events, cells,
 * notes and sensed values of the agents it is asked to keep (`keep`)
 * and sums up the rest while reading:
 *  - per class: goals chosen, reached, without a plan, given up, dropped,
 *    steps failed; the failure reasons (kind, reason, action, place) with
 *    their count, first and last time, the `top` most frequent; the
 *    `top` agents stuck longest (failing with no progress); the agents
 *    that never reached a goal (a count and the first SP_TRACE_LIST);
 *  - events by kind per `period` seconds of the crowds' clock;
 *  - the density of each class's agents on a grid of `bin` x `bin`
 *    blocks of cells, at the frames `keyframes` names.
 * What the summary says is what lua/saspu/trace_report.lua computed from
 * every event (spec/trace_summary_spec.lua compares them). Damaged chunks
 * are skipped and reported in `problems` as sp_trace_read does. */

#if !defined(SP_TRACE_TOP)
#define SP_TRACE_TOP 5
#endif
#if !defined(SP_TRACE_LIST)
#define SP_TRACE_LIST 10
#endif
/* Distinct note texts (reasons made in Lua, why a no_plan had no plan) the
 * summary tells apart; the rest count as SP_TRACE_OTHER_TEXT. */
#if !defined(SP_TRACE_TWICE_ABOVE)
#define SP_TRACE_TWICE_ABOVE ((size_t)1 << 20)
#endif
#if !defined(SP_TRACE_TEXTS_MAX)
#define SP_TRACE_TEXTS_MAX 65536
#endif
#define SP_TRACE_OTHER_TEXT "(other texts)"
#define SP_TRACE_NO_TEXT    UINT32_MAX

typedef struct SpTraceKeep {
  uint32_t crowd, agent; /* 0-based */
} SpTraceKeep;

typedef struct SpTraceReadOptions {
  int stream; /* 1: keep only the `keep` agents' events, cells, notes,
               * sensed values and snapshot cells (0: keep everything) */
  const SpTraceKeep *keep;
  size_t nkeep;
  int summary;   /* 1: fill SpTrace.summary */
  uint32_t top;  /* reasons and stuck agents per class (0: SP_TRACE_TOP) */
  double period; /* seconds per row of counts (0: 3600) */
  /* density (nkeyframes 0: none): the cells of each crowd's agents (its
   * first snapshot, then every cell change) binned in blocks of bin x bin
   * cells, a grid of bw x bh blocks, after each frame keyframes[k]
   * (0-based frame indices, ascending) */
  const uint32_t *keyframes;
  size_t nkeyframes;
  uint32_t bin, bw, bh;
  /* a streamed read decodes a chunk of more bytes than this (0:
   * SP_TRACE_TWICE_ABOVE) twice: checked first, then a crowd's part of a
   * frame at a time, so no more than that part's events are held at once
   * (a frame of a million agents choosing their goals is one chunk) */
  size_t twice_above;
} SpTraceReadOptions;

typedef struct SpTraceReason {
  uint8_t kind;
  int16_t action; /* -1: none */
  int32_t place;  /* -1: none */
  uint32_t text;  /* index into SpTraceSummary.texts; SP_TRACE_NO_TEXT */
  uint64_t count;
  double first, last; /* clocks */
} SpTraceReason;

typedef struct SpTraceStuck {
  uint32_t agent;
  double from, to; /* the last progress, and the next (or the end) */
  uint32_t text;   /* the last failure's reason; SP_TRACE_NO_TEXT: */
  uint8_t kind;    /* then the last failure's kind */
} SpTraceStuck;

typedef struct SpTraceClassSummary {
  int recorded;
  uint64_t agents; /* agents with at least one event */
  uint64_t goals, reached, failed, gave_up, dropped, step_failures;
  uint64_t never; /* agents with events and no goal reached */
  uint32_t nreasons, nstuck, nnever, nreachers;
  SpTraceReason *reasons; /* most frequent first (then the first seen) */
  SpTraceStuck *stuck;    /* longest first (then the lower agent) */
  uint32_t *never_agents; /* the first SP_TRACE_LIST, ascending */
  uint32_t *reachers;     /* the first SP_TRACE_LIST agents to reach a goal */
} SpTraceClassSummary;

typedef struct SpTraceSummary {
  double start, finish; /* the start clock; the last frame's clock */
  uint32_t ncrowds, nkinds, top;
  SpTraceClassSummary *classes; /* per crowd */
  uint32_t ntexts; /* the reason names, then the notes' distinct texts */
  char **texts;    /* (reason names are the header's: not owned) */
  double period;
  size_t nperiods;
  int64_t *periods;     /* floor(clock / period), ascending */
  uint64_t *counts;     /* nperiods x nkinds events */
  int cells_w, cells_h; /* 1 + the largest cell x, y an agent used */
  size_t nkeyframes;
  uint32_t bw, bh;
  uint32_t *density; /* nkeyframes x ncrowds x (bw * bh) agents */
  /* bookkeeping */
  SpAllocator alloc;
  size_t cap_periods;
  uint32_t cap_texts;
} SpTraceSummary;

/* Reads the trace file at `path` a chunk at a time as `opt` asks (NULL:
 * like sp_trace_read). SP_ERR_INVALID when the file cannot be opened or
 * read (with the system's reason), or is no trace; for a keyframe or a
 * kept agent out of range, or a density grid over 2^24 blocks;
 * SP_ERR_MEMORY. */
SP_API SpStatus sp_trace_read_file(const char *path,
                                   const SpTraceReadOptions *opt,
                                   SpAllocator alloc, SpTrace **out,
                                   SpError *err);
/* The same from bytes in memory. */
SP_API SpStatus sp_trace_read_with(const void *data, size_t len,
                                   const SpTraceReadOptions *opt,
                                   SpAllocator alloc, SpTrace **out,
                                   SpError *err);
/* Sums up a trace read whole (keep everything) as a streamed read would:
 * *out (free with sp_trace_summary_free) from its arrays. Density is not
 * computed (opt's keyframes are ignored). SP_ERR_MEMORY. */
SP_API SpStatus sp_trace_summarize(const SpTrace *t,
                                   const SpTraceReadOptions *opt,
                                   SpTraceSummary **out, SpError *err);
SP_API void sp_trace_summary_free(SpTraceSummary *s);

#ifdef __cplusplus
}
#endif

#endif
