/* record.c: the recorder: encodes each frame's events, cell changes and fact changes into chunks that its writer thread appends to the trace file. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sp_agents.h"
#include "sp_due.h"
#include "sp_space.h"
#include "sp_alloc.h"
#include "sp_error.h"
#include "sp_record.h"

typedef struct Note {
  size_t crowd, event, at, len; /* the text: notes_text[at .. at + len) */
} Note;

typedef struct LuaEvent {
  size_t crowd, agent, at, len; /* the text: notes_text[at .. at + len) */
  int kind, action;
} LuaEvent;

typedef struct RecCrowd {
  int recorded;
  uint32_t *last; /* the cell key last written per agent (capacity + 1) */
  size_t slots;
  /* per sensor: the value last written per agent (SP_TRACE_UNSENSED:
   * none yet), and the sensor's next reading then */
  SpValue *sensed[SP_CROWD_MAX_SENSORS];
  double due[SP_CROWD_MAX_SENSORS];
} RecCrowd;

struct SpRecorder {
  SpWorld *w;
  SpAllocator alloc;
  size_t count;
  RecCrowd *crowds;
  int positions;
  int *facts; /* the value last written per fact */
  int nfacts;
  FILE *f;
  /* the chunk being filled: bufs[cur], the chunk head first */
  uint8_t *bufs[2];
  size_t caps[2];
  int cur;
  size_t len;
  uint32_t seq;
  uint32_t frames_in_chunk, chunks_since_snapshot;
  uint64_t frame;
  double clock;
  SpRecordStats stats;
  Note *notes; /* this frame's, in call order */
  size_t nnotes, notes_cap;
  char *notes_text;
  size_t text_len, text_cap;
  LuaEvent *lua; /* this frame's events made by the binding, in call order */
  size_t nlua, lua_cap;
  /* the writer thread: takes one sealed chunk at a time */
  pthread_t thread;
  int threaded;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  uint8_t *wbuf;
  size_t wlen;
  int busy, quit;
  int write_errno; /* the first failed write's errno (under lock) */
};

/* ---- buffer and chunks ------------------------------------------------ */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int reserve(SpRecorder *r, size_t more) {
  size_t need = r->len + more, cap = r->caps[r->cur];
  if (need <= cap) return 1;
  size_t ncap = cap ? cap : SP_RECORD_CHUNK + SP_CHUNK_HEAD_LEN;
  while (ncap < need) ncap *= 2;
  uint8_t *p = sp__mem_realloc(r->alloc, r->bufs[r->cur], cap, ncap);
  if (p == NULL) return 0;
  r->bufs[r->cur] = p;
  r->caps[r->cur] = ncap;
  return 1;
}

static inline uint8_t *at(SpRecorder *r) { return r->bufs[r->cur] + r->len; }

static inline void put_u8(SpRecorder *r, unsigned v) {
  r->bufs[r->cur][r->len++] = (uint8_t)v;
}
static inline void put_var(SpRecorder *r, uint64_t v) {
  uint8_t *p = at(r);
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  r->len += n;
}
static inline void put_svar(SpRecorder *r, int64_t v) {
  put_var(r, sp_trace_zigzag(v));
}
static void put_double(SpRecorder *r, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  sp_trace_put_le(at(r), u, 8);
  r->len += 8;
}
/* A string, cut to 255 bytes; NULL writes `fallback` with `n`. */
static int put_str(SpRecorder *r, const char *s, const char *fallback,
                   size_t n) {
  char tmp[64];
  if (s == NULL) {
    snprintf(tmp, sizeof tmp, fallback, (unsigned long)n);
    s = tmp;
  }
  size_t l = strlen(s);
  if (l > 255) l = 255;
  if (!reserve(r, l + 2)) return 0;
  put_var(r, l);
  memcpy(at(r), s, l);
  r->len += l;
  return 1;
}

/* Fills in the checksum of the sealed chunk b (len bytes in all). */
static void checksum(uint8_t *b, size_t len) {
  uint64_t h = sp_trace_fnv(SP_TRACE_FNV_START, b + 4, 12);
  h = sp_trace_fnv(h, b + SP_CHUNK_HEAD_LEN, len - SP_CHUNK_HEAD_LEN);
  sp_trace_put_le(b + 16, h, 8);
}

