/* trace_read.c: decodes a trace file (untrusted) into arrays of frames, events, cells and fact changes; damaged chunks are reported and skipped. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_error.h"
#include "sp_record.h"

/* An agent index a trace may name: more is refused as damage (the reader
 * keeps a current cell per agent). */
#define TRACE_AGENTS_MAX ((uint64_t)1 << 26)
#define TRACE_NAMES_MAX  ((uint64_t)1 << 20)

typedef struct Cur {
  const uint8_t *p, *end;
  int ok;
} Cur;

static uint64_t get_var(Cur *c) {
  uint64_t v = 0;
  for (int s = 0; s < 64; s += 7) {
    if (c->p >= c->end) break;
    uint8_t b = *c->p++;
    v |= (uint64_t)(b & 0x7F) << s;
    if (!(b & 0x80)) return v;
  }
  c->ok = 0;
  return 0;
}
static int64_t get_svar(Cur *c) { return sp_trace_unzigzag(get_var(c)); }
static unsigned get_u8(Cur *c) {
  if (c->p >= c->end) {
    c->ok = 0;
    return 0;
  }
  return *c->p++;
}
static double get_double(Cur *c) {
  double d = 0;
  if (c->end - c->p < 8) {
    c->ok = 0;
    return 0;
  }
  uint64_t u = sp_trace_get_le(c->p, 8);
  memcpy(&d, &u, sizeof d);
  c->p += 8;
  return d;
}
/* A count bounded by `most`, and by the bytes left (each item takes one
 * byte at least). */
static uint64_t get_count(Cur *c, uint64_t most) {
  uint64_t n = get_var(c);
  if (n > most || n > (uint64_t)(c->end - c->p)) {
    c->ok = 0;
    return 0;
  }
  return n;
}

/* ---- problems and arrays ------------------------------------------------ */

static void problem(SpTrace *t, const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
  line[n++] = '\n';
  if (t->problems_len + (size_t)n + 1 > t->problems_cap) {
    size_t cap = t->problems_cap * 2 + (size_t)n + 256;
    char *p = sp__mem_realloc(t->alloc, t->problems, t->problems_cap, cap);
    if (p == NULL) return; /* the line is lost, the trace still reads */
    t->problems = p;
    t->problems_cap = cap;
  }
  memcpy(t->problems + t->problems_len, line, (size_t)n);
  t->problems_len += (size_t)n;
  t->problems[t->problems_len] = '\0';
}

/* Makes room for one more item in *arr (n used of *cap, size each). */
static int grow(SpTrace *t, void **arr, size_t n, size_t *cap, size_t size) {
  if (n < *cap) return 1;
  size_t ncap = *cap ? *cap * 2 : 64;
  void *p = sp__mem_realloc(t->alloc, *arr, *cap * size, ncap * size);
  if (p == NULL) return 0;
  *arr = p;
  *cap = ncap;
  return 1;
}
#define GROW(t, arr, n, cap) grow(t, (void **)&(arr), n, &(cap), sizeof *(arr))

static char *get_str(SpTrace *t, Cur *c, int *mem) {
  uint64_t l = get_count(c, 255);
  if (c->ok && memchr(c->p, 0, (size_t)l) != NULL) c->ok = 0;
  if (!c->ok) return NULL;
  char *s = sp__mem_alloc(t->alloc, (size_t)l + 1);
  if (s == NULL) {
    *mem = 1;
    c->ok = 0;
    return NULL;
  }
  memcpy(s, c->p, (size_t)l);
  s[l] = '\0';
  c->p += l;
  return s;
}

static void free_str(SpTrace *t, char *s) {
  if (s != NULL) sp__mem_free(t->alloc, s, strlen(s) + 1);
}
static void free_strs(SpTrace *t, char **v, uint32_t n) {
  if (v == NULL) return;
  for (uint32_t k = 0; k < n; k++) free_str(t, v[k]);
  sp__mem_free(t->alloc, v, n * sizeof *v);
}
/* An array of n strings (zeroed first, so a partial one frees). */
static char **get_strs(SpTrace *t, Cur *c, uint32_t *n, int *mem) {
  uint64_t k = get_count(c, TRACE_NAMES_MAX);
  if (!c->ok) return NULL;
  char **v = sp__mem_alloc(t->alloc, (size_t)(k ? k : 1) * sizeof *v);
  if (v == NULL) {
    *mem = 1;
    c->ok = 0;
    return NULL;
  }
  memset(v, 0, (size_t)(k ? k : 1) * sizeof *v);
  *n = (uint32_t)k;
  for (uint64_t i = 0; i < k && c->ok; i++) v[i] = get_str(t, c, mem);
  return v;
}

