/* ahead.c: the advance pass's look-ahead: requests the memory of the awake agents a worker visits next, some agents before their visit. */
#include "sp_agents.h"
#include "sp_ahead.h"

/* The next awake agent at or after the cursor, below its end; 0 when
 * none is left. */
static int next_awake(const SpCrowd *c, Ahead *a, size_t *j) {
  while (a->bits == 0) {
    if ((a->word + 1) * 64 >= a->end) return 0;
    ++a->word;
    a->bits = c->awake[a->word] | c->due_marks[a->word];
  }
  *j = a->word * 64 + (size_t)__builtin_ctzll(a->bits);
  a->bits &= a->bits - 1;
  return *j < a->end;
}

void sp__ahead_reset(SpCrowd *c) {
  for (int k = 0; k < c->workers; k++) c->cw[k].ahead.chunk = SIZE_MAX;
}

void sp__ahead_chunk(SpCrowd *c, Ahead *a, size_t chunk, int alone) {
  /* alone, every chunk is the worker's: the cursor runs on through the
   * crowd; with others, through the chunks of the run it claimed, whose
   * bits no other worker writes (the rest may be claimed by another) */
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  size_t last = alone || a->run_end > chunks ? chunks : a->run_end;
  if (a->chunk == chunk) { /* the cursor runs on into it */
    a->chunk = chunk + 1 < last ? chunk + 1 : SIZE_MAX;
    return;
  }
  size_t lo = chunk * SP_CROWD_CHUNK;
  a->word = lo / 64;
  a->bits = c->awake[a->word] | c->due_marks[a->word];
  a->end = last * SP_CROWD_CHUNK < c->n ? last * SP_CROWD_CHUNK : c->n;
  a->chunk = chunk + 1 < last ? chunk + 1 : SIZE_MAX;
  for (int k = 0; k < SP_AHEAD_AGENTS; k++) sp__ahead_next(c, a);
}

size_t sp__ahead_next(const SpCrowd *c, Ahead *a) {
  size_t j;
  if (!next_awake(c, a, &j)) {
    a->bits = 0;
    a->word = (a->end + 63) / 64; /* spent */
    return SIZE_MAX;
  }
  sp_agent_request(c, j);
  return j;
}