/* The writer: checksums and writes each chunk handed to it. */
static void *writer_main(void *arg) {
  SpRecorder *r = arg;
  pthread_mutex_lock(&r->lock);
  for (;;) {
    while (!r->busy && !r->quit) pthread_cond_wait(&r->cond, &r->lock);
    if (!r->busy) break;
    uint8_t *p = r->wbuf;
    size_t n = r->wlen;
    pthread_mutex_unlock(&r->lock);
    checksum(p, n);
    int bad = fwrite(p, 1, n, r->f) != n ? (errno ? errno : EIO) : 0;
    pthread_mutex_lock(&r->lock);
    if (bad && !r->write_errno) r->write_errno = bad;
    r->busy = 0;
    pthread_cond_broadcast(&r->cond);
  }
  pthread_mutex_unlock(&r->lock);
  return NULL;
}

/* Waits until the writer holds no chunk. */
static void writer_idle(SpRecorder *r) {
  if (!r->threaded) return;
  pthread_mutex_lock(&r->lock);
  while (r->busy) pthread_cond_wait(&r->cond, &r->lock);
  pthread_mutex_unlock(&r->lock);
}

static void begin_chunk(SpRecorder *r) {
  r->len = SP_CHUNK_HEAD_LEN;
  r->frames_in_chunk = 0;
}

/* Seals the chunk being filled (type `type`) and hands it to the writer;
 * the next chunk begins in the other buffer. */
static void seal(SpRecorder *r, int type) {
  uint8_t *b = r->bufs[r->cur];
  size_t payload = r->len - SP_CHUNK_HEAD_LEN;
  memcpy(b, SP_CHUNK_MARK, 4);
  b[4] = (uint8_t)type;
  b[5] = b[6] = b[7] = 0;
  sp_trace_put_le(b + 8, payload, 4);
  sp_trace_put_le(b + 12, r->seq++, 4);
  r->stats.bytes += r->len;
  if (r->threaded) {
    pthread_mutex_lock(&r->lock);
    if (r->busy) {
      double t0 = now_ms();
      while (r->busy) pthread_cond_wait(&r->cond, &r->lock);
      r->stats.ms_wait += now_ms() - t0;
    }
    r->wbuf = b;
    r->wlen = r->len;
    r->busy = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    r->cur ^= 1;
  } else {
    checksum(b, r->len);
    if (fwrite(b, 1, r->len, r->f) != r->len && !r->write_errno)
      r->write_errno = errno ? errno : EIO;
  }
  begin_chunk(r);
}

static SpStatus write_failed(SpRecorder *r, SpError *err) {
  int e = 0;
  if (r->threaded) pthread_mutex_lock(&r->lock);
  e = r->write_errno;
  if (r->threaded) pthread_mutex_unlock(&r->lock);
  if (!e) return SP_OK;
  return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                       "record: writing the trace failed: %s", strerror(e));
}

/* ---- header and snapshots --------------------------------------------- */

/* The grid's blocked cells as runs (open, blocked, open, ...) in reading
 * order; none without a grid or past SP_TRACE_WALLS_MAX cells. */
static int put_walls(SpRecorder *r) {
  const SpGrid *g = r->w->grid;
  size_t w = g ? (size_t)sp_grid_width(g) : 0,
         h = g ? (size_t)sp_grid_height(g) : 0;
  if (w * h == 0 || w * h > SP_TRACE_WALLS_MAX) {
    if (!reserve(r, 1)) return 0;
    put_var(r, 0);
    return 1;
  }
  size_t runs = 0;
  int state = 0;
  for (size_t i = 0; i < w * h; i++) {
    int b = sp_grid_is_blocked(g, (int)(i % w), (int)(i / w));
    if (b != state) runs++, state = b;
  }
  if (!reserve(r, 5 * (runs + 2))) return 0;
  put_var(r, runs + 1);
  state = 0;
  size_t len = 0;
  for (size_t i = 0; i < w * h; i++) {
    int b = sp_grid_is_blocked(g, (int)(i % w), (int)(i / w));
    if (b != state) {
      put_var(r, len);
      len = 0;
      state = b;
    }
    len++;
  }
  put_var(r, len);
  return 1;
}