/* ---- header ------------------------------------------------------------- */

static void free_header(SpTrace *t) {
  for (uint32_t p = 0; t->places != NULL && p < t->nplaces; p++)
    free_str(t, t->places[p].name);
  if (t->places)
    sp__mem_free(t->alloc, t->places, t->nplaces * sizeof *t->places + 1);
  free_strs(t, t->kinds, t->nkinds ? t->nkinds : 1);
  free_strs(t, t->reasons, t->nreasons ? t->nreasons : 1);
  for (uint32_t f = 0; t->facts != NULL && f < t->nfacts; f++) {
    free_str(t, t->facts[f].name);
    free_strs(t, t->facts[f].values,
              t->facts[f].nvalues ? t->facts[f].nvalues : 1);
  }
  if (t->facts)
    sp__mem_free(t->alloc, t->facts, t->nfacts * sizeof *t->facts + 1);
  for (uint32_t k = 0; t->crowds != NULL && k < t->ncrowds; k++) {
    SpTraceCrowd *cr = &t->crowds[k];
    free_str(t, cr->name);
    free_strs(t, cr->actions, cr->nactions ? cr->nactions : 1);
    free_strs(t, cr->goals, cr->ngoals ? cr->ngoals : 1);
    for (uint32_t v = 0; cr->vars != NULL && v < cr->nvars; v++) {
      free_str(t, cr->vars[v].name);
      free_strs(t, cr->vars[v].values,
                cr->vars[v].nvalues ? cr->vars[v].nvalues : 1);
    }
    if (cr->vars)
      sp__mem_free(t->alloc, cr->vars, cr->nvars * sizeof *cr->vars + 1);
  }
  if (t->crowds)
    sp__mem_free(t->alloc, t->crowds, t->ncrowds * sizeof *t->crowds + 1);
  if (t->blocked)
    sp__mem_free(t->alloc, t->blocked,
                 (size_t)t->grid_w * (size_t)t->grid_h + 1);
  t->blocked = NULL;
  t->places = NULL;
  t->kinds = t->reasons = NULL;
  t->facts = NULL;
  t->crowds = NULL;
  t->nplaces = t->nkinds = t->nreasons = t->nfacts = t->ncrowds = 0;
}

/* Zeroed array of n items of size (n may be 0). */
static void *zeroed(SpTrace *t, uint64_t n, size_t size, int *mem) {
  void *p = sp__mem_alloc(t->alloc, (size_t)n * size + 1);
  if (p == NULL)
    *mem = 1;
  else
    memset(p, 0, (size_t)n * size + 1);
  return p;
}

static int read_header(SpTrace *t, Cur *c, int *mem) {
  uint64_t gw = get_var(c), gh = get_var(c);
  if (gw > 0xFFFF || gh > 0xFFFF) c->ok = 0;
  t->grid_w = (int)gw;
  t->grid_h = (int)gh;
  t->positions = (int)get_var(c);
  t->start_clock = get_double(c);
  uint64_t np = get_count(c, TRACE_NAMES_MAX);
  if (!c->ok) return 0;
  /* the array sizes are kept as counts of what is filled: a header cut
   * short frees exactly what it allocated */
  if ((t->places = zeroed(t, np, sizeof *t->places, mem)) == NULL) return 0;
  t->nplaces = (uint32_t)np;
  for (uint64_t p = 0; p < np && c->ok; p++) {
    t->places[p].name = get_str(t, c, mem);
    t->places[p].x = (int)(get_var(c) & 0xFFFF);
    t->places[p].y = (int)(get_var(c) & 0xFFFF);
  }
  if (c->ok) t->kinds = get_strs(t, c, &t->nkinds, mem);
  if (c->ok) t->reasons = get_strs(t, c, &t->nreasons, mem);
  uint64_t nf = c->ok ? get_count(c, TRACE_NAMES_MAX) : 0;
  if (!c->ok) return 0;
  if ((t->facts = zeroed(t, nf, sizeof *t->facts, mem)) == NULL) return 0;
  t->nfacts = (uint32_t)nf;
  for (uint64_t f = 0; f < nf && c->ok; f++) {
    t->facts[f].name = get_str(t, c, mem);
    if (c->ok) t->facts[f].values = get_strs(t, c, &t->facts[f].nvalues, mem);
    t->facts[f].start = (uint32_t)get_var(c);
    if (t->facts[f].start >= t->facts[f].nvalues) c->ok = 0;
  }
  uint64_t nc = c->ok ? get_count(c, 0xFFFF) : 0;
  if (!c->ok) return 0;
  if ((t->crowds = zeroed(t, nc, sizeof *t->crowds, mem)) == NULL) return 0;
  t->ncrowds = (uint32_t)nc;
  uint64_t slots_sum = 0;
  for (uint64_t k = 0; k < nc && c->ok; k++) {
    SpTraceCrowd *cr = &t->crowds[k];
    cr->name = get_str(t, c, mem);
    cr->recorded = get_u8(c) != 0;
    uint64_t slots = get_var(c);
    slots_sum += slots;
    if (slots_sum > TRACE_AGENTS_MAX) c->ok = 0;
    cr->slots = (uint32_t)slots;
    if (c->ok) cr->actions = get_strs(t, c, &cr->nactions, mem);
    if (c->ok) cr->goals = get_strs(t, c, &cr->ngoals, mem);
    uint64_t nv = c->ok ? get_count(c, 255) : 0;
    if (!c->ok) return 0;
    if ((cr->vars = zeroed(t, nv, sizeof *cr->vars, mem)) == NULL) return 0;
    cr->nvars = (uint32_t)nv;
    for (uint64_t v = 0; v < nv && c->ok; v++) {
      cr->vars[v].name = get_str(t, c, mem);
      if (c->ok) cr->vars[v].values = get_strs(t, c, &cr->vars[v].nvalues, mem);
    }
  }
  uint64_t runs = c->ok ? get_count(c, SP_TRACE_WALLS_MAX) : 0;
  uint64_t cells = (uint64_t)t->grid_w * (uint64_t)t->grid_h;
  if (c->ok && runs > 0) {
    if (cells == 0 || cells > SP_TRACE_WALLS_MAX) return 0;
    if ((t->blocked = zeroed(t, cells, 1, mem)) == NULL) return 0;
    uint64_t at = 0;
    for (uint64_t k = 0; k < runs && c->ok; k++) {
      uint64_t len = get_var(c);
      if (len > cells - at) return 0;
      if (k % 2) memset(t->blocked + at, 1, (size_t)len);
      at += len;
    }
    if (at != cells) return 0;
  }
  return c->ok && c->p == c->end;
}

