/* trace_summary.c: sums up a trace's events as they are read (goals, failure reasons, stuck agents, counts per period, density per class): memory per agent, place and reason, never per event. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_error.h"
#include "sp_record.h"

/* The summary's own list of reachers: enough for the page's picks (the
 * stuck and the never reaching ones come first and may reach too). */
#define REACHERS (SP_TRACE_LIST + SP_TRACE_TOP + 1)
/* Rows of counts (periods) kept at most. */
#define PERIODS_MAX ((size_t)1 << 20)

typedef struct Agent {
  double last;     /* the last progress (a step done, a goal reached) */
  double from, to; /* the longest stretch failing without progress */
  uint32_t reached;
  uint32_t text, why_text; /* the last failure's reason; the stuck one's */
  uint8_t kind, why_kind;  /* used when the text is SP_TRACE_NO_TEXT */
  uint8_t seen, failing, stuck;
} Agent;

typedef struct Reason {
  SpTraceReason r;
  uint32_t crowd;
  uint64_t seq; /* order of first sight: ties keep it */
} Reason;

typedef struct Texts {
  char **v;
  uint32_t n, cap;
  uint32_t *slots; /* open addressing: index + 1, 0 empty */
  uint32_t nslots;
} Texts;

typedef struct Density {
  uint32_t *cur; /* per agent its cell key, SP_TRACE_NO_CELL */
  uint32_t *bins;
  int started;
} Density;

/* Kind and reason indices by name (-1: the trace has none). */
enum {
  K_GOAL_CHOSEN,
  K_GOAL_REACHED,
  K_NO_PLAN,
  K_GAVE_UP,
  K_GOAL_DROPPED,
  K_STEP_FAILED,
  K_STEP_FINISHED,
  K_STEP_SKIPPED,
  K_BLOCKED,
  K_ARRIVED,
  K_MOVE,
  K_COUNT
};
static const char *const KIND_NAMES[K_COUNT] = {
    "goal_chosen",  "goal_reached", "no_plan",       "gave_up",
    "goal_dropped", "step_failed",  "step_finished", "step_skipped",
    "blocked",      "arrived",      "move"};

struct SpSum {
  SpAllocator alloc;
  uint32_t ncrowds, nkinds, nplaces;
  uint32_t *slots; /* per crowd */
  SpTraceSummary *out;
  Agent **agents; /* per crowd, slots of them */
  Reason *reasons;
  size_t nreasons, cap_reasons;
  uint32_t *rslots; /* open addressing over reasons: index + 1 */
  size_t nrslots;
  Texts texts;
  uint32_t reason_text[256]; /* per reason its text (none: NO_TEXT) */
  int kinds[K_COUNT];
  uint8_t *place_reason; /* per reason: a step_failed's detail is a place */
  uint8_t *failure, *progress; /* per kind */
  size_t last_row;
  size_t grid; /* density blocks */
  const uint32_t *keyframes;
  size_t next_key;
  Density *density; /* per crowd; NULL: no density */
};

/* ---- small helpers ------------------------------------------------------- */

static int grow(SpAllocator a, void **arr, size_t n, size_t *cap, size_t size) {
  if (n < *cap) return 1;
  size_t ncap = *cap ? *cap * 2 : 64;
  void *p = sp__mem_realloc(a, *arr, *cap * size, ncap * size);
  if (p == NULL) return 0;
  *arr = p;
  *cap = ncap;
  return 1;
}

static void *zalloc(SpAllocator a, size_t n) {
  void *p = sp__mem_alloc(a, n);
  if (p != NULL) memset(p, 0, n);
  return p;
}

static uint64_t hash_bytes(const void *p, size_t n) {
  return sp_trace_fnv(SP_TRACE_FNV_START, p, n);
}

/* ---- texts ---------------------------------------------------------------- */

static int texts_rehash(SpAllocator a, Texts *x, uint32_t nslots) {
  uint32_t *s = zalloc(a, nslots * sizeof *s);
  if (s == NULL) return 0;
  for (uint32_t k = 0; k < x->n; k++) {
    uint32_t h = (uint32_t)hash_bytes(x->v[k], strlen(x->v[k])) & (nslots - 1);
    while (s[h] != 0) h = (h + 1) & (nslots - 1);
    s[h] = k + 1;
  }
  if (x->slots) sp__mem_free(a, x->slots, x->nslots * sizeof *x->slots);
  x->slots = s;
  x->nslots = nslots;
  return 1;
}