static int put_header(SpRecorder *r, SpCrowd *const *crowds,
                      const SpRecordNames *names) {
  SpWorld *w = r->w;
  if (!reserve(r, 64)) return 0;
  put_var(r, w->grid ? (uint64_t)sp_grid_width(w->grid) : 0);
  put_var(r, w->grid ? (uint64_t)sp_grid_height(w->grid) : 0);
  put_var(r, (uint64_t)r->positions);
  put_double(r, r->clock);
  size_t np = sp_world_place_count(w);
  put_var(r, np);
  for (size_t p = 0; p < np; p++) {
    SpPlaceInfo pi;
    sp_world_place(w, (uint32_t)p, &pi);
    if (!put_str(r, names && names->places ? names->places[p] : NULL,
                 "place#%lu", p) ||
        !reserve(r, 20))
      return 0;
    put_var(r, (uint64_t)pi.x);
    put_var(r, (uint64_t)pi.y);
  }
  put_var(r, SP_TRACE_KINDS);
  for (int k = 0; k < SP_EV_COUNT; k++)
    if (!put_str(r, sp_event_kind_name((SpEventKind)k), "", 0)) return 0;
  if (!put_str(r, SP_TRACE_HOOK_FAILED, "", 0)) return 0;
  if (!reserve(r, 10)) return 0;
  put_var(r, SP_REASON_COUNT);
  for (int k = 0; k < SP_REASON_COUNT; k++)
    if (!put_str(r, sp_reason_name((SpReason)k), "", 0)) return 0;
  if (!reserve(r, 10)) return 0;
  put_var(r, (uint64_t)r->nfacts);
  for (int f = 0; f < r->nfacts; f++) {
    int nv = sp_world_fact_value_count(w, f);
    if (!put_str(r, sp_world_fact_name(w, f), "", 0) || !reserve(r, 10))
      return 0;
    put_var(r, (uint64_t)nv);
    for (int v = 0; v < nv; v++)
      if (!put_str(r, sp_world_fact_value_name(w, f, v), "", 0)) return 0;
    if (!reserve(r, 10)) return 0;
    put_var(r, (uint64_t)r->facts[f]);
  }
  if (!reserve(r, 10)) return 0;
  put_var(r, r->count);
  for (size_t k = 0; k < r->count; k++) {
    const SpDomain *d = sp_crowd_domain(crowds[k]);
    const char *cls = names && names->classes ? names->classes[k] : NULL;
    if (!put_str(r, cls ? cls : sp_domain_name(d), "", 0) || !reserve(r, 20))
      return 0;
    put_u8(r, (unsigned)r->crowds[k].recorded);
    put_var(r, crowds[k]->capacity + 1); /* slots: agent indices are below */
    int na = sp_domain_action_count(d);
    put_var(r, (uint64_t)na);
    for (int a = 0; a < na; a++)
      if (!put_str(r, sp_action_name(d, a), "", 0)) return 0;
    int ng = sp_crowd_goal_count(crowds[k]);
    if (!reserve(r, 10)) return 0;
    put_var(r, (uint64_t)ng);
    const char *const *gn = names && names->goals ? names->goals[k] : NULL;
    for (int g = 0; g < ng; g++)
      if (!put_str(r, gn ? gn[g] : NULL, "goal %lu", (size_t)g + 1)) return 0;
    int nv = sp_domain_variable_count(d);
    if (!reserve(r, 10)) return 0;
    put_var(r, (uint64_t)nv);
    for (int v = 0; v < nv; v++) {
      int nval = sp_variable_value_count(d, v);
      if (!put_str(r, sp_variable_name(d, v), "", 0) || !reserve(r, 10))
        return 0;
      put_var(r, (uint64_t)nval);
      for (int x = 0; x < nval; x++)
        if (!put_str(r, sp_value_name(d, v, x), "", 0)) return 0;
    }
  }
  return put_walls(r);
}

/* A snapshot chunk of crowd k: every agent's cell; the crowd's last keys
 * become these. */