/* ---- frames ------------------------------------------------------------- */

/* Per crowd, each agent's cell as the reader follows the deltas. */
typedef struct Undo {
  uint32_t crowd, agent, was;
} Undo;

typedef struct Follow {
  uint32_t **cells;
  size_t *n;
  int approximate; /* a frame chunk was skipped since the last snapshot */
  /* a large chunk of a streamed read is decoded twice, a block (a crowd's
   * part of a frame) at a time: pass 1 checks it (keeping nothing, the
   * cells it changed logged in undo), pass 2 hands each block to the
   * scan as it is decoded; digested: the scan has the chunk */
  int pass, digested;
  Undo *undo;
  size_t nundo, cap_undo;
} Follow;

static int follow_room(SpTrace *t, Follow *fo, size_t k, uint64_t agent) {
  if (agent < fo->n[k]) return 1;
  size_t n = fo->n[k], want = n ? n : 1024;
  while (want <= agent) want *= 2;
  /* never past the crowd's slots (agent is below them) */
  if (want > t->crowds[k].slots && agent < t->crowds[k].slots)
    want = t->crowds[k].slots;
  uint32_t *p = sp__mem_realloc(t->alloc, fo->cells[k], n * sizeof(uint32_t),
                                want * sizeof(uint32_t));
  if (p == NULL) return 0;
  for (size_t i = n; i < want; i++) p[i] = SP_TRACE_NO_CELL;
  fo->cells[k] = p;
  fo->n[k] = want;
  return 1;
}

static int read_snapshot(SpTrace *t, Cur *c, Follow *fo, int *mem) {
  uint64_t frame = get_var(c), k = get_var(c);
  uint64_t n = get_count(c, TRACE_AGENTS_MAX);
  if (!c->ok || k >= t->ncrowds || n > t->crowds[k].slots) return 0;
  uint32_t *cells =
      sp__mem_alloc(t->alloc, (size_t)(n ? n : 1) * sizeof *cells);
  if (cells == NULL ||
      !GROW(t, t->snapshots, t->nsnapshots, t->cap_snapshots) ||
      !follow_room(t, fo, (size_t)k, n)) {
    if (cells)
      sp__mem_free(t->alloc, cells, (size_t)(n ? n : 1) * sizeof *cells);
    *mem = 1;
    return 0;
  }
  int64_t x = 0, y = 0;
  for (uint64_t i = 0; i < n && c->ok; i++) {
    x += get_svar(c);
    y += get_svar(c);
    if (x < 0 || x > 0xFFFF || y < 0 || y > 0xFFFF) c->ok = 0;
    cells[i] = x == 0xFFFF && y == 0xFFFF ? SP_TRACE_NO_CELL
                                          : (uint32_t)y << 16 | (uint32_t)x;
  }
  if (!c->ok || c->p != c->end) {
    sp__mem_free(t->alloc, cells, (size_t)(n ? n : 1) * sizeof *cells);
    return 0;
  }
  memcpy(fo->cells[k], cells, (size_t)n * sizeof *cells);
  for (size_t i = (size_t)n; i < fo->n[k]; i++)
    fo->cells[k][i] = SP_TRACE_NO_CELL;
  SpTraceSnapshot *s = &t->snapshots[t->nsnapshots++];
  s->frame = (uint32_t)frame;
  s->crowd = (uint16_t)k;
  s->count = (uint32_t)n;
  s->cells = cells;
  s->agents = NULL;
  s->nkept = 0;
  fo->approximate = 0;
  return 1;
}

