/* fuzz_trace.c: libFuzzer harness: any bytes given to the trace reader are read or refused, never crash, and leak nothing; what it reads keeps its bounds; read from a file a chunk at a time and summed up, they give what the whole read gives. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "saspu_record.h"
#include "test_alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same bytes in a file read a chunk at a time (sp_trace_read_file),
 * keeping agent 0 of crowd 0 when it can be, summed up with a density: the
 * same problems and event count as the whole read `w`, the summary
 * sp_trace_summarize makes of `w`, the kept events those of `w`. */
static void streamed(const uint8_t *data, size_t size, const SpTrace *w) {
  static char path[64];
  if (path[0] == '\0')
    snprintf(path, sizeof path, "/tmp/fuzz_trace_%ld.trace", (long)getpid());
  FILE *f = fopen(path, "wb");
  if (f == NULL) return;
  size_t put = fwrite(data, 1, size, f);
  fclose(f);
  if (put != size) return;
  TestAlloc ta;
  test_alloc_init(&ta, 0);
  SpTraceKeep keep = {0, 0};
  uint32_t frames[3] = {0, 2, 5};
  SpTraceReadOptions opt;
  memset(&opt, 0, sizeof opt);
  opt.stream = 1;
  opt.summary = 1;
  opt.top = 3;
  opt.period = 1.5;
  opt.keep = &keep;
  opt.nkeep = w->ncrowds > 0 && w->crowds[0].slots > 0;
  opt.keyframes = frames;
  opt.nkeyframes = 3;
  opt.bin = 2;
  opt.bw = opt.bh = 8;
  opt.twice_above = size % 2; /* odd: every chunk checked, then by blocks */
  SpTrace *t = NULL;
  SpError err;
  if (sp_trace_read_file(path, &opt, test_alloc_hook(&ta), &t, &err) != SP_OK)
    abort();
  if (strcmp(t->problems, w->problems) != 0 || t->all_events != w->nevents ||
      t->all_cells != w->ncells || t->nframes != w->nframes)
    abort();
  size_t j = 0;
  for (size_t k = 0; k < w->nevents; k++) {
    const SpTraceEvent *e = &w->events[k];
    if (opt.nkeep == 0 || e->crowd != 0 || e->agent != 0) continue;
    if (j >= t->nevents || t->events[j].frame != e->frame ||
        t->events[j].kind != e->kind || t->events[j].detail != e->detail)
      abort();
    j++;
  }
  if (j != t->nevents) abort();
  SpTraceSummary *s;
  if (sp_trace_summarize(w, &opt, &s, &err) != SP_OK) abort();
  const SpTraceSummary *u = t->summary;
  if (u == NULL || s->ncrowds != u->ncrowds || s->nperiods != u->nperiods ||
      s->ntexts != u->ntexts ||
      memcmp(&s->finish, &u->finish, sizeof s->finish) != 0)
    abort();
  for (uint32_t k = 0; k < s->ncrowds; k++) {
    const SpTraceClassSummary *a = &s->classes[k], *b = &u->classes[k];
    if (a->agents != b->agents || a->goals != b->goals ||
        a->reached != b->reached || a->never != b->never ||
        a->nreasons != b->nreasons || a->nstuck != b->nstuck)
      abort();
    for (uint32_t r = 0; r < a->nreasons; r++)
      if (a->reasons[r].count != b->reasons[r].count ||
          a->reasons[r].text != b->reasons[r].text)
        abort();
  }
  for (size_t k = 0; k < s->nperiods * s->nkinds; k++)
    if (s->counts[k] != u->counts[k]) abort();
  for (size_t k = 0; k < u->nkeyframes * u->ncrowds * u->bw * u->bh; k++)
    if (u->density[k] > w->crowds[k / (u->bw * u->bh) % u->ncrowds].slots)
      abort();
  sp_trace_summary_free(s);
  sp_trace_free(t);
  if (ta.live != 0) abort();
}

/* Input: the trace's bytes. A read trace's events, cells and notes must
 * name frames and crowds it has, its problems end in a NUL, and freeing
 * it returns every block. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  TestAlloc ta;
  SpTrace *t = NULL;
  SpError err;
  if (size > (1u << 20)) return 0;
  test_alloc_init(&ta, 0);
  SpStatus st = sp_trace_read(data, size, test_alloc_hook(&ta), &t, &err);
  if (st != SP_OK) {
    if (t != NULL || ta.live != 0 || err.message[0] == '\0') abort();
    return 0;
  }
  for (size_t k = 0; k < t->nevents; k++)
    if (t->events[k].frame >= t->nframes || t->events[k].crowd >= t->ncrowds ||
        t->events[k].kind >= t->nkinds || t->events[k].reason >= t->nreasons)
      abort();
  for (size_t k = 0; k < t->ncells; k++)
    if (t->cells[k].frame >= t->nframes || t->cells[k].crowd >= t->ncrowds)
      abort();
  for (size_t k = 0; k < t->nnotes; k++)
    if (t->notes[k].event >= t->nevents || t->notes[k].text == NULL) abort();
  for (size_t k = 0; k < t->nfact_changes; k++)
    if (t->fact_changes[k].fact >= t->nfacts) abort();
  if (strlen(t->problems) != t->problems_len) abort();
  streamed(data, size, t);
  sp_trace_free(t);
  if (ta.live != 0) abort();
  return 0;
}