/* The id of text s[0..n) (added when new; past SP_TRACE_TEXTS_MAX the id of
 * SP_TRACE_OTHER_TEXT). UINT32_MAX - 1: out of memory. */
static uint32_t text_id(SpAllocator a, Texts *x, const char *s, size_t n) {
  if (x->n * 2 >= x->nslots &&
      !texts_rehash(a, x, x->nslots ? x->nslots * 2 : 256))
    return UINT32_MAX - 1;
  uint32_t h = (uint32_t)hash_bytes(s, n) & (x->nslots - 1);
  for (; x->slots[h] != 0; h = (h + 1) & (x->nslots - 1)) {
    const char *t = x->v[x->slots[h] - 1];
    if (strlen(t) == n && memcmp(t, s, n) == 0) return x->slots[h] - 1;
  }
  int other = n == strlen(SP_TRACE_OTHER_TEXT) &&
              memcmp(s, SP_TRACE_OTHER_TEXT, n) == 0;
  if (x->n >= SP_TRACE_TEXTS_MAX && !other) /* the rest: one text */
    return text_id(a, x, SP_TRACE_OTHER_TEXT, strlen(SP_TRACE_OTHER_TEXT));
  size_t cap = x->cap;
  if (!grow(a, (void **)&x->v, x->n, &cap, sizeof *x->v)) return UINT32_MAX - 1;
  x->cap = (uint32_t)cap;
  char *c = sp__mem_alloc(a, n + 1);
  if (c == NULL) return UINT32_MAX - 1;
  memcpy(c, s, n);
  c[n] = '\0';
  x->v[x->n] = c;
  x->slots[h] = ++x->n;
  return x->n - 1;
}

static void texts_free(SpAllocator a, char **v, uint32_t n, uint32_t cap) {
  for (uint32_t k = 0; k < n; k++) sp__mem_free(a, v[k], strlen(v[k]) + 1);
  if (v) sp__mem_free(a, v, cap * sizeof *v);
}

/* ---- setting up and freeing --------------------------------------------- */

static int name_index(char *const *names, uint32_t n, const char *name) {
  for (uint32_t k = 0; k < n; k++)
    if (strcmp(names[k], name) == 0) return (int)k;
  return -1;
}

void sp_trace_summary_free(SpTraceSummary *s) {
  if (s == NULL) return;
  SpAllocator a = s->alloc;
  for (uint32_t k = 0; s->classes != NULL && k < s->ncrowds; k++) {
    SpTraceClassSummary *c = &s->classes[k];
    uint32_t top = s->top ? s->top : 1;
    if (c->reasons) sp__mem_free(a, c->reasons, top * sizeof *c->reasons);
    if (c->stuck) sp__mem_free(a, c->stuck, top * sizeof *c->stuck);
    if (c->never_agents)
      sp__mem_free(a, c->never_agents, SP_TRACE_LIST * sizeof(uint32_t));
    if (c->reachers) sp__mem_free(a, c->reachers, REACHERS * sizeof(uint32_t));
  }
  if (s->classes)
    sp__mem_free(a, s->classes, (s->ncrowds + 1) * sizeof *s->classes);
  texts_free(a, s->texts, s->ntexts, s->cap_texts);
  if (s->periods)
    sp__mem_free(a, s->periods, s->cap_periods * sizeof *s->periods);
  if (s->counts)
    sp__mem_free(a, s->counts, s->cap_periods * s->nkinds * sizeof *s->counts);
  if (s->density)
    sp__mem_free(
        a, s->density,
        s->nkeyframes * s->ncrowds * s->bw * s->bh * sizeof *s->density + 1);
  sp__mem_free(a, s, sizeof *s);
}