/* A note on the last event: text c->p[0..l). */
static int add_note(SpTrace *t, Cur *c, uint64_t l, size_t event, int *mem) {
  if (!GROW(t, t->notes, t->nnotes, t->cap_notes)) {
    *mem = 1;
    return 0;
  }
  char *s = sp__mem_alloc(t->alloc, (size_t)l + 1);
  if (s == NULL) {
    *mem = 1;
    return 0;
  }
  memcpy(s, c->p, (size_t)l);
  s[l] = '\0';
  c->p += l;
  t->notes[t->nnotes].event = event;
  t->notes[t->nnotes++].text = s;
  return 1;
}

/* The binding's events of a block: events with flags SP_TRACE_LUA, their
 * texts as notes. */
static int read_lua_events(SpTrace *t, Cur *c, size_t k, uint32_t frame,
                           int *mem) {
  uint64_t n = get_count(c, UINT32_MAX);
  const SpTraceCrowd *cr = &t->crowds[k];
  for (uint64_t e = 0; e < n && c->ok; e++) {
    uint64_t agent = get_var(c);
    unsigned kind = get_u8(c);
    uint64_t action = get_var(c), l = get_count(c, SP_TRACE_STR_MAX);
    if (!c->ok || agent >= cr->slots || kind >= t->nkinds ||
        action > cr->nactions || memchr(c->p, 0, (size_t)l) != NULL)
      return 0;
    if (!GROW(t, t->events, t->nevents, t->cap_events)) {
      *mem = 1;
      return 0;
    }
    SpTraceEvent *ev = &t->events[t->nevents++];
    memset(ev, 0, sizeof *ev);
    ev->frame = frame;
    ev->agent = (uint32_t)agent;
    ev->crowd = (uint16_t)k;
    ev->kind = (uint8_t)kind;
    ev->flags = SP_TRACE_LUA;
    ev->goal = 0xFF;
    ev->action = (int16_t)((int64_t)action - 1);
    if (!add_note(t, c, l, t->nevents - 1, mem)) return 0;
  }
  return c->ok;
}

static int read_events(SpTrace *t, Cur *c, size_t k, uint32_t frame, int *mem) {
  uint64_t n = get_count(c, UINT32_MAX);
  const SpTraceCrowd *cr = &t->crowds[k];
  int64_t agent = 0;
  for (uint64_t e = 0; e < n && c->ok; e++) {
    agent += get_svar(c);
    unsigned kf = get_u8(c), reason = get_u8(c), goal = get_u8(c);
    uint64_t action = get_var(c);
    int64_t detail = get_svar(c);
    if (!c->ok || agent < 0 || (uint64_t)agent >= cr->slots ||
        (kf & 0x7F) >= t->nkinds || reason >= t->nreasons ||
        action > cr->nactions || detail < INT32_MIN || detail > INT32_MAX)
      return 0;
    if (!GROW(t, t->events, t->nevents, t->cap_events)) {
      *mem = 1;
      return 0;
    }
    SpTraceEvent *ev = &t->events[t->nevents++];
    ev->frame = frame;
    ev->agent = (uint32_t)agent;
    ev->crowd = (uint16_t)k;
    ev->kind = (uint8_t)(kf & 0x7F);
    ev->flags = (uint8_t)(kf >> 7);
    ev->reason = (uint8_t)reason;
    ev->goal = (uint8_t)goal;
    ev->action = (int16_t)((int64_t)action - 1);
    ev->detail = (int32_t)detail;
  }
  return c->ok;
}

