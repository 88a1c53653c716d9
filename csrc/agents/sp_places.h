/* sp_places.h: private to csrc/agents/: places that take a limited number of agents: waiting in turn (queue.c, queue_index.c). */
#ifndef sp_places_h
#define sp_places_h

#include "sp_agents.h"

/* A waiter: who, since which wait began (its place in the list), for
 * what (a place id, or SP_QUEUE_KIND | kind) and which step. */
#define SP_QUEUE_KIND 0x80000000u

typedef struct Waiter {
  SpCrowd *crowd; /* NULL: a hole left by a dropped entry */
  uint32_t agent, gen;
  uint32_t key;
  int16_t act;
  uint32_t next; /* the next entry of the same key (queue_index.c) */
} Waiter;

/* What agent a waits for when step act finds place p (SP_NO_PLACE for a
 * kind) full; SP_NO_PLACE when no place can be named. */
uint32_t sp__queue_key(const SpCrowd *c, const Agent *a, int act, uint32_t p);

/* 1 while the waiter still waits (live, same slot generation, its wait
 * for room on that step not over): those that do not drop out of the
 * list as an update begins. */
int sp__queue_still_waits(const Waiter *e);

/* Serial: 1 when agent i may take a slot of key now: fewer agents wait
 * for it ahead of i than there are free slots. Drops no entry. */
int sp__queue_may_enter(SpCrowd *c, size_t i, uint32_t key);

/* Serial: agent i waits for key on step act; fresh: a new wait (to the
 * back of the line), else a retry that keeps its turn. Without memory it
 * waits without a turn until a later retry joins. */
void sp__queue_join(SpCrowd *c, size_t i, uint32_t key, int act, int fresh);

/* Agent i got in, or its slot is given up: out of the line. */
void sp__queue_leave(SpCrowd *c, size_t i);

void sp__queue_forget_crowd(SpWorld *w, const SpCrowd *c);

void sp__queue_free(SpWorld *w);

/* An update begins: turns read in the last one are read again, and the
 * list and its index are as a load leaves them. */
void sp__queue_next_update(SpWorld *w);

/* queue_index.c: finding a key's waiters and an agent's entry without
 * reading the whole list. The index is a cache: any change it cannot
 * follow (no memory, a rewritten list) marks it stale, and the next
 * lookup rebuilds it; a rebuild without memory leaves callers to read
 * the list in order. */
#define SP_QUEUE_END UINT32_MAX

typedef struct QueueLine {
  uint32_t key; /* SP_NO_PLACE: an empty slot */
  uint32_t head, tail;
  uint32_t count; /* its entries (holes not counted, stale ones are) */
  /* The cut (queue.c): read once per update, the waiters within the room
   * (cut_valid of them, the last one cut_last), kept current as waiters
   * get in and join; cut_whole when it holds the whole line. */
  uint64_t cut_update; /* 0: none read */
  uint32_t cut_last, cut_valid;
  int32_t cut_room;
  int cut_whole;
} QueueLine;

/* 1 when the index is current (rebuilt now if it was stale). */
int sp__queue_index_ready(SpWorld *w);

/* Marks the index stale unless its table has the size a rebuild from the
 * list would give it now. */
void sp__queue_index_settle(SpWorld *w);

/* Entry of agent i of crowd c, or SP_QUEUE_END (index ready). */
uint32_t sp__queue_index_find(const SpWorld *w, const SpCrowd *c, size_t i);

/* The line of key, or NULL when nobody waits for it (index ready). */
QueueLine *sp__queue_index_line(SpWorld *w, uint32_t key);

/* Entry k was appended / is being dropped (index ready or stale). */
void sp__queue_index_added(SpWorld *w, uint32_t k);

void sp__queue_index_removed(SpWorld *w, uint32_t k);

void sp__queue_index_free(SpWorld *w);

#endif
