/* sp_loop.h: private to csrc/agents/: the frame loop's per-agent steps: goal choice, plans and steps (step.c), binding places (bind.c), and how an agent reacts to a state change. */
#ifndef sp_loop_h
#define sp_loop_h

#include "sp_agents.h"

/* After a state change of agent i: it looks for a goal again, or replans
 * when its plan no longer reaches its goal (a SpChanged). */
void sp__agent_changed(SpCrowd *c, size_t i);

void sp__agent_emit(Sink s, size_t agent, SpEventKind kind, SpReason reason,
                    int action, int goal, int32_t detail);

/* Pass 0: an agent flagged F_NEED_GOAL stops its step and picks its first
 * goal candidate; returns 1 when it now waits for a plan. */
int sp__agent_choose(SpCrowd *c, Sink s, size_t i);

/* The caller's detail of a failed step (sp_crowd_fail_step), while
 * F_FAIL is set. */
int32_t sp__agent_fail_detail(const SpCrowd *c, size_t i);

/* After planning: takes the result; returns 1 when the agent waits for
 * another plan (the next goal candidate). */
int sp__agent_take_plan(SpCrowd *c, Sink s, size_t i);

/* The take pass's common case, in a frame whose take starts steps
 * (start_in_take) of a crowd sp__take_fast_crowd accepts: agent i, which
 * waits for nothing but its plan, takes it, and the plan's first step, a
 * timed step ending after this frame, starts and is settled; the same
 * events and agent as sp__agent_take_plan, then sp__agent_advance and
 * sp__wheel_settle_early. Returns 0, having changed nothing, for any
 * other case: the caller then runs those. */
int sp__agent_take_start(SpCrowd *c, Sink s, size_t i);
/* Whether a crowd's takes may run sp__agent_take_start this frame. */
int sp__take_fast_crowd(const SpCrowd *c);

/* The advance pass's most common visit, in a crowd sp__end_fast_crowd
 * accepts: agent i, which acts on no place and waits for nothing else,
 * ends its timed step, due now, whose conditions hold, and with it its
 * plan: it needs a goal. The same events and agent as sp__agent_advance
 * (walked: WALK_NOT), and its return (0); -1, having changed nothing,
 * for any other case: the caller then runs sp__agent_advance. */
int sp__agent_end_step(SpCrowd *c, Sink s, size_t i);
/* Whether a crowd's advance pass may run sp__agent_end_step. */
int sp__end_fast_crowd(const SpCrowd *c);

/* Pass 2: advances to the crowd clock (due times); returns 1 when the
 * agent needs the serial binding pass. walked: WALK_NOT, or how its walk
 * of this frame, done already by sp__agent_walk_many, ended. */
int sp__agent_advance(SpCrowd *c, Sink s, size_t i, int walked);

/* Interrupts that step when a strictly higher goal applies (reason
 * higher_goal) or its rechecked goal's `when` lapsed (when_lapsed): the
 * agent chooses again at the next update, which ends the step. 1 when it
 * did. */
int sp__agent_interrupt(SpCrowd *c, Sink s, size_t i);

/* Ends the running step as failed for `why` (its place released) and
 * replans at the next update. */
void sp__agent_fail_now(SpCrowd *c, Sink s, size_t i, SpReason why);

/* Engine moves: SP_EV_MOVE for agent i's target cell (tx, ty), marked
 * SP_EVENT_REPEATED when `repeated`; the move now awaits an answer. */
void sp__agent_announce_move(SpCrowd *c, Sink s, size_t i, int act,
                             int repeated);

/* After a load: every pending move announced again (serial, at the start
 * of the first update). */
void sp__agent_announce_all(SpCrowd *c);

/* The running step's walk is over: SP_EV_ARRIVED, then it acts. */
void sp__agent_arrive(SpCrowd *c, Sink s, size_t i);

/* Serial: binds the running step's place (reservation, field). */
void sp__agent_bind(SpCrowd *c, Sink s, size_t i);

/* A binding answered in the parallel advance pass from agent i's own
 * rows (bind_hint.c): the place it would take, the places it prefers to
 * that one (bits of their positions in the kind's list: each must be full
 * when the serial pass binds it), its cell in the fields (bind.c). */
typedef struct BindHint {
  uint32_t agent, place, cell;
  uint16_t kind;   /* the kind bound, or BIND_HINT_NO_KIND */
  uint8_t limited; /* a place looked at has a capacity: the queue decides */
  uint8_t taken;   /* reserved by the serial pass: sp__bind_hint_commit */
  uint64_t nearer;
} BindHint;

#define BIND_HINT_NO_KIND 0xffffu

/* In worker wk (-1: the calling thread alone, on worker 0's list), after
 * agent i's visit left it flagged F_BIND: appends its answer to the
 * worker's list when the serial pass can check it without the agent's
 * rows. */
void sp__bind_hint_add(SpCrowd *c, int wk, size_t i);

/* Serial: binds agent i by its answer when the answer still holds (the
 * same choice sp__agent_bind makes); 0 leaves it to sp__agent_bind. A place
 * taken is only reserved (h->taken): the agent's rows are written by
 * sp__bind_hint_commit after the pass. */
int sp__agent_bind_hinted(SpCrowd *c, Sink s, BindHint *h);

/* In a worker, after the serial pass: the rows of an agent whose place it
 * reserved (nothing in the serial pass reads them: the agent waits in no
 * queue), and its timer. */
void sp__bind_hint_commit(SpCrowd *c, int wk, const BindHint *h);

/* Requests the lines sp__agent_bind_hinted reads and writes. */
void sp__bind_hint_prefetch(const SpCrowd *c, const BindHint *h);

/* Simulates the rest of the plan from the agent's state: 1 when it still
 * reaches the goal. */
int sp__agent_plan_holds(SpCrowd *c, size_t i, SpValue *scratch);

#endif