void sp__sum_free(SpSum *S) {
  if (S == NULL) return;
  SpAllocator a = S->alloc;
  for (uint32_t k = 0; S->agents != NULL && k < S->ncrowds; k++)
    if (S->agents[k])
      sp__mem_free(a, S->agents[k], (S->slots[k] + 1) * sizeof(Agent));
  if (S->agents)
    sp__mem_free(a, S->agents, (S->ncrowds + 1) * sizeof *S->agents);
  for (uint32_t k = 0; S->density != NULL && k < S->ncrowds; k++) {
    Density *d = &S->density[k];
    if (d->cur) sp__mem_free(a, d->cur, (S->slots[k] + 1) * sizeof *d->cur);
    if (d->bins) sp__mem_free(a, d->bins, S->grid * sizeof *d->bins + 1);
  }
  if (S->density)
    sp__mem_free(a, S->density, (S->ncrowds + 1) * sizeof *S->density);
  if (S->slots) sp__mem_free(a, S->slots, (S->ncrowds + 1) * sizeof *S->slots);
  if (S->reasons)
    sp__mem_free(a, S->reasons, S->cap_reasons * sizeof *S->reasons);
  if (S->rslots) sp__mem_free(a, S->rslots, S->nrslots * sizeof *S->rslots);
  texts_free(a, S->texts.v, S->texts.n, S->texts.cap);
  if (S->texts.slots)
    sp__mem_free(a, S->texts.slots, S->texts.nslots * sizeof *S->texts.slots);
  if (S->place_reason) sp__mem_free(a, S->place_reason, 256);
  if (S->failure) sp__mem_free(a, S->failure, 256);
  if (S->progress) sp__mem_free(a, S->progress, 256);
  sp_trace_summary_free(S->out);
  sp__mem_free(a, S, sizeof *S);
}

SpStatus sp__sum_new(const SpTrace *t, const SpTraceReadOptions *opt,
                     SpSum **out, SpError *err) {
  SpAllocator a = t->alloc;
  *out = NULL;
  SpSum *S = zalloc(a, sizeof *S);
  if (S == NULL) return sp__error_memory(err);
  S->alloc = a;
  S->ncrowds = t->ncrowds;
  S->nkinds = t->nkinds;
  S->nplaces = t->nplaces;
  SpTraceSummary *o = S->out = zalloc(a, sizeof *o);
  if (o == NULL) goto memory;
  o->alloc = a;
  o->ncrowds = t->ncrowds;
  o->nkinds = t->nkinds;
  o->top = opt && opt->top ? opt->top : SP_TRACE_TOP;
  o->period = opt && opt->period > 0 ? opt->period : 3600;
  o->start = o->finish = t->start_clock;
  o->classes = zalloc(a, (t->ncrowds + 1) * sizeof *o->classes);
  S->slots = zalloc(a, (t->ncrowds + 1) * sizeof *S->slots);
  S->agents = zalloc(a, (t->ncrowds + 1) * sizeof *S->agents);
  S->place_reason = zalloc(a, 256);
  S->failure = zalloc(a, 256);
  S->progress = zalloc(a, 256);
  if (!o->classes || !S->slots || !S->agents || !S->place_reason ||
      !S->failure || !S->progress)
    goto memory;
  for (uint32_t k = 0; k < t->ncrowds; k++) {
    SpTraceClassSummary *c = &o->classes[k];
    S->slots[k] = t->crowds[k].slots;
    c->recorded = t->crowds[k].recorded;
    c->reasons = zalloc(a, o->top * sizeof *c->reasons);
    c->stuck = zalloc(a, o->top * sizeof *c->stuck);
    c->never_agents = zalloc(a, SP_TRACE_LIST * sizeof(uint32_t));
    c->reachers = zalloc(a, REACHERS * sizeof(uint32_t));
    S->agents[k] = sp__mem_alloc(a, (S->slots[k] + 1) * sizeof(Agent));
    if (!c->reasons || !c->stuck || !c->never_agents || !c->reachers ||
        !S->agents[k])
      goto memory;
    for (uint32_t i = 0; i < S->slots[k]; i++) {
      Agent *ag = &S->agents[k][i];
      memset(ag, 0, sizeof *ag);
      ag->last = t->start_clock;
    }
  }
  for (int k = 0; k < K_COUNT; k++)
    S->kinds[k] = name_index(t->kinds, t->nkinds, KIND_NAMES[k]);
  const int fail[] = {K_STEP_FAILED, K_NO_PLAN, K_BLOCKED, K_GAVE_UP};
  const int prog[] = {K_STEP_FINISHED, K_STEP_SKIPPED, K_GOAL_REACHED};
  for (size_t k = 0; k < 4; k++)
    if (S->kinds[fail[k]] >= 0) S->failure[S->kinds[fail[k]]] = 1;
  for (size_t k = 0; k < 3; k++)
    if (S->kinds[prog[k]] >= 0) S->progress[S->kinds[prog[k]]] = 1;
  /* the reason names first: a note equal to one is the same reason */
  for (uint32_t r = 0; r < 256; r++) S->reason_text[r] = SP_TRACE_NO_TEXT;
  for (uint32_t r = 0; r < t->nreasons && r < 256; r++) {
    const char *n = t->reasons[r];
    if (strcmp(n, "none") == 0) continue; /* no reason */
    S->reason_text[r] = text_id(a, &S->texts, n, strlen(n));
    if (S->reason_text[r] == UINT32_MAX - 1) goto memory;
    S->place_reason[r] = strcmp(n, "full") == 0 ||
                         strcmp(n, "unreachable") == 0 ||
                         strcmp(n, "cooldown") == 0;
  }
  if (opt != NULL && opt->nkeyframes > 0) {
    size_t grid = (size_t)opt->bw * opt->bh;
    if (opt->bin == 0 || grid == 0 || grid > ((size_t)1 << 24) ||
        opt->nkeyframes > ((size_t)1 << 16) ||
        (double)opt->nkeyframes * t->ncrowds * (double)grid >
            (double)((size_t)1 << 28)) {
      sp__sum_free(S);
      return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                           "trace: density of %lu keyframes of %lu x %lu "
                           "blocks (bin %lu) is out of range",
                           (unsigned long)opt->nkeyframes,
                           (unsigned long)opt->bw, (unsigned long)opt->bh,
                           (unsigned long)opt->bin);
    }
    for (size_t k = 1; k < opt->nkeyframes; k++)
      if (opt->keyframes[k] < opt->keyframes[k - 1]) {
        sp__sum_free(S);
        return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                             "trace: keyframes must ascend (%lu after %lu)",
                             (unsigned long)opt->keyframes[k],
                             (unsigned long)opt->keyframes[k - 1]);
      }
    S->grid = grid;
    o->bw = opt->bw;
    o->bh = opt->bh;
    o->nkeyframes = opt->nkeyframes;
    S->keyframes = opt->keyframes;
    o->density =
        zalloc(a, opt->nkeyframes * t->ncrowds * grid * sizeof *o->density + 1);
    S->density = zalloc(a, (t->ncrowds + 1) * sizeof *S->density);
    if (!o->density || !S->density) goto memory;
    for (uint32_t k = 0; k < t->ncrowds; k++) {
      Density *d = &S->density[k];
      d->cur = sp__mem_alloc(a, (S->slots[k] + 1) * sizeof *d->cur);
      d->bins = zalloc(a, grid * sizeof *d->bins + 1);
      if (!d->cur || !d->bins) goto memory;
      for (uint32_t i = 0; i < S->slots[k]; i++) d->cur[i] = SP_TRACE_NO_CELL;
    }
  }
  *out = S;
  return SP_OK;
