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
  if (alone && a->chunk == chunk) { /* the cursor runs on into it */
    a->chunk = chunk + 1;
    return;
  }
  size_t lo = chunk * SP_CROWD_CHUNK;
  a->word = lo / 64;
  a->bits = c->awake[a->word] | c->due_marks[a->word];
  /* alone, the worker's next chunk is the next one: the cursor runs on
   * into it; with others, their chunks' bits are theirs to write */
  a->end = alone                        ? c->n
           : lo + SP_CROWD_CHUNK < c->n ? lo + SP_CROWD_CHUNK
                                        : c->n;
  a->chunk = alone ? chunk + 1 : SIZE_MAX;
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