static int put_snapshot(SpRecorder *r, size_t k, SpCrowd *c) {
  RecCrowd *rc = &r->crowds[k];
  const uint32_t *keys = c->index.cell;
  if (!reserve(r, 32 + c->n * 6)) return 0;
  put_var(r, r->frame);
  put_var(r, k);
  put_var(r, c->n);
  int64_t px = 0, py = 0;
  for (size_t i = 0; i < c->n; i++) {
    uint32_t key = keys[i];
    int64_t x = key == UINT32_MAX ? 0xFFFF : (int64_t)(key & 0xFFFFu);
    int64_t y = key == UINT32_MAX ? 0xFFFF : (int64_t)(key >> 16);
    put_svar(r, x - px);
    put_svar(r, y - py);
    px = x;
    py = y;
    rc->last[i] = key;
  }
  for (size_t i = c->n; i < rc->slots; i++) rc->last[i] = UINT32_MAX;
  seal(r, SP_CHUNK_SNAPSHOT);
  return 1;
}

static int snapshots(SpRecorder *r, SpCrowd *const *crowds) {
  for (size_t k = 0; k < r->count; k++)
    if (r->crowds[k].recorded && crowds[k] != NULL &&
        !put_snapshot(r, k, crowds[k]))
      return 0;
  r->chunks_since_snapshot = 0;
  return 1;
}

/* ---- start and stop --------------------------------------------------- */

static void release(SpRecorder *r) {
  if (r->threaded) {
    pthread_mutex_lock(&r->lock);
    r->quit = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    r->threaded = 0;
  }
  pthread_mutex_destroy(&r->lock);
  pthread_cond_destroy(&r->cond);
  for (size_t k = 0; r->crowds != NULL && k < r->count; k++) {
    RecCrowd *rc = &r->crowds[k];
    if (rc->last != NULL)
      sp__mem_free(r->alloc, rc->last, rc->slots * sizeof(uint32_t));
    for (int s = 0; s < SP_CROWD_MAX_SENSORS; s++)
      if (rc->sensed[s] != NULL)
        sp__mem_free(r->alloc, rc->sensed[s], rc->slots * sizeof(SpValue));
  }
  if (r->crowds != NULL)
    sp__mem_free(r->alloc, r->crowds, r->count * sizeof *r->crowds);
  if (r->facts != NULL)
    sp__mem_free(r->alloc, r->facts, (size_t)r->nfacts * sizeof(int));
  for (int b = 0; b < 2; b++)
    if (r->bufs[b] != NULL) sp__mem_free(r->alloc, r->bufs[b], r->caps[b]);
  if (r->notes != NULL)
    sp__mem_free(r->alloc, r->notes, r->notes_cap * sizeof *r->notes);
  if (r->notes_text != NULL) sp__mem_free(r->alloc, r->notes_text, r->text_cap);
  if (r->lua != NULL)
    sp__mem_free(r->alloc, r->lua, r->lua_cap * sizeof *r->lua);
  if (r->f != NULL) fclose(r->f);
  sp__mem_free(r->alloc, r, sizeof *r);
}