memory:
  sp__sum_free(S);
  return sp__error_memory(err);
}

/* ---- events --------------------------------------------------------------- */

/* The reason entry of crowd k for (kind, text, action, place), new or
 * found; NULL: out of memory. */
static Reason *reason_entry(SpSum *S, uint32_t k, uint8_t kind, uint32_t text,
                            int16_t action, int32_t place, double time) {
  uint64_t key[4] = {k, kind, text,
                     (uint64_t)(uint16_t)action << 32 | (uint32_t)place};
  if (S->nreasons * 2 >= S->nrslots) {
    size_t n = S->nrslots ? S->nrslots * 2 : 256;
    uint32_t *sl = zalloc(S->alloc, n * sizeof *sl);
    if (sl == NULL) return NULL;
    for (size_t j = 0; j < S->nreasons; j++) {
      const Reason *r = &S->reasons[j];
      uint64_t kk[4] = {r->crowd, r->r.kind, r->r.text,
                        (uint64_t)(uint16_t)r->r.action << 32 |
                            (uint32_t)r->r.place};
      size_t h = (size_t)hash_bytes(kk, sizeof kk) & (n - 1);
      while (sl[h] != 0) h = (h + 1) & (n - 1);
      sl[h] = (uint32_t)j + 1;
    }
    if (S->rslots)
      sp__mem_free(S->alloc, S->rslots, S->nrslots * sizeof *S->rslots);
    S->rslots = sl;
    S->nrslots = n;
  }
  size_t h = (size_t)hash_bytes(key, sizeof key) & (S->nrslots - 1);
  for (; S->rslots[h] != 0; h = (h + 1) & (S->nrslots - 1)) {
    Reason *r = &S->reasons[S->rslots[h] - 1];
    if (r->crowd == k && r->r.kind == kind && r->r.text == text &&
        r->r.action == action && r->r.place == place)
      return r;
  }
  if (!grow(S->alloc, (void **)&S->reasons, S->nreasons, &S->cap_reasons,
            sizeof *S->reasons))
    return NULL;
  Reason *r = &S->reasons[S->nreasons];
  memset(r, 0, sizeof *r);
  r->crowd = k;
  r->seq = S->nreasons;
  r->r.kind = kind;
  r->r.text = text;
  r->r.action = action;
  r->r.place = place;
  r->r.first = time;
  S->rslots[h] = (uint32_t)++S->nreasons;
  return r;
}