static int read_cells(SpTrace *t, Cur *c, Follow *fo, size_t k, uint32_t frame,
                      int *mem) {
  uint64_t n = get_count(c, TRACE_AGENTS_MAX);
  int64_t agent = -1;
  for (uint64_t e = 0; e < n && c->ok; e++) {
    agent += (int64_t)get_var(c) + 1;
    unsigned code = get_u8(c);
    if (!c->ok || agent < 0 || (uint64_t)agent >= t->crowds[k].slots) return 0;
    if (!follow_room(t, fo, k, (uint64_t)agent) ||
        !GROW(t, t->cells, t->ncells, t->cap_cells)) {
      *mem = 1;
      return 0;
    }
    uint32_t was = fo->cells[k][agent], key;
    if (code == SP_CELL_GONE) {
      key = SP_TRACE_NO_CELL;
    } else if (code == SP_CELL_FAR) {
      uint64_t x = get_var(c), y = get_var(c);
      if (x > 0xFFFF || y > 0xFFFF) return 0;
      key = (uint32_t)y << 16 | (uint32_t)x;
    } else if (code < 225 && was != SP_TRACE_NO_CELL) {
      int x = (int)(was & 0xFFFF) + (int)(code / 15) - SP_CELL_NEAR_MAX;
      int y = (int)(was >> 16) + (int)(code % 15) - SP_CELL_NEAR_MAX;
      if (x < 0 || y < 0 || x > 0xFFFF || y > 0xFFFF) return 0;
      key = (uint32_t)y << 16 | (uint32_t)x;
    } else {
      return 0; /* a move from no known cell, or no such code */
    }
    if (fo->pass == 1) {
      if (!GROW(t, fo->undo, fo->nundo, fo->cap_undo)) {
        *mem = 1;
        return 0;
      }
      Undo u = {(uint32_t)k, (uint32_t)agent, was};
      fo->undo[fo->nundo++] = u;
    }
    fo->cells[k][agent] = key;
    SpTraceCell *cl = &t->cells[t->ncells++];
    cl->frame = frame;
    cl->agent = (uint32_t)agent;
    cl->crowd = (uint16_t)k;
    cl->x = key == SP_TRACE_NO_CELL ? 0xFFFF : (uint16_t)(key & 0xFFFF);
    cl->y = key == SP_TRACE_NO_CELL ? 0xFFFF : (uint16_t)(key >> 16);
  }
  return c->ok;
}

static int read_notes(SpTrace *t, Cur *c, size_t first, size_t nev, int *mem) {
  uint64_t n = get_count(c, nev);
  for (uint64_t j = 0; j < n && c->ok; j++) {
    uint64_t e = get_var(c), l = get_count(c, SP_TRACE_STR_MAX);
    if (!c->ok || e >= nev || memchr(c->p, 0, (size_t)l) != NULL) return 0;
    if (!add_note(t, c, l, first + (size_t)e, mem)) return 0;
  }
  return c->ok;
}

static int read_sensed(SpTrace *t, Cur *c, size_t k, uint32_t frame, int *mem) {
  uint64_t n = get_count(c, UINT32_MAX);
  const SpTraceCrowd *cr = &t->crowds[k];
  int64_t agent = 0;
  for (uint64_t e = 0; e < n && c->ok; e++) {
    agent += get_svar(c);
    unsigned var = get_u8(c), value = get_u8(c);
    if (!c->ok || agent < 0 || (uint64_t)agent >= cr->slots ||
        var >= cr->nvars || value >= cr->vars[var].nvalues)
      return 0;
    if (!GROW(t, t->sensed, t->nsensed, t->cap_sensed)) {
      *mem = 1;
      return 0;
    }
    SpTraceSensed *sv = &t->sensed[t->nsensed++];
    sv->frame = frame;
    sv->agent = (uint32_t)agent;
    sv->crowd = (uint16_t)k;
    sv->var = (uint8_t)var;
    sv->value = (uint8_t)value;
  }
  return c->ok;
}

