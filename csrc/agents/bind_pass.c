/* bind_pass.c: a frame's serial binding pass: places reserved and fields bound in agent order, with the answers the advance pass found (bind_hint.c). */
#define _POSIX_C_SOURCE 200809L
#include "sp_agents.h"
#include "sp_frame.h"
#include "sp_loop.h"
#include "sp_merge.h"
#include "sp_wheel.h"

/* The next chunk after t with agents flagged for binding (the chunk
 * count when none is left). */
static size_t next_flagged(const SpCrowd *c, size_t t, size_t chunks) {
  while (t < chunks && c->chunks[t].flagged == 0) t++;
  return t;
}

/* The agents of chunk t to bind, each with its answer from the advance
 * pass (both in agent order) or NULL. */
static size_t bind_list(const SpCrowd *c, size_t t, uint32_t *out,
                        BindHint **hint) {
  size_t lo = t * SP_CROWD_CHUNK, hi = lo + SP_CROWD_CHUNK;
  if (hi > c->n) hi = c->n;
  size_t nd = sp_chunk_with_flag(c, lo, hi, F_BIND, out);
  const ChunkRec *r = &c->chunks[t];
  BindHint *h = NULL, *end = NULL;
  if (r->hint_count > 0) {
    h = c->cw[r->hint_worker].hint + r->hint_start;
    end = h + r->hint_count;
  }
  for (size_t k = 0; k < nd; k++) {
    while (h != end && h->agent < out[k]) h++;
    hint[k] = h != end && h->agent == out[k] ? h : NULL;
  }
  return nd;
}

static void bind_fetch(const SpCrowd *c, uint32_t i, const BindHint *h) {
  if (h != NULL)
    sp__bind_hint_prefetch(c, h);
  else
    sp_agent_request(c, i);
}

/* Reservations and fields, in agent order (serial); binding touches only
 * the agent bound, so the agents to bind of a chunk and of the next one
 * are listed before the chunk's are bound, and their records fetched
 * SP_PREFETCH_AHEAD agents ahead across the chunks' edge (a chunk holds a
 * few agents to bind: without it, most would wait on memory). An agent
 * with an answer from the advance pass that still holds reads no record:
 * its place is reserved here, its rows written by PASS_COMMIT. Returns
 * the places so reserved. */
size_t sp__bind_pass(SpCrowd *c) {
  double tb = sp_frame_ms();
  size_t chunks = (c->n + SP_CROWD_CHUNK - 1) / SP_CROWD_CHUNK;
  Sink serial = {c, -1};
  uint32_t list[2][SP_CROWD_CHUNK];
  BindHint *hints[2][SP_CROWD_CHUNK];
  size_t taken = 0;
  size_t t = next_flagged(c, 0, chunks), cur = 0;
  size_t nd = t < chunks ? bind_list(c, t, list[cur], hints[cur]) : 0;
  for (size_t k = 0; k < nd && k < SP_PREFETCH_AHEAD; k++)
    bind_fetch(c, list[cur][k], hints[cur][k]);
  while (t < chunks) {
    const uint32_t *due = list[cur], *next = list[cur ^ 1];
    BindHint *const *hint = hints[cur], *const *hint2 = hints[cur ^ 1];
    uint32_t chunk_taken = 0;
    size_t t2 = next_flagged(c, t + 1, chunks);
    size_t nn =
        t2 < chunks ? bind_list(c, t2, list[cur ^ 1], hints[cur ^ 1]) : 0;
    for (size_t k = 0; k < nd; k++) {
      size_t ahead = k + SP_PREFETCH_AHEAD;
      if (ahead < nd)
        bind_fetch(c, due[ahead], hint[ahead]);
      else if (ahead - nd < nn)
        bind_fetch(c, next[ahead - nd], hint2[ahead - nd]);
      if (hint[k] == NULL || !sp__agent_bind_hinted(c, serial, hint[k]))
        sp__agent_bind(c, serial, due[k]);
      if (hint[k] != NULL && hint[k]->taken)
        chunk_taken++; /* its timer too waits for PASS_COMMIT */
      else
        sp__wheel_settle(c, -1, due[k]);
    }
    c->chunks[t].flagged = 0;
    c->chunks[t].taken = chunk_taken;
    taken += chunk_taken;
    t = t2, nd = nn, cur ^= 1;
  }
  sp__wheel_flush(c);
  sp__count_serial(c);
  c->ms_binding = sp_frame_ms() - tb;
  return taken;
}