/* The row of counts for period p; NULL: out of memory or too many. */
static uint64_t *count_row(SpSum *S, int64_t p) {
  SpTraceSummary *o = S->out;
  size_t n = o->nperiods, at;
  if (n > 0 && o->periods[S->last_row] == p)
    return o->counts + S->last_row * o->nkinds;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (o->periods[mid] < p)
      lo = mid + 1;
    else
      hi = mid;
  }
  at = lo;
  if (at < n && o->periods[at] == p) {
    S->last_row = at;
    return o->counts + at * o->nkinds;
  }
  if (n >= PERIODS_MAX) return NULL;
  if (n == o->cap_periods) {
    size_t cap = n ? n * 2 : 64;
    int64_t *pp = sp__mem_alloc(S->alloc, cap * sizeof *pp);
    uint64_t *cc = sp__mem_alloc(S->alloc, cap * o->nkinds * sizeof *cc);
    if (pp == NULL || cc == NULL) {
      if (pp) sp__mem_free(S->alloc, pp, cap * sizeof *pp);
      if (cc) sp__mem_free(S->alloc, cc, cap * o->nkinds * sizeof *cc);
      return NULL;
    }
    if (n > 0) {
      memcpy(pp, o->periods, n * sizeof *pp);
      memcpy(cc, o->counts, n * o->nkinds * sizeof *cc);
      sp__mem_free(S->alloc, o->periods, n * sizeof *pp);
      sp__mem_free(S->alloc, o->counts, n * o->nkinds * sizeof *cc);
    }
    o->periods = pp;
    o->counts = cc;
    o->cap_periods = cap;
  }
  memmove(o->periods + at + 1, o->periods + at, (n - at) * sizeof *o->periods);
  memmove(o->counts + (at + 1) * o->nkinds, o->counts + at * o->nkinds,
          (n - at) * o->nkinds * sizeof *o->counts);
  o->periods[at] = p;
  memset(o->counts + at * o->nkinds, 0, o->nkinds * sizeof *o->counts);
  o->nperiods++;
  S->last_row = at;
  return o->counts + at * o->nkinds;
}

#define IS(kind, K) (S->kinds[K] >= 0 && (kind) == (unsigned)S->kinds[K])

/* Adds events [from, to) of t; notes from note `note` on name them (in
 * event order). 0: out of memory. */