SpStatus sp_world_record_start(SpWorld *w, SpCrowd *const *crowds, size_t count,
                               const char *path, const SpRecordNames *names,
                               const SpRecordOptions *opt, SpRecorder **out,
                               SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  for (size_t k = 0; k < count; k++)
    if (crowds[k] == NULL || crowds[k]->world != w)
      return sp__error_set(err, SP_ERR_STATE, SP_E_NONE, SP_FIELD_NONE,
                           "record: crowd %lu lives in another world",
                           (unsigned long)k + 1);
  if (opt != NULL && opt->positions < 0)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "record: positions must be 0 or more, got %d",
                         opt->positions);
  SpRecorder *r = sp__mem_alloc(w->alloc, sizeof *r);
  if (r == NULL) return sp__error_memory(err);
  memset(r, 0, sizeof *r);
  r->w = w;
  r->alloc = w->alloc;
  r->count = count;
  r->positions = opt != NULL ? opt->positions : 1;
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->cond, NULL);
  r->crowds = count ? sp__mem_alloc(r->alloc, count * sizeof *r->crowds) : NULL;
  r->nfacts = sp_world_fact_count(w);
  r->facts = r->nfacts
                 ? sp__mem_alloc(r->alloc, (size_t)r->nfacts * sizeof(int))
                 : NULL;
  if ((count && r->crowds == NULL) || (r->nfacts && r->facts == NULL)) {
    release(r);
    return sp__error_memory(err);
  }
  memset(r->crowds, 0, count * sizeof *r->crowds);
  for (int f = 0; f < r->nfacts; f++) r->facts[f] = sp_world_get_fact(w, f);
  for (size_t k = 0; k < count; k++) {
    RecCrowd *rc = &r->crowds[k];
    rc->recorded = opt == NULL || opt->crowds == NULL || opt->crowds[k];
    if (!rc->recorded) continue;
    rc->slots = crowds[k]->capacity + 1;
    rc->last = sp__mem_alloc(r->alloc, rc->slots * sizeof(uint32_t));
    if (rc->last == NULL || sp__index_keys(crowds[k], err) != SP_OK) {
      release(r);
      return sp__error_memory(err);
    }
  }
  for (size_t k = 0; k < count; k++) {
    if (!r->crowds[k].recorded) continue;
    SpCrowdStats s;
    sp_crowd_counters(crowds[k], &s);
    r->clock = s.clock;
    break;
  }
  r->f = fopen(path, "wb");
  if (r->f == NULL) {
    int e = errno;
    release(r);
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "record: cannot open '%s': %s", path, strerror(e));
  }
  uint8_t head[SP_TRACE_HEAD_LEN] = {0};
  memcpy(head, SP_TRACE_HEAD, sizeof SP_TRACE_HEAD);
  sp_trace_put_le(head + 12, SP_TRACE_VERSION, 4);
  if (fwrite(head, 1, sizeof head, r->f) != sizeof head) r->write_errno = errno;
  r->stats.bytes = sizeof head;
  if (!reserve(r, SP_CHUNK_HEAD_LEN)) {
    release(r);
    return sp__error_memory(err);
  }
  begin_chunk(r);
  if (!put_header(r, crowds, names)) {
    release(r);
    return sp__error_memory(err);
  }
  seal(r, SP_CHUNK_HEADER);
  if (!snapshots(r, crowds)) {
    release(r);
    return sp__error_memory(err);
  }
  SpStatus st = write_failed(r, err);
  if (st != SP_OK) {
    release(r);
    return st;
  }
  /* the header went out on this thread; the frames go through the writer */
  r->threaded = pthread_create(&r->thread, NULL, writer_main, r) == 0;
  *out = r;
  return SP_OK;
}

SpStatus sp_world_record_flush(SpRecorder *r, SpError *err) {
  sp__error_clear(err);
  if (r->len > SP_CHUNK_HEAD_LEN) seal(r, SP_CHUNK_FRAMES);
  writer_idle(r);
  return write_failed(r, err);
}

SpStatus sp_world_record_stop(SpRecorder *r, SpError *err) {
  sp__error_clear(err);
  if (r == NULL) return SP_OK;
  SpStatus st = sp_world_record_flush(r, err);
  if (st == SP_OK && fflush(r->f) != 0)
    st = sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                       "record: writing the trace failed: %s", strerror(errno));
  release(r);
  return st;
}

void sp_world_record_stats(const SpRecorder *r, SpRecordStats *out) {
  *out = r->stats;
}

/* ---- frames ----------------------------------------------------------- */

/* A varint at p; the byte after it. (A local cursor: stores through a
 * uint8_t pointer would make the compiler reload the recorder's fields.) */