static int read_frames(SpTrace *t, Cur *c, Follow *fo, int *mem) {
  while (c->ok && c->p < c->end) {
    uint64_t number = get_var(c);
    double clock = get_double(c);
    if (!c->ok) break;
    if (!GROW(t, t->frames, t->nframes, t->cap_frames)) {
      *mem = 1;
      return 0;
    }
    uint32_t frame = (uint32_t)t->nframes++;
    t->frames[frame].clock = clock;
    t->frames[frame].number = (uint32_t)number;
    uint64_t nf = get_count(c, t->nfacts);
    for (uint64_t f = 0; f < nf && c->ok; f++) {
      uint64_t fact = get_var(c), value = get_var(c);
      if (!c->ok || fact >= t->nfacts || value >= t->facts[fact].nvalues)
        return 0;
      if (!GROW(t, t->fact_changes, t->nfact_changes, t->cap_facts)) {
        *mem = 1;
        return 0;
      }
      SpTraceFact *fc = &t->fact_changes[t->nfact_changes++];
      fc->frame = frame;
      fc->fact = (uint16_t)fact;
      fc->value = (uint16_t)value;
    }
    uint64_t blocks = get_count(c, t->ncrowds);
    for (uint64_t b = 0; b < blocks && c->ok; b++) {
      uint64_t k = get_var(c);
      if (!c->ok || k >= t->ncrowds) return 0;
      SpTraceMark bm = {t->nframes, t->nevents, t->ncells,
                        t->nnotes,  t->nsensed, t->nsnapshots};
      if (!read_lua_events(t, c, (size_t)k, frame, mem)) return 0;
      size_t first = t->nevents;
      if (!read_events(t, c, (size_t)k, frame, mem) ||
          !read_cells(t, c, fo, (size_t)k, frame, mem) ||
          !read_notes(t, c, first, t->nevents - first, mem) ||
          !read_sensed(t, c, (size_t)k, frame, mem))
        return 0;
      if (fo->pass == 1) { /* checked: dropped */
        for (size_t j = bm.notes; j < t->nnotes; j++)
          free_str(t, t->notes[j].text);
        t->nnotes = bm.notes;
        t->nevents = bm.events;
        t->ncells = bm.cells;
        t->nsensed = bm.sensed;
      } else if (fo->pass == 2 && !sp__scan_chunk(t, &bm)) {
        *mem = 1;
        return 0;
      }
    }
  }
  return c->ok;
}

/* ---- chunks ------------------------------------------------------------- */

/* Decodes one checked chunk; 0 when its contents are wrong (everything it
 * added is taken back). */
static int chunk(SpTrace *t, int type, const uint8_t *p, size_t len, Follow *fo,
                 int *mem) {
  Cur c = {p, p + len, 1};
  if (type == SP_CHUNK_HEADER) {
    if (t->header_ok) return 0; /* one header only */
    if (read_header(t, &c, mem)) {
      t->header_ok = 1;
      fo->cells = zeroed(t, t->ncrowds, sizeof *fo->cells, mem);
      fo->n = zeroed(t, t->ncrowds, sizeof *fo->n, mem);
      return fo->cells != NULL && fo->n != NULL;
    }
    free_header(t);
    return 0;
  }
  if (!t->header_ok) return 0;
  if (type == SP_CHUNK_SNAPSHOT) return read_snapshot(t, &c, fo, mem);
  if (type != SP_CHUNK_FRAMES) return 0;
  size_t nframes = t->nframes, nevents = t->nevents, ncells = t->ncells,
         nfacts = t->nfact_changes, nnotes = t->nnotes, nsensed = t->nsensed;
  if (len > sp__scan_twice_above(t)) {
    /* checked first, keeping nothing; then read again a block at a time */
    fo->pass = 1;
    fo->nundo = 0;
    Cur c1 = c;
    int ok = read_frames(t, &c1, fo, mem);
    fo->pass = 0;
    if (ok) {
      for (size_t j = fo->nundo; j-- > 0;)
        fo->cells[fo->undo[j].crowd][fo->undo[j].agent] = fo->undo[j].was;
      t->nframes = nframes;
      t->nfact_changes = nfacts;
      fo->pass = 2;
      ok = read_frames(t, &c, fo, mem);
      fo->pass = 0;
      fo->digested = 1; /* what pass 2 handed on stays (it cannot fail
                         * but for memory: pass 1 read the same) */
      return ok;
    }
  } else if (read_frames(t, &c, fo, mem)) {
    return 1;
  }
  for (size_t j = nnotes; j < t->nnotes; j++) free_str(t, t->notes[j].text);
  t->nnotes = nnotes;
  t->nframes = nframes;
  t->nevents = nevents;
  t->ncells = ncells;
  t->nfact_changes = nfacts;
  t->nsensed = nsensed;
  fo->approximate = 1;
  return 0;
}

void sp_trace_free(SpTrace *t) {
  if (t == NULL) return;
  sp__scan_free(t);
  sp_trace_summary_free(t->summary);
  free_header(t);
  if (t->frames)
    sp__mem_free(t->alloc, t->frames, t->cap_frames * sizeof *t->frames);
  if (t->events)
    sp__mem_free(t->alloc, t->events, t->cap_events * sizeof *t->events);
  if (t->cells)
    sp__mem_free(t->alloc, t->cells, t->cap_cells * sizeof *t->cells);
  if (t->fact_changes)
    sp__mem_free(t->alloc, t->fact_changes,
                 t->cap_facts * sizeof *t->fact_changes);
  for (size_t s = 0; s < t->nsnapshots; s++)
    sp__trace_snapshot_free(t, &t->snapshots[s]);
  if (t->snapshots)
    sp__mem_free(t->alloc, t->snapshots,
                 t->cap_snapshots * sizeof *t->snapshots);
  for (size_t j = 0; j < t->nnotes; j++) free_str(t, t->notes[j].text);
  if (t->notes)
    sp__mem_free(t->alloc, t->notes, t->cap_notes * sizeof *t->notes);
  if (t->sensed)
    sp__mem_free(t->alloc, t->sensed, t->cap_sensed * sizeof *t->sensed);
  if (t->problems) sp__mem_free(t->alloc, t->problems, t->problems_cap);
  sp__mem_free(t->alloc, t, sizeof *t);
}