int sp__sum_events(SpSum *S, const SpTrace *t, size_t from, size_t to,
                   size_t note) {
  SpTraceSummary *o = S->out;
  for (size_t i = from; i < to; i++) {
    const SpTraceEvent *e = &t->events[i];
    while (note < t->nnotes && t->notes[note].event < i) note++;
    if (e->crowd >= S->ncrowds || e->frame >= t->nframes ||
        e->agent >= S->slots[e->crowd])
      continue;
    double time = t->frames[e->frame].clock;
    if (isfinite(time)) {
      uint64_t *row = count_row(S, (int64_t)floor(time / o->period));
      if (row == NULL && o->nperiods < PERIODS_MAX) return 0;
      if (row != NULL) row[e->kind]++;
    }
    SpTraceClassSummary *c = &o->classes[e->crowd];
    if (!c->recorded) continue;
    Agent *a = &S->agents[e->crowd][e->agent];
    if (!a->seen) {
      a->seen = 1;
      c->agents++;
    }
    unsigned kind = e->kind;
    if (IS(kind, K_GOAL_CHOSEN)) {
      c->goals++;
    } else if (IS(kind, K_GOAL_REACHED)) {
      if (a->reached == 0 && c->nreachers < REACHERS)
        c->reachers[c->nreachers++] = e->agent;
      c->reached++;
      a->reached++;
    } else if (IS(kind, K_NO_PLAN)) {
      c->failed++;
    } else if (IS(kind, K_GAVE_UP)) {
      c->gave_up++;
    } else if (IS(kind, K_GOAL_DROPPED)) {
      c->dropped++;
    } else if (IS(kind, K_STEP_FAILED)) {
      c->step_failures++;
    }
    if (S->failure[kind]) {
      /* its reason: its note's text, or its reason's name ('none': none) */
      uint32_t text = S->reason_text[e->reason];
      if (note < t->nnotes && t->notes[note].event == i) {
        const char *n = t->notes[note].text;
        text = n[0] ? text_id(S->alloc, &S->texts, n, strlen(n))
                    : SP_TRACE_NO_TEXT;
        if (text == UINT32_MAX - 1) return 0;
      }
      int place_ish = IS(kind, K_ARRIVED) || IS(kind, K_BLOCKED) ||
                      IS(kind, K_MOVE) ||
                      (IS(kind, K_STEP_FAILED) && S->place_reason[e->reason]);
      int32_t place =
          place_ish && e->detail >= 0 && (uint32_t)e->detail < S->nplaces
              ? e->detail
              : -1;
      int16_t action =
          e->action >= 0 && (uint32_t)e->action < t->crowds[e->crowd].nactions
              ? e->action
              : -1;
      Reason *r =
          reason_entry(S, e->crowd, (uint8_t)kind, text, action, place, time);
      if (r == NULL) return 0;
      r->r.count++;
      r->r.last = time;
      a->failing = 1;
      a->text = text;
      a->kind = (uint8_t)kind;
    }
    if (S->progress[kind]) {
      double gap = time - a->last;
      if (a->failing && gap > (a->stuck ? a->to - a->from : 0)) {
        a->from = a->last;
        a->to = time;
        a->stuck = 1;
        a->why_text = a->text;
        a->why_kind = a->kind;
      }
      a->last = time;
      a->failing = 0;
    }
  }
  return 1;
}

/* ---- density -------------------------------------------------------------- */

static void bin_add(const SpTraceSummary *o, uint32_t bin, uint32_t *bins,
                    uint32_t key, int d) {
  if (key == SP_TRACE_NO_CELL) return;
  uint32_t bx = (key & 0xFFFF) / bin, by = (key >> 16) / bin;
  if (bx >= o->bw || by >= o->bh) return;
  bins[by * o->bw + bx] += (uint32_t)d;
}

static void emit_keyframe(SpSum *S) {
  SpTraceSummary *o = S->out;
  size_t grid = (size_t)o->bw * o->bh, k = S->next_key++;
  for (uint32_t c = 0; c < S->ncrowds; c++)
    memcpy(o->density + (k * S->ncrowds + c) * grid, S->density[c].bins,
           grid * sizeof(uint32_t));
}

/* A snapshot: the first of each crowd taken before frame 0 starts its
 * density. */
void sp__sum_snapshot(SpSum *S, const SpTraceSnapshot *s, uint32_t bin) {
  if (S->density == NULL || s->crowd >= S->ncrowds || s->frame != 0) return;
  Density *d = &S->density[s->crowd];
  if (d->started || !S->out->classes[s->crowd].recorded) return;
  d->started = 1;
  uint32_t n = s->agents ? s->nkept : s->count;
  for (uint32_t j = 0; j < n; j++) {
    uint32_t i = s->agents ? s->agents[j] : j;
    if (i >= S->slots[s->crowd]) continue;
    bin_add(S->out, bin, d->bins, d->cur[i], -1);
    d->cur[i] = s->cells[j];
    bin_add(S->out, bin, d->bins, d->cur[i], 1);
  }
}