static inline uint8_t *var_at(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* Writes `found` at count_at, where 5 bytes were left for it, as a varint
 * of its own length: what follows moves down. */
static void put_count_at(SpRecorder *r, size_t count_at, uint64_t found) {
  uint8_t *p = r->bufs[r->cur] + count_at, tmp[5];
  size_t n = 0;
  uint64_t v = found;
  do {
    tmp[n++] = (uint8_t)((v & 0x7F) | (v >= 0x80 ? 0x80 : 0));
    v >>= 7;
  } while (v != 0);
  memmove(p + n, p + 5, r->len - count_at - 5);
  memcpy(p, tmp, n);
  r->len -= 5 - n;
}

/* The cells of crowd c's agents that changed since last written, in agent
 * order (only chunks an update marked are read). */
static int put_cells(SpRecorder *r, RecCrowd *rc, SpCrowd *c) {
  const uint32_t *keys = c->index.cell;
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  size_t count_at = r->len, found = 0;
  if (!reserve(r, 5)) return 0;
  r->len += 5; /* the count goes here, as a 5-byte varint */
  int64_t prev = -1;
  for (size_t t = 0; t < chunks; t++) {
    if (!c->chunks[t].traced) continue;
    /* room for the whole chunk's changes, then a local cursor */
    if (!reserve(r, (size_t)SP_CROWD_CHUNK * 12)) return 0;
    c->chunks[t].traced = 0;
    size_t end =
        (t + 1) * SP_CROWD_CHUNK < c->n ? (t + 1) * SP_CROWD_CHUNK : c->n;
    uint32_t *last = rc->last;
    uint8_t *p = at(r), *p0 = p;
    for (size_t i = t * SP_CROWD_CHUNK; i < end; i++) {
      uint32_t key = keys[i], was = last[i];
      if (key == was) continue;
      p = var_at(p, (uint64_t)((int64_t)i - prev - 1));
      prev = (int64_t)i;
      last[i] = key;
      found++;
      if (key == UINT32_MAX) {
        *p++ = SP_CELL_GONE;
        continue;
      }
      int dx = (int)(key & 0xFFFFu) - (int)(was & 0xFFFFu);
      int dy = (int)(key >> 16) - (int)(was >> 16);
      if (was != UINT32_MAX && dx >= -SP_CELL_NEAR_MAX &&
          dx <= SP_CELL_NEAR_MAX && dy >= -SP_CELL_NEAR_MAX &&
          dy <= SP_CELL_NEAR_MAX) {
        *p++ =
            (uint8_t)((dx + SP_CELL_NEAR_MAX) * 15 + (dy + SP_CELL_NEAR_MAX));
      } else {
        *p++ = SP_CELL_FAR;
        p = var_at(p, key & 0xFFFFu);
        p = var_at(p, key >> 16);
      }
    }
    r->len += (size_t)(p - p0);
  }
  put_count_at(r, count_at, found);
  r->stats.cells += found;
  return 1;
}

static int put_events(SpRecorder *r, const SpCrowd *c) {
  size_t n = sp_crowd_event_count(c);
  const SpAgentEvent *ev = sp_crowd_events(c);
  if (!reserve(r, 10 + n * 20)) return 0;
  uint8_t *p = var_at(at(r), n), *p0 = at(r);
  int64_t prev = 0;
  for (size_t e = 0; e < n; e++) {
    p = var_at(p, sp_trace_zigzag((int64_t)ev[e].agent - prev));
    prev = ev[e].agent;
    p[0] = (uint8_t)(ev[e].kind | (ev[e].flags & 1) << 7);
    p[1] = ev[e].reason;
    p[2] = ev[e].goal;
    p = var_at(p + 3, (uint64_t)(ev[e].action + 1));
    p = var_at(p, sp_trace_zigzag(ev[e].detail));
  }
  r->len += (size_t)(p - p0);
  r->stats.events += n;
  return 1;
}

/* Appends text (cut to SP_RECORD_NOTE_MAX) to notes_text; its start and
 * length in *at, *len. 0: out of memory. */
static int keep_text(SpRecorder *r, const char *text, size_t *at, size_t *len) {
  size_t n = strlen(text);
  if (n > SP_RECORD_NOTE_MAX) n = SP_RECORD_NOTE_MAX;
  if (r->text_len + n > r->text_cap) {
    size_t cap = r->text_cap ? r->text_cap : 1024;
    while (cap < r->text_len + n) cap *= 2;
    char *p = sp__mem_realloc(r->alloc, r->notes_text, r->text_cap, cap);
    if (p == NULL) return 0;
    r->notes_text = p;
    r->text_cap = cap;
  }
  memcpy(r->notes_text + r->text_len, text, n);
  *at = r->text_len;
  *len = n;
  r->text_len += n;
  return 1;
}

SpStatus sp_world_record_lua_event(SpRecorder *r, size_t crowd, size_t agent,
                                   const char *kind, int action,
                                   const char *text, SpError *err) {
  sp__error_clear(err);
  if (crowd >= r->count)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "record: event for crowd %lu of %lu",
                         (unsigned long)crowd + 1, (unsigned long)r->count);
  int k = SP_EV_COUNT;
  if (strcmp(kind, SP_TRACE_HOOK_FAILED) != 0)
    for (k = 0; k < SP_EV_COUNT; k++)
      if (strcmp(kind, sp_event_kind_name((SpEventKind)k)) == 0) break;
  if (k == SP_EV_COUNT && strcmp(kind, SP_TRACE_HOOK_FAILED) != 0)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "record: '%s' is no event kind", kind);
  if (r->crowds[crowd].recorded && agent >= r->crowds[crowd].slots)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "record: agent %lu of crowd %lu is past its slots",
                         (unsigned long)agent + 1, (unsigned long)crowd + 1);
  if (action < -1 || action > 0xFFFE)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "record: action %d out of range", action + 1);
  if (r->nlua == r->lua_cap) {
    size_t cap = r->lua_cap ? r->lua_cap * 2 : 16;
    LuaEvent *p = sp__mem_realloc(r->alloc, r->lua, r->lua_cap * sizeof *p,
                                  cap * sizeof *p);
    if (p == NULL) return sp__error_memory(err);
    r->lua = p;
    r->lua_cap = cap;
  }
  LuaEvent *e = &r->lua[r->nlua];
  if (!keep_text(r, text != NULL ? text : "", &e->at, &e->len))
    return sp__error_memory(err);
  e->crowd = crowd;
  e->agent = agent;
  e->kind = k;
  e->action = action;
  r->nlua++;
  return SP_OK;
}

