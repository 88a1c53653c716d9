/* sp_classify.h: class analysis of a compiled domain (internal to the core). */
#ifndef sp_classify_h
#define sp_classify_h

#include <stddef.h>

#include "saspu.h"

/* Lists in an explanation stop after this many entries ("and N more"). */
#if !defined(SP_EXPLAIN_MAX_NAMES)
#define SP_EXPLAIN_MAX_NAMES 8 /* requesters named per requestable action */
#endif
#if !defined(SP_EXPLAIN_MAX_ITEMS)
#define SP_EXPLAIN_MAX_ITEMS 64 /* cycles, requestable actions, problems */
#endif
#if !defined(SP_EXPLAIN_MAX_CUTS)
#define SP_EXPLAIN_MAX_CUTS 8 /* prevails named to cut one problem's paths */
#endif

/* Classifies a compiled domain into the smallest of SAS-PUC0, SAS-PUCS2
 * and SAS-PUC*2 that holds it, or SP_CLASS_OUTSIDE (IJCAI 2023, Defs 1-7).
 * A variable may have several cycles (one per weakly connected part of
 * its domain-action graph); each is judged on its own for C2, CS2 and
 * C*2, and in the C*2 test G(v) is all of v's actions and ghosts.
 * One reading goes beyond the letter of Def. 7: in the C*2 test, values
 * that no action sets (ghosts) are nodes of the action graph, linked to
 * the actions whose pre or prevail they are; without them a domain can
 * pass the test although one of its instances needs a repeated action.
 * Uses only the accessors of saspu.h, all of which must be valid except
 * sp_domain_class and sp_domain_explain. Writes a readable explanation
 * to buf with snprintf semantics (buf may be NULL when size is 0);
 * *needed (if not NULL) receives its full length. For "outside" the first
 * problem is summed up within the first ~400 characters; a cycle is named
 * by its variable, and by its actions too when the variable has several.
 * With no text asked for (buf NULL or size 0, needed NULL) nothing is
 * formatted, and memory is taken only when some 2-cycle has both actions
 * requestable (the C*2 search needs G). Scratch memory (one block,
 * O(|A| + |E_A|)) goes through alloc and is freed before returning. Time:
 * one sp_variable_cycle_action call per cycle (its other actions are
 * found through setters), O(|A| + |E_A|) to build the action graph, then
 * per cycle whose two actions are both requestable a two-sided search
 * that stops with the smaller side, at most O(|A| + |E_A|).
 * Returns SP_OK, or SP_ERR_MEMORY (then *cls is untouched, buf holds an
 * empty string when size > 0 and *needed is 0). */
SpStatus sp__classify(const SpDomain *d, SpAllocator alloc, SpClass *cls,
                      char *buf, size_t size, size_t *needed);

#endif
