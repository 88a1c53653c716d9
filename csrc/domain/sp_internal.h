/* sp_internal.h: layout of a compiled domain, shared by the core's files. */
#ifndef sp_internal_h
#define sp_internal_h

#include <stddef.h>
#include <stdint.h>

#include "saspu.h"
#include "sp_alloc.h"

#define SP_NONE16 0xFFFFu

/* One variable. Its values are value_base .. value_base + value_count - 1
 * in the per-value table. Its cycles (one per weakly connected part of its
 * value graph that has one) lie one after the other at cycle_base in the
 * cycle table, each in cycle order from its lowest action id;
 * cycle_length counts the actions of all of them. */
typedef struct SpVarInfo {
  uint32_t value_base;
  uint32_t cycle_base;
  uint32_t name; /* offset into the name area */
  uint16_t value_count;
  uint16_t cycle_length;
  uint16_t cycle_count;
  uint16_t pad;
} SpVarInfo;

/* One (variable, value) pair. */
typedef struct SpValueInfo {
  uint32_t requester_base; /* actions whose prevail is this value ... */
  uint32_t requester_count;
  uint32_t name;
  uint16_t setter;       /* the action setting this value, SP_NONE16: ghost */
  uint16_t cycle_pos;    /* index in the variable's cycle table of the cycle
                         action that sets this value, SP_NONE16 if off it */
  uint16_t cycle_first;  /* where this value's cycle starts in that table */
  uint16_t cycle_length; /* and its number of actions */
} SpValueInfo;

typedef struct SpActionInfo {
  uint32_t prevail_base;
  uint32_t name;
  uint16_t variable;
  uint16_t prevail_count;
  uint8_t pre, post;
  uint8_t requestable;
  uint8_t pad;
} SpActionInfo;

typedef struct SpPrevail {
  uint16_t variable;
  uint8_t value;
  uint8_t pad;
  uint32_t value_index; /* global index into the per-value table */
} SpPrevail;

/* The compiled domain: this header, then every table, in one allocation.
 * Tables are addressed by byte offsets from the start of the block, so the
 * block holds no pointers into itself and can be copied as it is. */
struct SpDomain {
  SpAllocator alloc;
  size_t size;
  int variable_count;
  int action_count;
  int value_count; /* sum over variables */
  int prevail_count;
  SpClass class_;
  uint32_t name;
  size_t off_vars, off_values, off_actions, off_prevails;
  size_t off_requesters, off_cycles, off_names;
};

#define SP_TABLE(d, type, off) ((type *)((char *)(d) + (d)->off))

static inline const SpVarInfo *sp_vars(const SpDomain *d) {
  return (const SpVarInfo *)((const char *)d + d->off_vars);
}
static inline const SpValueInfo *sp_values(const SpDomain *d) {
  return (const SpValueInfo *)((const char *)d + d->off_values);
}
static inline const SpActionInfo *sp_actions(const SpDomain *d) {
  return (const SpActionInfo *)((const char *)d + d->off_actions);
}
static inline const SpPrevail *sp_prevails(const SpDomain *d) {
  return (const SpPrevail *)((const char *)d + d->off_prevails);
}
static inline const uint16_t *sp_requesters(const SpDomain *d) {
  return (const uint16_t *)((const char *)d + d->off_requesters);
}
static inline const uint16_t *sp_cycles(const SpDomain *d) {
  return (const uint16_t *)((const char *)d + d->off_cycles);
}
static inline const char *sp_names(const SpDomain *d) {
  return (const char *)d + d->off_names;
}

/* Allocation through the hook: sp__mem_alloc, sp__mem_free (base/sp_alloc.h). */

/* Arrays at least this large count only their pages in memory in the
 * stats (sp__mem_resident); smaller ones count whole. */
#if !defined(SP_RESIDENT_MIN)
#define SP_RESIDENT_MIN 65536u
#endif
/* The bytes of [p, p + bytes) on pages the process has in memory (an
 * untouched page of a large allocation holds none): what the array costs
 * the resident set. `bytes` where the system cannot tell (resident.c). */
size_t sp__mem_resident(const void *p, size_t bytes);
/* Hints that [p, p + bytes), not yet touched, is read at random (large
 * pages where the system has them; resident.c). */
void sp__mem_hint_random(void *p, size_t bytes);

#endif
