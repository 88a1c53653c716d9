/* trace_scan.c: a trace read with options: what a streamed read keeps (the kept agents' events, cells, notes, sensed values and snapshot cells), the sums made while reading, sp_trace_summarize. */
#include <stdint.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_error.h"
#include "sp_record.h"

typedef struct SpTraceScan SpTraceScan;
struct SpTraceScan {
  SpTraceReadOptions opt; /* keep and keyframes: copies, owned */
  SpSum *sum;
  uint64_t *base; /* per crowd: its first bit in keep */
  uint8_t *keep;  /* one bit per agent of every crowd */
  size_t nkeep_bytes, nkeyframes;
  uint32_t *keyframes;
};

void sp__scan_free(SpTrace *t) {
  SpTraceScan *sc = t->scan;
  if (sc == NULL) return;
  SpAllocator a = t->alloc;
  sp__sum_free(sc->sum);
  if (sc->base) sp__mem_free(a, sc->base, (t->ncrowds + 1) * sizeof *sc->base);
  if (sc->keep) sp__mem_free(a, sc->keep, sc->nkeep_bytes);
  if (sc->keyframes)
    sp__mem_free(a, sc->keyframes, sc->nkeyframes * sizeof *sc->keyframes + 1);
  sp__mem_free(a, sc, sizeof *sc);
  t->scan = NULL;
}

static int kept(const SpTraceScan *sc, uint32_t crowd, uint32_t agent) {
  uint64_t bit = sc->base[crowd] + agent;
  return sc->keep[bit >> 3] >> (bit & 7) & 1;
}

SpStatus sp__scan_start(SpTrace *t, const SpTraceReadOptions *opt,
                        SpError *err) {
  SpAllocator a = t->alloc;
  SpTraceScan *sc = sp__mem_alloc(a, sizeof *sc);
  if (sc == NULL) return sp__error_memory(err);
  memset(sc, 0, sizeof *sc);
  t->scan = sc;
  sc->opt = *opt;
  sc->opt.keep = NULL;
  sc->opt.keyframes = NULL;
  sc->base = sp__mem_alloc(a, (t->ncrowds + 1) * sizeof *sc->base);
  if (sc->base == NULL) return sp__error_memory(err);
  uint64_t bits = 0;
  for (uint32_t k = 0; k < t->ncrowds; k++) {
    sc->base[k] = bits;
    bits += t->crowds[k].slots;
  }
  sc->nkeep_bytes = (size_t)(bits / 8 + 1);
  sc->keep = sp__mem_alloc(a, sc->nkeep_bytes);
  if (sc->keep == NULL) return sp__error_memory(err);
  memset(sc->keep, 0, sc->nkeep_bytes);
  for (size_t j = 0; j < opt->nkeep; j++) {
    const SpTraceKeep *kp = &opt->keep[j];
    if (kp->crowd >= t->ncrowds || kp->agent >= t->crowds[kp->crowd].slots)
      return sp__error_set(err, SP_ERR_INVALID, SP_E_NONE, SP_FIELD_NONE,
                           "trace: no agent %lu in crowd %lu to keep (%lu "
                           "crowds)",
                           (unsigned long)kp->agent + 1,
                           (unsigned long)kp->crowd + 1,
                           (unsigned long)t->ncrowds);
    uint64_t bit = sc->base[kp->crowd] + kp->agent;
    sc->keep[bit >> 3] |= (uint8_t)(1u << (bit & 7));
  }
  if (opt->nkeyframes > 0) {
    sc->keyframes =
        sp__mem_alloc(a, opt->nkeyframes * sizeof *sc->keyframes + 1);
    if (sc->keyframes == NULL) return sp__error_memory(err);
    memcpy(sc->keyframes, opt->keyframes,
           opt->nkeyframes * sizeof *sc->keyframes);
    sc->nkeyframes = opt->nkeyframes;
    sc->opt.keyframes = sc->keyframes;
  }
  if (opt->summary || opt->nkeyframes > 0)
    return sp__sum_new(t, &sc->opt, &sc->sum, err);
  return SP_OK;
}

void sp__trace_snapshot_free(const SpTrace *t, SpTraceSnapshot *s) {
  uint32_t n = s->agents != NULL ? s->nkept : s->count;
  sp__mem_free(t->alloc, s->cells, (n ? n : 1) * sizeof(uint32_t));
  if (s->agents != NULL)
    sp__mem_free(t->alloc, s->agents, (n ? n : 1) * sizeof(uint32_t));
  s->cells = s->agents = NULL;
}