/* Cells [from, to) of t: the largest cell used, and density. */
void sp__sum_cells(SpSum *S, const SpTrace *t, size_t from, size_t to,
                   uint32_t bin) {
  SpTraceSummary *o = S->out;
  for (size_t i = from; i < to; i++) {
    const SpTraceCell *cl = &t->cells[i];
    if (cl->x != 0xFFFF || cl->y != 0xFFFF) {
      if (cl->x + 1 > o->cells_w) o->cells_w = cl->x + 1;
      if (cl->y + 1 > o->cells_h) o->cells_h = cl->y + 1;
    }
    if (S->density == NULL) continue;
    while (S->next_key < o->nkeyframes && S->keyframes[S->next_key] < cl->frame)
      emit_keyframe(S);
    if (cl->crowd >= S->ncrowds || !o->classes[cl->crowd].recorded ||
        cl->agent >= S->slots[cl->crowd])
      continue;
    Density *d = &S->density[cl->crowd];
    uint32_t key = cl->x == 0xFFFF && cl->y == 0xFFFF
                       ? SP_TRACE_NO_CELL
                       : (uint32_t)cl->y << 16 | cl->x;
    bin_add(o, bin, d->bins, d->cur[cl->agent], -1);
    d->cur[cl->agent] = key;
    bin_add(o, bin, d->bins, key, 1);
  }
}

/* ---- the end ---------------------------------------------------------------- */

/* Most frequent first, then the first seen (clocks that are no number
 * keep the order of sight). */
static int reason_cmp(const void *px, const void *py) {
  const Reason *x = px, *y = py;
  if (x->r.count != y->r.count) return x->r.count > y->r.count ? -1 : 1;
  if (x->r.first < y->r.first) return -1;
  if (x->r.first > y->r.first) return 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int stuck_before(const SpTraceStuck *x, const SpTraceStuck *y) {
  double a = x->to - x->from, b = y->to - y->from;
  if (a != b) return a > b;
  return x->agent < y->agent;
}

/* Ends the sums: the top reasons and stuck agents, the texts, the rest of
 * the density; returns the summary (S keeps nothing of it). NULL: out of
 * memory. */
SpTraceSummary *sp__sum_finish(SpSum *S, const SpTrace *t) {
  SpTraceSummary *o = S->out;
  o->finish = t->nframes > 0 ? t->frames[t->nframes - 1].clock : t->start_clock;
  while (S->density != NULL && S->next_key < o->nkeyframes) emit_keyframe(S);
  uint32_t top = o->top;
  /* reasons: the most frequent of each class */
  if (S->nreasons > 1)
    qsort(S->reasons, S->nreasons, sizeof *S->reasons, reason_cmp);
  for (size_t j = 0; j < S->nreasons; j++) {
    SpTraceClassSummary *c = &o->classes[S->reasons[j].crowd];
    if (c->nreasons < top) c->reasons[c->nreasons++] = S->reasons[j].r;
  }
  for (uint32_t k = 0; k < S->ncrowds; k++) {
    SpTraceClassSummary *c = &o->classes[k];
    if (!c->recorded) continue;
    for (uint32_t i = 0; i < S->slots[k]; i++) {
      Agent *a = &S->agents[k][i];
      if (!a->seen) continue;
      if (a->failing &&
          o->finish - a->last > (a->stuck ? a->to - a->from : 0)) {
        a->from = a->last;
        a->to = o->finish;
        a->stuck = 1;
        a->why_text = a->text;
        a->why_kind = a->kind;
      }
      if (a->stuck && a->to - a->from > 0) {
        SpTraceStuck st = {i, a->from, a->to, a->why_text, a->why_kind};
        uint32_t n = c->nstuck, at = n;
        while (at > 0 && stuck_before(&st, &c->stuck[at - 1])) at--;
        if (at < top) {
          uint32_t keep = n < top ? n + 1 : top;
          memmove(c->stuck + at + 1, c->stuck + at,
                  (keep - 1 - at) * sizeof st);
          c->stuck[at] = st;
          c->nstuck = keep;
        }
      }
      if (a->reached == 0) {
        if (c->nnever < SP_TRACE_LIST) c->never_agents[c->nnever++] = i;
        c->never++;
      }
    }
  }
  /* the texts move to the summary */
  o->texts = S->texts.v;
  o->ntexts = S->texts.n;
  o->cap_texts = S->texts.cap;
  S->texts.v = NULL;
  S->texts.n = S->texts.cap = 0;
  S->out = NULL;
  return o;
}