/* The values that crowd c's sensors read since last written, per sensor
 * read since (its next reading moved), in agent order; a sensor seen for
 * the first time writes every agent's value. */
static int put_sensed(SpRecorder *r, RecCrowd *rc, SpCrowd *c) {
  size_t count_at = r->len, found = 0;
  if (!reserve(r, 5)) return 0;
  r->len += 5; /* the count goes here, as a 5-byte varint */
  for (int k = 0; k < c->sensor_count; k++) {
    if (rc->sensed[k] == NULL) {
      rc->sensed[k] = sp__mem_alloc(r->alloc, rc->slots * sizeof(SpValue));
      if (rc->sensed[k] == NULL) return 0;
      memset(rc->sensed[k], SP_TRACE_UNSENSED, rc->slots * sizeof(SpValue));
    } else if (rc->due[k] == c->sensor_due[k]) {
      continue; /* not read since */
    }
    rc->due[k] = c->sensor_due[k];
    SpValue *seen = rc->sensed[k];
    int var = c->sensors[k].var;
    int64_t prev = 0;
    size_t n = c->n < rc->slots ? c->n : rc->slots;
    for (size_t i = 0; i < n; i++) {
      if (c->agents[i].phase == SP_PHASE_FREE) continue;
      SpValue v = sp_population_state(c->pop, i)[var];
      if (v == seen[i]) continue;
      seen[i] = v;
      if (!reserve(r, 16)) return 0;
      put_var(r, sp_trace_zigzag((int64_t)i - prev));
      prev = (int64_t)i;
      put_u8(r, (unsigned)var);
      put_u8(r, v);
      found++;
    }
  }
  put_count_at(r, count_at, found);
  r->stats.sensed += found;
  return 1;
}

/* The binding's events of crowd k for this frame, before its C events. */
static int put_lua_events(SpRecorder *r, size_t k) {
  size_t n = 0;
  for (size_t j = 0; j < r->nlua; j++) n += r->lua[j].crowd == k;
  if (!reserve(r, 10)) return 0;
  put_var(r, n);
  r->stats.events += n;
  for (size_t j = 0; j < r->nlua; j++) {
    const LuaEvent *e = &r->lua[j];
    if (e->crowd != k) continue;
    if (!reserve(r, 40 + e->len)) return 0;
    put_var(r, e->agent);
    put_u8(r, (unsigned)e->kind);
    put_var(r, (uint64_t)(e->action + 1));
    put_var(r, e->len);
    memcpy(at(r), r->notes_text + e->at, e->len);
    r->len += e->len;
  }
  return 1;
}

SpStatus sp_world_record_note(SpRecorder *r, size_t crowd, size_t event,
                              const char *text, SpError *err) {
  sp__error_clear(err);
  if (crowd >= r->count)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "record: note for crowd %lu of %lu",
                         (unsigned long)crowd + 1, (unsigned long)r->count);
  if (r->nnotes == r->notes_cap) {
    size_t cap = r->notes_cap ? r->notes_cap * 2 : 16;
    Note *p = sp__mem_realloc(r->alloc, r->notes, r->notes_cap * sizeof *p,
                              cap * sizeof *p);
    if (p == NULL) return sp__error_memory(err);
    r->notes = p;
    r->notes_cap = cap;
  }
  Note *n = &r->notes[r->nnotes];
  if (!keep_text(r, text, &n->at, &n->len)) return sp__error_memory(err);
  n->crowd = crowd;
  n->event = event;
  r->nnotes++;
  return SP_OK;
}