/* Keeps only the kept agents' cells of snapshot s; 0: out of memory. */
static int thin_snapshot(SpTrace *t, SpTraceSnapshot *s) {
  const SpTraceScan *sc = t->scan;
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->count; i++) n += (uint32_t)kept(sc, s->crowd, i);
  uint32_t *cells = sp__mem_alloc(t->alloc, (n ? n : 1) * sizeof *cells);
  uint32_t *agents = sp__mem_alloc(t->alloc, (n ? n : 1) * sizeof *agents);
  if (cells == NULL || agents == NULL) {
    if (cells) sp__mem_free(t->alloc, cells, (n ? n : 1) * sizeof *cells);
    if (agents) sp__mem_free(t->alloc, agents, (n ? n : 1) * sizeof *agents);
    return 0;
  }
  uint32_t j = 0;
  for (uint32_t i = 0; i < s->count; i++)
    if (kept(sc, s->crowd, i)) {
      agents[j] = i;
      cells[j++] = s->cells[i];
    }
  sp__trace_snapshot_free(t, s);
  s->cells = cells;
  s->agents = agents;
  s->nkept = n;
  return 1;
}

/* Drops what a streamed read does not keep of what came since `b`. */
static void thin(SpTrace *t, const SpTraceMark *b) {
  const SpTraceScan *sc = t->scan;
  size_t n = b->events, note = b->notes, nn = b->notes;
  for (size_t i = b->events; i < t->nevents; i++) {
    const SpTraceEvent *e = &t->events[i];
    int keep = kept(sc, e->crowd, e->agent);
    for (; note < t->nnotes && t->notes[note].event == i; note++) {
      if (keep) {
        t->notes[nn] = t->notes[note];
        t->notes[nn++].event = n;
      } else {
        sp__mem_free(t->alloc, t->notes[note].text,
                     strlen(t->notes[note].text) + 1);
      }
    }
    if (keep) t->events[n++] = *e;
  }
  t->nevents = n;
  t->nnotes = nn;
  n = b->cells;
  for (size_t i = b->cells; i < t->ncells; i++)
    if (kept(sc, t->cells[i].crowd, t->cells[i].agent))
      t->cells[n++] = t->cells[i];
  t->ncells = n;
  n = b->sensed;
  for (size_t i = b->sensed; i < t->nsensed; i++)
    if (kept(sc, t->sensed[i].crowd, t->sensed[i].agent))
      t->sensed[n++] = t->sensed[i];
  t->nsensed = n;
}

int sp__scan_chunk(SpTrace *t, const SpTraceMark *b) {
  SpTraceScan *sc = t->scan;
  t->all_events += t->nevents - b->events;
  t->all_cells += t->ncells - b->cells;
  t->all_sensed += t->nsensed - b->sensed;
  for (size_t s = b->snapshots; s < t->nsnapshots; s++) {
    if (sc->sum) sp__sum_snapshot(sc->sum, &t->snapshots[s], sc->opt.bin);
    if (sc->opt.stream && !thin_snapshot(t, &t->snapshots[s])) return 0;
  }
  if (sc->sum) {
    if (!sp__sum_events(sc->sum, t, b->events, t->nevents, b->notes)) return 0;
    sp__sum_cells(sc->sum, t, b->cells, t->ncells, sc->opt.bin);
  }
  if (sc->opt.stream) thin(t, b);
  return 1;
}

size_t sp__scan_twice_above(const SpTrace *t) {
  const SpTraceScan *sc = t->scan;
  if (sc == NULL || !sc->opt.stream) return SIZE_MAX;
  return sc->opt.twice_above ? sc->opt.twice_above : SP_TRACE_TWICE_ABOVE;
}

int sp__scan_finish(SpTrace *t) {
  SpTraceScan *sc = t->scan;
  if (sc->sum != NULL) {
    t->summary = sp__sum_finish(sc->sum, t);
    if (t->summary == NULL) return 0;
  }
  sp__scan_free(t);
  return 1;
}

SpStatus sp_trace_summarize(const SpTrace *t, const SpTraceReadOptions *opt,
                            SpTraceSummary **out, SpError *err) {
  sp__error_clear(err);
  *out = NULL;
  SpTraceReadOptions o;
  memset(&o, 0, sizeof o);
  if (opt != NULL) {
    o.top = opt->top;
    o.period = opt->period;
  }
  SpSum *S;
  SpStatus st = sp__sum_new(t, &o, &S, err);
  if (st != SP_OK) return st;
  if (!sp__sum_events(S, t, 0, t->nevents, 0)) {
    sp__sum_free(S);
    return sp__error_memory(err);
  }
  sp__sum_cells(S, t, 0, t->ncells, 1);
  *out = sp__sum_finish(S, t);
  sp__sum_free(S);
  return *out != NULL ? SP_OK : sp__error_memory(err);
}