static void follow_free(SpTrace *t, Follow *fo, uint32_t ncrowds) {
  if (fo->undo)
    sp__mem_free(t->alloc, fo->undo, fo->cap_undo * sizeof *fo->undo);
  for (uint32_t k = 0; fo->cells != NULL && k < ncrowds; k++)
    if (fo->cells[k])
      sp__mem_free(t->alloc, fo->cells[k], fo->n[k] * sizeof(uint32_t));
  if (fo->cells)
    sp__mem_free(t->alloc, fo->cells, ncrowds * sizeof *fo->cells + 1);
  if (fo->n) sp__mem_free(t->alloc, fo->n, ncrowds * sizeof *fo->n + 1);
}

/* ---- reading ------------------------------------------------------------ */

/* Reads the chunks of s into t (allocated, zeroed, alloc set). Returns
 * SP_OK with damage in t->problems, or what stopped the read. */
static SpStatus read_chunks(SpTrace *t, SpTraceSource *s,
                            const SpTraceReadOptions *opt, SpError *err) {
  Follow fo;
  memset(&fo, 0, sizeof fo);
  int mem = 0, fail = 0, approximate_said = 0;
  SpStatus st = SP_OK;
  uint32_t expect = 0;
  const uint64_t none = UINT64_MAX, end = s->size;
  uint64_t p = SP_TRACE_HEAD_LEN, bad = none;
  while (p < end && !mem && !fail && st == SP_OK) {
    uint64_t q = sp__source_mark(s, p, &fail);
    if (fail) break;
    if (q != p && bad == none) bad = p;
    p = q;
    if (p == end) break;
    if (end - p < SP_CHUNK_HEAD_LEN) {
      if (bad == none) bad = p;
      break;
    }
    if (!sp__source_need(s, p, SP_CHUNK_HEAD_LEN)) {
      fail = 1;
      break;
    }
    const uint8_t *c = s->buf + (p - s->off);
    int type = c[4];
    uint64_t plen = sp_trace_get_le(c + 8, 4);
    uint32_t seq = (uint32_t)sp_trace_get_le(c + 12, 4);
    uint64_t sum = sp_trace_get_le(c + 16, 8);
    int fits = plen <= end - p - SP_CHUNK_HEAD_LEN;
    if (fits && !sp__source_need(s, p, SP_CHUNK_HEAD_LEN + (size_t)plen)) {
      fail = 1;
      break;
    }
    c = s->buf + (p - s->off);
    uint64_t h = sp_trace_fnv(SP_TRACE_FNV_START, c + 4, 12);
    if (!fits || sp_trace_fnv(h, c + SP_CHUNK_HEAD_LEN, (size_t)plen) != sum) {
      if (bad == none) bad = p;
      p += 4;
      continue;
    }
    if (bad != none) {
      problem(t, "bytes %lu to %lu: damaged, skipped", (unsigned long)bad,
              (unsigned long)p);
      bad = none;
    }
    if (seq != expect)
      problem(t, "chunks %lu to %lu: missing", (unsigned long)expect,
              (unsigned long)seq - 1);
    expect = seq + 1;
    t->chunks++;
    SpTraceMark before = {t->nframes, t->nevents, t->ncells,
                          t->nnotes,  t->nsensed, t->nsnapshots};
    int header_was = t->header_ok;
    if (!chunk(t, type, c + SP_CHUNK_HEAD_LEN, (size_t)plen, &fo, &mem)) {
      if (!mem) {
        t->chunks_skipped++;
        problem(t,
                "chunk %lu at byte %lu (%s): contents do not decode, skipped",
                (unsigned long)seq, (unsigned long)p,
                type == SP_CHUNK_HEADER     ? "header"
                : type == SP_CHUNK_SNAPSHOT ? "snapshot"
                                            : "frames");
      }
    } else if (!header_was && t->header_ok && opt != NULL) {
      st = sp__scan_start(t, opt, err);
    } else if (fo.digested) {
      fo.digested = 0; /* handed to the scan a block at a time */
    } else if (t->scan != NULL && !sp__scan_chunk(t, &before)) {
      mem = 1;
    } else if (t->scan == NULL) {
      t->all_events = t->nevents;
      t->all_cells = t->ncells;
      t->all_sensed = t->nsensed;
    }
    if (fo.approximate && !approximate_said && t->nframes > before.frames) {
      problem(t,
              "cells from frame %lu on are approximate until the next snapshot",
              (unsigned long)t->frames[before.frames].number);
      approximate_said = 1;
    }
    if (!fo.approximate) approximate_said = 0;
    p += SP_CHUNK_HEAD_LEN + plen;
  }
  if (!mem && !fail && bad != none)
    problem(t, "bytes %lu to %lu: truncated or damaged, skipped",
            (unsigned long)bad, (unsigned long)end);
  follow_free(t, &fo, t->ncrowds);
  if (st == SP_OK && !mem && !fail && t->scan != NULL && !sp__scan_finish(t))
    mem = 1;
  if (st != SP_OK) return st;
  if (fail && s->io_error)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "trace: reading byte %lu: %s", (unsigned long)p,
                         ferror(s->f) ? "read error"
                                      : "file shorter than it was");
  if (mem || fail) return sp__error_memory(err);
  if (!t->header_ok)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "trace: no readable header chunk");
  if (t->problems == NULL) {
    t->problems = sp__mem_alloc(t->alloc, 1);
    if (t->problems == NULL) return sp__error_memory(err);
    t->problems[0] = '\0';
    t->problems_cap = 1;
  }
  return SP_OK;
}