/* The notes of crowd k for this frame (events past `events` are dropped). */
static int put_notes(SpRecorder *r, size_t k, size_t events) {
  size_t n = 0;
  for (size_t j = 0; j < r->nnotes; j++)
    n += r->notes[j].crowd == k && r->notes[j].event < events;
  if (!reserve(r, 10)) return 0;
  put_var(r, n);
  for (size_t j = 0; j < r->nnotes; j++) {
    const Note *o = &r->notes[j];
    if (o->crowd != k || o->event >= events) continue;
    if (!reserve(r, 20 + o->len)) return 0;
    put_var(r, o->event);
    put_var(r, o->len);
    memcpy(at(r), r->notes_text + o->at, o->len);
    r->len += o->len;
  }
  return 1;
}

SpStatus sp_world_record_frame(SpRecorder *r, SpCrowd *const *crowds,
                               size_t count, SpError *err) {
  sp__error_clear(err);
  if (count != r->count)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "record: %lu crowds, the recording has %lu",
                         (unsigned long)count, (unsigned long)r->count);
  SpStatus st = write_failed(r, err);
  if (st != SP_OK) return st;
  double t0 = now_ms();
  size_t start = r->len;
  int cells = r->positions > 0 && r->frame % (uint64_t)r->positions == 0;
  size_t blocks = 0;
  for (size_t k = 0; k < count; k++) {
    if (!r->crowds[k].recorded || crowds[k] == NULL) continue;
    SpCrowdStats s;
    sp_crowd_counters(crowds[k], &s);
    if (blocks++ == 0) r->clock = s.clock;
  }
  if (!reserve(r, 64 + (size_t)r->nfacts * 10)) goto memory;
  put_var(r, r->frame);
  put_double(r, r->clock);
  size_t nf = 0;
  for (int f = 0; f < r->nfacts; f++)
    nf += sp_world_get_fact(r->w, f) != r->facts[f];
  put_var(r, nf);
  for (int f = 0; f < r->nfacts; f++) {
    int v = sp_world_get_fact(r->w, f);
    if (v == r->facts[f]) continue;
    put_var(r, (uint64_t)f);
    put_var(r, (uint64_t)v);
  }
  put_var(r, blocks);
  for (size_t k = 0; k < count; k++) {
    RecCrowd *rc = &r->crowds[k];
    SpCrowd *c = crowds[k];
    if (!rc->recorded || c == NULL) continue;
    if (!reserve(r, 10)) goto memory;
    put_var(r, k);
    size_t e0 = r->len;
    if (!put_lua_events(r, k) || !put_events(r, c)) goto memory;
    size_t c0 = r->len;
    if (cells) {
      if (!put_cells(r, rc, c)) goto memory;
    } else {
      if (!reserve(r, 1)) goto memory;
      put_u8(r, 0);
    }
    r->stats.event_bytes += c0 - e0;
    r->stats.cell_bytes += r->len - c0;
    if (!put_notes(r, k, sp_crowd_event_count(c)) || !put_sensed(r, rc, c))
      goto memory;
  }
  r->nnotes = r->nlua = r->text_len = 0;
  for (int f = 0; f < r->nfacts; f++) {
    int v = sp_world_get_fact(r->w, f);
    r->stats.facts += v != r->facts[f];
    r->facts[f] = v;
  }
  r->frame++;
  r->stats.frames++;
  r->frames_in_chunk++;
  if (r->len >= SP_RECORD_CHUNK + SP_CHUNK_HEAD_LEN) {
    seal(r, SP_CHUNK_FRAMES);
    if (++r->chunks_since_snapshot >= SP_RECORD_SNAPSHOT_EVERY &&
        !snapshots(r, crowds))
      goto memory;
  }
  r->stats.ms_encode += now_ms() - t0;
  return SP_OK;
memory:
  /* the frame is dropped whole: the chunk ends where it began */
  r->len = start;
  r->nnotes = r->nlua = r->text_len = 0;
  r->stats.ms_encode += now_ms() - t0;
  return sp__error_memory(err);
}
