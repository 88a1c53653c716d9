/* saspu.h: public C API of the saspu planner core (no Lua here). */
#ifndef saspu_h
#define saspu_h

#include <stddef.h>
#include <stdint.h>

#include "saspu_limits.h"

/* SP_API marks the public functions: the core is compiled with hidden
 * visibility, so libsaspu.so exports these and nothing internal. */
#if !defined(SP_API)
#if defined(__GNUC__) || defined(__clang__)
#define SP_API __attribute__((visibility("default")))
#else
#define SP_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Memory                                                             */
/* ------------------------------------------------------------------ */

/* Same shape as lua_Alloc: nsize 0 frees, otherwise (re)allocates.
 * The Lua binding passes lua_getallocf; tests pass counting or failing
 * allocators. NULL in SpAllocator.fn means the C library's realloc/free. */
typedef void *(*SpAllocFn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct SpAllocator {
  SpAllocFn fn;
  void *ud;
} SpAllocator;

/* ------------------------------------------------------------------ */
/* Status codes and the error record                                  */
/* ------------------------------------------------------------------ */

typedef enum SpStatus {
  SP_OK = 0,
  SP_ERR_MEMORY,  /* the allocator returned NULL */
  SP_ERR_INVALID, /* the domain description breaks a rule (see SpErrorCode) */
  SP_ERR_CLASS, /* the domain is outside SAS-PUC0/CS2/C*2 and was not allowed */
  SP_ERR_STATE, /* a start or goal value is out of range */
  SP_NO_PLAN    /* the instance has no plan; SpFailure says why */
} SpStatus;

typedef enum SpErrorCode {
  SP_E_NONE = 0,
  SP_E_MEMORY,
  SP_E_LIMIT,              /* a size over a documented limit */
  SP_E_EMPTY_NAME,         /* a missing or empty name */
  SP_E_DUPLICATE_VARIABLE, /* two variables with one name */
  SP_E_DUPLICATE_VALUE,    /* two values of one variable with one name */
  SP_E_DUPLICATE_ACTION,   /* two actions with one name */
  SP_E_NO_VALUES,          /* a variable with fewer than 2 values */
  SP_E_UNKNOWN_VARIABLE,   /* a variable index out of range */
  SP_E_VALUE_RANGE,        /* a value index out of range for its variable */
  SP_E_PRE_EQUALS_POST,    /* pre == post */
  SP_E_PREVAIL_OWN_VAR,    /* a prevail on the action's own variable */
  SP_E_PREVAIL_TWICE,      /* two prevails on one variable in one action */
  SP_E_POST_NOT_UNIQUE,    /* two actions set one variable to one value */
  SP_E_OUTSIDE_CLASS,      /* class analysis: not in a tractable class */
  SP_E_STATE_LENGTH,       /* start/goal: wrong number of values */
  SP_E_STATE_VALUE         /* start/goal: a value out of range */
} SpErrorCode;

/* Which field of an action or variable an error is about. */
typedef enum SpField {
  SP_FIELD_NONE = 0,
  SP_FIELD_NAME,
  SP_FIELD_VALUES,
  SP_FIELD_VAR,
  SP_FIELD_PRE,
  SP_FIELD_POST,
  SP_FIELD_PREVAIL,
  SP_FIELD_START,
  SP_FIELD_GOAL
} SpField;

#define SP_ERROR_MESSAGE_SIZE 1024

/* Filled by every core function that can fail. Indices are -1 when not
 * relevant. `message` is a complete sentence that names the action, field
 * and value with their declared names, e.g.
 *   actions[3] 'fill_feeder': post 7 is out of range for 'haystack' (3 values) */
typedef struct SpError {
  SpStatus status;
  SpErrorCode code;
  SpField field;
  int action;       /* index of the action at fault */
  int other_action; /* the action it clashes with (duplicates, post-uniqueness) */
  int variable;     /* index of the variable involved */
  int value;        /* the offending value (index) */
  int index;        /* position inside the field (e.g. which prevail) */
  char message[SP_ERROR_MESSAGE_SIZE];
} SpError;

SP_API const char *sp_status_name(SpStatus status);

/* ------------------------------------------------------------------ */
/* Domain description (input)                                         */
/* ------------------------------------------------------------------ */

typedef struct SpVariableSpec {
  const char *name;
  int value_count;
  const char *const *value_names; /* value_count names */
} SpVariableSpec;

typedef struct SpCondition {
  int variable;
  int value;
} SpCondition;

typedef struct SpActionSpec {
  const char *name;
  int variable; /* the one variable the action changes */
  int pre;      /* its value before */
  int post;     /* its value after */
  int prevail_count;
  const SpCondition *prevails; /* values of other variables held throughout */
} SpActionSpec;

typedef struct SpDomainSpec {
  const char *name;
  int variable_count;
  const SpVariableSpec *variables;
  int action_count;
  const SpActionSpec *actions;
} SpDomainSpec;

/* ------------------------------------------------------------------ */
/* Compiled domain                                                    */
/* ------------------------------------------------------------------ */

typedef enum SpClass {
  SP_CLASS_C0 = 0, /* "SAS-PUC0" */
  SP_CLASS_CS2,    /* "SAS-PUCS2" */
  SP_CLASS_CSTAR2, /* "SAS-PUC*2" */
  SP_CLASS_OUTSIDE /* "outside" */
} SpClass;

SP_API const char *sp_class_name(SpClass c);

typedef struct SpCompileOptions {
  /* Accept a domain outside the tractable classes. Plans are then not
   * guaranteed: an instance may be reported unsolvable although a plan
   * with repeated actions exists. */
  int allow_outside;
} SpCompileOptions;

typedef struct SpDomain SpDomain;

/* Validates `spec`, analyses its class and compiles it into one contiguous
 * block. On success *out owns the block (free with sp_domain_free). On
 * failure *out is NULL, nothing is leaked and `err` says what is wrong.
 * `opts` may be NULL (defaults: outside is an error). */
SP_API SpStatus sp_domain_compile(const SpDomainSpec *spec,
                                  const SpCompileOptions *opts,
                                  SpAllocator alloc, SpDomain **out,
                                  SpError *err);

SP_API void sp_domain_free(SpDomain *d);

/* Introspection; indices are in declaration order. */
SP_API const char *sp_domain_name(const SpDomain *d);
SP_API int sp_domain_variable_count(const SpDomain *d);
SP_API int sp_domain_action_count(const SpDomain *d);
SP_API size_t sp_domain_size_bytes(const SpDomain *d);
SP_API const char *sp_variable_name(const SpDomain *d, int var);
SP_API int sp_variable_value_count(const SpDomain *d, int var);
SP_API const char *sp_value_name(const SpDomain *d, int var, int value);
SP_API const char *sp_action_name(const SpDomain *d, int action);
SP_API int sp_action_variable(const SpDomain *d, int action);
SP_API int sp_action_pre(const SpDomain *d, int action);
SP_API int sp_action_post(const SpDomain *d, int action);
SP_API int sp_action_prevail_count(const SpDomain *d, int action);
SP_API SpCondition sp_action_prevail(const SpDomain *d, int action, int i);
/* The action that sets var to value, or -1 (a ghost). */
SP_API int sp_domain_setter(const SpDomain *d, int var, int value);
/* Is this action's post value the prevail of another action? */
SP_API int sp_action_is_requestable(const SpDomain *d, int action);
/* Cycles of var's domain-action graph: one per weakly connected part of
 * it that has one (a single one when the graph is connected, as in the
 * papers). Each is listed in cycle order starting from its lowest action
 * id; Cycle(var) in the papers is cycle 0. */
SP_API int sp_variable_cycle_count(const SpDomain *d, int var);
SP_API int sp_variable_cycle_length(const SpDomain *d, int var, int cycle);
SP_API int sp_variable_cycle_action(const SpDomain *d, int var, int cycle,
                                    int i);

/* Class analysis, done at compile time. */
SP_API SpClass sp_domain_class(const SpDomain *d);
/* A readable explanation: the class and why (cycles, requestable actions,
 * and for "outside": which cycle, who requests it, the connecting path).
 * Returns the full length like snprintf. */
SP_API size_t sp_domain_explain(const SpDomain *d, char *buf, size_t size);

/* The class problems of an outside domain, as sp_domain_explain lists
 * them: a cycle of `variable` (its cycle number `cycle`) that is longer
 * than 2 and holds a requested action (connected 0), or a 2-cycle whose
 * two actions are requested by connected groups (connected 1). Fills up
 * to max entries and returns how many problems there are: 0 for a domain
 * in a class, -1 when memory ran out. For tools: it rebuilds the action
 * graph each call (linear time, one allocation through the domain's). */
typedef struct SpProblem {
  int variable, cycle, connected;
} SpProblem;
SP_API int sp_domain_problems(const SpDomain *d, SpProblem *out, int max);

/* One node of a connecting path: an action, or (action -1) a value that
 * no action sets; variable = value is what the node sets. `prevail` and
 * `forward` describe the edge from the node before (0 for the first):
 * a prevail edge (else pre), pointing along the path (else against). */
typedef struct SpPathNode {
  int action, variable, value, prevail, forward;
} SpPathNode;
/* The first path that connects the two requester groups of problem
 * `problem` (0-based, a connected one): fills up to max nodes from a
 * requester of the cycle's first action to one of its second; returns the
 * node count (0 for a long cycle or no such problem, -1 out of memory). */
SP_API int sp_domain_problem_path(const SpDomain *d, int problem,
                                  SpPathNode *out, int max);

/* ------------------------------------------------------------------ */
/* Planning                                                           */
/* ------------------------------------------------------------------ */

/* States are arrays of one byte per variable, in declaration order. */
typedef uint8_t SpValue;

/* In a goal: "don't care", the variable may end with any value. Never a
 * real value (SP_MAX_VALUES is 255), never allowed in a start state. */
#define SP_ANY ((SpValue)0xFF)

typedef enum SpFailureCode {
  SP_FAIL_NONE = 0,
  SP_FAIL_NO_SETTER,   /* no action sets variable=value (a ghost) */
  SP_FAIL_UNREACHABLE, /* variable=value needed by `action` cannot be
                            reached on the way from start to goal */
  SP_FAIL_REPEAT,      /* `action` would be needed twice */
  SP_FAIL_ORDER        /* the orders between actions form a cycle:
                            `action` and `other_action` lie on it */
} SpFailureCode;

typedef struct SpFailure {
  SpFailureCode code;
  int action;       /* the action whose need failed, or -1 for the goal */
  int other_action; /* second action involved, or -1 */
  int variable;
  int value;
  int free_variable; /* 1 when the goal leaves `variable` free (SP_ANY) */
} SpFailure;

/* Writes a readable sentence with the domain's names. snprintf-like. */
SP_API size_t sp_failure_format(const SpDomain *d, const SpFailure *f,
                                char *buf, size_t size);

/* What blocks a goal, in the domain's words: one variable whose value
 * now (`current`) has no way toward a value that every plan needs
 * (`needed`: the goal's own value of the variable, or a prevail of an
 * action on the only way to a needed value), and the missing link: an
 * action setting `variable` from `link_from` to `link_to` would open
 * that way. Found by following each needed value's unique setter chain
 * (post-uniqueness) back toward the current value, so a named blocker
 * is one for certain: no plan exists while it stands.
 *   SP_BLOCK_NOTHING_SETS  no action sets `needed` at all
 *   SP_BLOCK_NO_WAY_OUT    the chain to `needed` begins at a value no
 *                          action sets (`link_to`), or loops without
 *                          passing `current`
 *   SP_BLOCK_ORDER         every needed value is reachable on its own,
 *                          yet no order of the needed actions works: the
 *                          planner's failure (`failure`) says which need
 *                          fails; `variable`/`needed` are its need and
 *                          there is no single missing link (link_* -1). */
typedef enum SpBlockerKind {
  SP_BLOCK_NONE = 0,
  SP_BLOCK_NOTHING_SETS,
  SP_BLOCK_NO_WAY_OUT,
  SP_BLOCK_ORDER
} SpBlockerKind;

typedef struct SpBlocker {
  SpBlockerKind kind;
  int variable, current, needed;
  int action;             /* the action whose prevail needs it; -1: the goal */
  int link_from, link_to; /* the missing link, or -1 */
  SpFailure failure;      /* the planner's own reason (SP_BLOCK_ORDER) */
  /* 0: it blocks the goal. k > 0: the goal has several choices
   * (sp_plan_any_blocker) and none of their blockers is known to block
   * them all: this one blocks choice k (1-based) */
  int only_choice;
} SpBlocker;

/* Bytes of scratch sp_plan_blocker needs for domain d. */
SP_API size_t sp_blocker_scratch_size(const SpDomain *d);
/* The blocker of (s0, goal), which have no plan: `failure` is the
 * planner's reason for it (kept in out->failure). Allocates nothing;
 * `scratch` holds sp_blocker_scratch_size(d) bytes. O(values + prevails).
 * Returns out->kind (SP_BLOCK_NONE only when a plan exists). */
SP_API SpBlockerKind sp_plan_blocker(const SpDomain *d, const SpValue *s0,
                                     const SpValue *goal,
                                     const SpFailure *failure, void *scratch,
                                     SpBlocker *out);
/* A readable sentence with the domain's names. snprintf-like. */
SP_API size_t sp_blocker_format(const SpDomain *d, const SpBlocker *b,
                                char *buf, size_t size);
/* The missing link as a phrase ("an action setting outlaw from escaped
 * to at_large"), empty when there is none. snprintf-like. */
SP_API size_t sp_blocker_link_format(const SpDomain *d, const SpBlocker *b,
                                     char *buf, size_t size);

/* Scratch space for planning with one domain. One per thread; reusable
 * for any number of plans; planning itself never allocates. */
typedef struct SpWorkspace SpWorkspace;

SP_API SpStatus sp_workspace_new(const SpDomain *d, SpAllocator alloc,
                                 SpWorkspace **out, SpError *err);
SP_API void sp_workspace_free(SpWorkspace *ws);
SP_API size_t sp_workspace_size_bytes(const SpWorkspace *ws);

/* Plans from s0 (a total state) to goal. On SP_OK, plan[0..*len-1]
 * are action ids; `plan` must hold sp_domain_action_count(d) entries.
 * On SP_NO_PLAN, *failure (if not NULL) says why. SP_ERR_STATE when a
 * value is out of range (then failure->variable/value say which).
 * A goal is a condition: SP_ANY entries are free, and the plan is a
 * shortest one, without repeated action, among the plans ending in any
 * state that matches the other entries. To keep a variable's start value
 * write s0[v] in the goal. A total goal (no SP_ANY) is planned in
 * O(|A| + |E_A|); a partial one as explained in csrc/plan/partial.c. */
SP_API SpStatus sp_plan(const SpDomain *d, SpWorkspace *ws, const SpValue *s0,
                        const SpValue *goal, uint16_t *plan, int *len,
                        SpFailure *failure);

/* Most goals one sp_plan_any call weighs: a goal whose variables take
 * sets of values ("any of") is one goal per combination of its members. */
#if !defined(SP_GOAL_CHOICES_MAX)
#define SP_GOAL_CHOICES_MAX 64
#endif

/* Plans from s0 to the nearest state matching ANY of `count` goals
 * (`goals`: count * m values, each one a goal as sp_plan takes it, SP_ANY
 * allowed). A state matching the disjunction matches one of the goals,
 * so the shortest of their shortest plans is a shortest plan to it: each
 * goal is planned and the shortest plan kept, the earliest goal among
 * equal lengths. *which (may be NULL) receives that goal's index, -1
 * without a plan. SP_NO_PLAN when no goal has a plan: *failure is then
 * the first goal's reason. SP_ERR_STATE for a value out of range (in the
 * first goal that has one) or a count outside 1..SP_GOAL_CHOICES_MAX
 * (failure->variable -1). Allocates nothing; costs count sp_plan calls
 * and one more when the best goal is not the last planned. The
 * workspace's orders are the returned plan's. */
SP_API SpStatus sp_plan_any(const SpDomain *d, SpWorkspace *ws,
                            const SpValue *s0, const SpValue *goals, int count,
                            uint16_t *plan, int *len, int *which,
                            SpFailure *failure);

/* What blocks every one of `count` goals (sp_plan_any's), none of which
 * has a plan: the blocker of the first goal (sp_plan_blocker with its
 * planner's reason) that names a value every goal asks of its variable
 * (the goal's own value, action -1, SP_BLOCK_NOTHING_SETS or
 * SP_BLOCK_NO_WAY_OUT): no plan reaches that value while it stands, so
 * no goal has one. Without such a blocker, the first goal's, with
 * only_choice 1 (it blocks that goal; other goals have their own). Plans
 * each goal once with ws into `plan` (sp_domain_action_count entries);
 * `scratch` as for sp_plan_blocker. SP_BLOCK_NONE when a goal has a
 * plan; count outside 1..SP_GOAL_CHOICES_MAX or a value out of range
 * also give SP_BLOCK_NONE, with out->variable -1. */
SP_API SpBlockerKind sp_plan_any_blocker(const SpDomain *d, SpWorkspace *ws,
                                         const SpValue *s0,
                                         const SpValue *goals, int count,
                                         uint16_t *plan, void *scratch,
                                         SpBlocker *out);
/* 1 when blocker b (of goals[0..count), SP_BLOCK_NOTHING_SETS or
 * SP_BLOCK_NO_WAY_OUT) names a goal value every one of the goals asks:
 * then it blocks them all. */
SP_API int sp_blocker_blocks_all(const SpBlocker *b, const SpValue *goals,
                                 int count, int m);

/* The partial order the last sp_plan call built, for debugging. */
typedef enum SpOrderKind {
  SP_ORDER_PRE = 0, /* from chains: post(from) = pre(to) */
  SP_ORDER_PREVAIL, /* from sets a value `to` needs */
  SP_ORDER_THREAT,  /* from needs a value `to` destroys */
  SP_ORDER_RESTORE  /* from restores a start value `to` needs again */
} SpOrderKind;

typedef struct SpOrder {
  uint16_t from, to;
  uint8_t kind;
} SpOrder;

SP_API int sp_workspace_order_count(const SpWorkspace *ws);
SP_API SpOrder sp_workspace_order(const SpWorkspace *ws, int i);

/* Applies a plan to a state, checking each action. Returns the index of
 * the first inapplicable action, or -1 when all apply (state updated). */
SP_API int sp_plan_replay(const SpDomain *d, SpValue *state,
                          const uint16_t *plan, int len);

#ifdef __cplusplus
}
#endif

#endif