/* Checks the file head of a trace whose first bytes are b[0..len). */
static SpStatus check_head(const uint8_t *b, size_t len, SpError *err) {
  if (len < SP_TRACE_HEAD_LEN ||
      memcmp(b, SP_TRACE_HEAD, sizeof SP_TRACE_HEAD) != 0)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "trace: not a saspu trace (no '%s' at byte 0)",
                         SP_TRACE_HEAD);
  uint32_t version = (uint32_t)sp_trace_get_le(b + 12, 4);
  if (version != SP_TRACE_VERSION)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "trace: format %u, this saspu reads format %d",
                         version, SP_TRACE_VERSION);
  return SP_OK;
}

static SpStatus read_src(SpTraceSource *s, const SpTraceReadOptions *opt,
                         SpAllocator alloc, SpTrace **out, SpError *err) {
  SpTrace *t = sp__mem_alloc(alloc, sizeof *t);
  if (t == NULL) return sp__error_memory(err);
  memset(t, 0, sizeof *t);
  t->alloc = alloc;
  SpStatus st = read_chunks(t, s, opt, err);
  if (st != SP_OK) {
    sp_trace_free(t);
    return st;
  }
  *out = t;
  return SP_OK;
}

SpStatus sp_trace_read_with(const void *data, size_t len,
                            const SpTraceReadOptions *opt, SpAllocator alloc,
                            SpTrace **out, SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  SpStatus st = check_head(data, len, err);
  if (st != SP_OK) return st;
  SpTraceSource s;
  memset(&s, 0, sizeof s);
  s.buf = data;
  s.len = len;
  s.size = len;
  s.alloc = alloc;
  return read_src(&s, opt, alloc, out, err);
}

SpStatus sp_trace_read(const void *data, size_t len, SpAllocator alloc,
                       SpTrace **out, SpError *err) {
  return sp_trace_read_with(data, len, NULL, alloc, out, err);
}

SpStatus sp_trace_read_file(const char *path, const SpTraceReadOptions *opt,
                            SpAllocator alloc, SpTrace **out, SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  SpTraceSource s;
  memset(&s, 0, sizeof s);
  s.alloc = alloc;
  s.f = fopen(path, "rb");
  if (s.f == NULL)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                         "%s: %s", path, strerror(errno));
  SpStatus st = SP_OK;
  uint8_t head[SP_TRACE_HEAD_LEN];
  long size = -1;
  if (fseek(s.f, 0, SEEK_END) != 0 || (size = ftell(s.f)) < 0 ||
      fseek(s.f, 0, SEEK_SET) != 0)
    st = sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE, "%s: %s",
                       path, strerror(errno));
  if (st == SP_OK) {
    size_t n = fread(head, 1, sizeof head, s.f);
    st = check_head(head, n, err);
  }
  if (st == SP_OK) {
    s.size = (uint64_t)size;
    s.off = s.size; /* nothing in the window yet */
    st = read_src(&s, opt, alloc, out, err);
  }
  if (s.own != NULL) sp__mem_free(alloc, s.own, s.cap);
  fclose(s.f);
  return st;
}
