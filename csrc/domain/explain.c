/* explain.c: a compiled domain's class and the reasons for it, as text: the cycles, the requestable actions and, for a domain outside the classes, each problem with its path and a fix. */
#include <stdarg.h>
#include <stdio.h>

#include "sp_classify_graph.h"
#include "sp_internal.h"

size_t sp_domain_explain(const SpDomain *d, char *buf, size_t size) {
  SpClass cls;
  size_t needed = 0;
  if (sp__classify(d, d->alloc, &cls, buf, size, &needed) != SP_OK) {
    int n = snprintf(buf, size, "%s (out of memory while explaining)",
                     sp_class_name(d->class_));
    return n < 0 ? 0 : (size_t)n;
  }
  return needed;
}

/* ================================================================== */
/* Text                                                               */
/* ================================================================== */

typedef struct ClOut {
  char *buf;
  size_t size;
  size_t len; /* full length, even past size */
} ClOut;

static void cl_printf(ClOut *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void cl_printf(ClOut *o, const char *fmt, ...) {
  char *dst = NULL;
  size_t room = 0;
  if (o->len < o->size) {
    dst = o->buf + o->len;
    room = o->size - o->len;
  }
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(dst, room, fmt, ap);
  va_end(ap);
  if (n > 0) o->len += (size_t)n;
}

static const char *cl_str(const char *s) { return s != NULL ? s : "?"; }

static void cl_action(ClOut *o, const SpDomain *d, int a) {
  cl_printf(o, "'%s'", cl_str(sp_action_name(d, a)));
}

static void cl_variable(ClOut *o, const SpDomain *d, int v) {
  cl_printf(o, "'%s'", cl_str(sp_variable_name(d, v)));
}

/* 'variable' = value */
static void cl_condition(ClOut *o, const SpDomain *d, int v, int value) {
  cl_variable(o, d, v);
  cl_printf(o, " = %s", cl_str(sp_value_name(d, v, value)));
}

/* 'a' -> 'b' -> 'a' for cycle k */
static void cl_cycle_actions(ClOut *o, const ClGraph *g, int k) {
  int len = sp__cl_cycle_length(g, k);
  for (int i = 0; i <= len; i++) {
    if (i > 0) cl_printf(o, " -> ");
    cl_action(o, g->d, sp__cl_cycle_action(g, k, i % len));
  }
}

/* How many cycles cycle k's variable has (more than one: the text must
 * say which of them it means). */
static int cl_siblings(const ClGraph *g, int k) {
  return sp_variable_cycle_count(g->d, g->cyc_var[k]);
}

/* "the cycle of 'v'", or when v has several cycles
 * "the cycle 'a' -> 'b' -> 'a' (one of the 2 cycles of 'v')". */
static void cl_cycle_name(ClOut *o, const ClGraph *g, int k) {
  int count = cl_siblings(g, k);
  if (count == 1) {
    cl_printf(o, "the cycle of ");
    cl_variable(o, g->d, g->cyc_var[k]);
    return;
  }
  cl_printf(o, "the cycle ");
  cl_cycle_actions(o, g, k);
  cl_printf(o, " (one of the %d cycles of ", count);
  cl_variable(o, g->d, g->cyc_var[k]);
  cl_printf(o, ")");
}

/* 'r1', 'r2' and 3 more */
static void cl_requesters(ClOut *o, const ClGraph *g, int a) {
  int count = sp__cl_requester_count(g, a);
  int shown = count < SP_EXPLAIN_MAX_NAMES ? count : SP_EXPLAIN_MAX_NAMES;
  for (int i = 0; i < shown; i++) {
    if (i > 0) cl_printf(o, ", ");
    cl_action(o, g->d, g->req_list[g->req_start[a] + i]);
  }
  if (count > shown) cl_printf(o, " and %d more", count - shown);
}

/* 'a' ('v' = p) requested by 'r1', 'r2' */
static void cl_requested(ClOut *o, const ClGraph *g, int a) {
  const SpDomain *d = g->d;
  cl_action(o, d, a);
  cl_printf(o, " (");
  cl_condition(o, d, sp_action_variable(d, a), sp_action_post(d, a));
  cl_printf(o, ") requested by ");
  cl_requesters(o, g, a);
}

/* The arrow of one path step: " -pre-> " or " <-prevail- ". */
static void cl_arrow(ClOut *o, int link) {
  const char *kind = CL_KIND(link) == CL_PRE ? "pre" : "prevail";
  cl_printf(o, CL_DIR(link) ? " -%s-> " : " <-%s- ", kind);
}

/* A node of a path: 'action', or (no action sets 'v' = p) for a ghost. */
static void cl_node(ClOut *o, const ClGraph *g, int x) {
  if (x < g->n) {
    cl_action(o, g->d, x);
    return;
  }
  SpCondition c = sp__cl_node_value(g, x);
  cl_printf(o, "(no action sets ");
  cl_condition(o, g->d, c.variable, c.value);
  cl_printf(o, ")");
}

/* One step of a path: 'x' -pre-> 'y' or 'x' <-prevail- 'y'. */
static void cl_step(ClOut *o, const ClGraph *g, int x, int y, int link) {
  cl_node(o, g, x);
  cl_arrow(o, link);
  cl_node(o, g, y);
}

/* Why a step is an edge of G: which value its tail sets for its head
 * (the head of an edge is always an action). */
static void cl_step_reason(ClOut *o, const ClGraph *g, int x, int y, int link) {
  int from = CL_DIR(link) ? x : y, to = CL_DIR(link) ? y : x;
  SpCondition c = sp__cl_node_value(g, from);
  if (from < g->n) {
    cl_action(o, g->d, from);
    cl_printf(o, " sets ");
    cl_condition(o, g->d, c.variable, c.value);
    cl_printf(o, ", ");
  } else {
    cl_printf(o, "no action sets ");
    cl_condition(o, g->d, c.variable, c.value);
    cl_printf(o, " (only a start state can hold it), ");
  }
  cl_printf(o, "%s", CL_KIND(link) == CL_PRE ? "the pre of " : "a prevail of ");
  cl_action(o, g->d, to);
}

static const char cl_guarantee[] =
    "Guarantee: every solvable instance has a minimal plan in which no "
    "action occurs twice; the planner finds one, or reports that none "
    "exists, in time linear in the size of the action graph.\n";

static const char cl_no_guarantee[] =
    "Plans are not guaranteed: some instance may need an action twice (or "
    "an exponentially long plan), and the planner may then report it "
    "unsolvable although a plan exists.\n";

/* Problem (a): cycle k is longer than 2 and holds a requested action. */
static void cl_explain_long(ClOut *o, const ClGraph *g, int k, int number) {
  const SpDomain *d = g->d;
  int v = g->cyc_var[k], len = sp__cl_cycle_length(g, k),
      several = cl_siblings(g, k) > 1;
  cl_printf(o, "%d. ", number);
  cl_cycle_name(o, g, k);
  cl_printf(o, " has %d actions", len);
  if (!several) { /* a name with the actions already lists them */
    cl_printf(o, " (");
    cl_cycle_actions(o, g, k);
    cl_printf(o, ")");
  }
  cl_printf(o, " and holds a requested action; a cycle with a requested "
               "action must have at most 2 actions, else a plan could need "
               "an action twice (going round the cycle again).\n");
  cl_printf(o, "   fix: shorten %s cycle of ", several ? "that" : "the");
  cl_variable(o, d, v);
  cl_printf(o, " to 2 actions (remove an action, or split the variable so "
               "its values form a path), or drop the prevails on ");
  cl_variable(o, d, v);
  cl_printf(o, " that request its cycle actions:\n");
  for (int i = 0; i < len; i++) {
    int a = sp__cl_cycle_action(g, k, i);
    if (sp__cl_requester_count(g, a) == 0) continue;
    cl_printf(o, "   ");
    cl_requested(o, g, a);
    cl_printf(o, "\n");
  }
}

/* Records the prevail edge that step `at` of the current path crosses as
 * cut number g->cuts. */
static void cl_add_cut(ClGraph *g, int at) {
  int x = g->path[at - 1], y = g->path[at], link = g->step[at];
  g->cut[2 * g->cuts] = CL_DIR(link) ? x : y;
  g->cut[2 * g->cuts + 1] = CL_DIR(link) ? y : x;
  g->cuts++;
}

/* 'v' = p of 'needer' for cut i */
static void cl_cut(ClOut *o, const ClGraph *g, int i) {
  SpCondition c = sp__cl_node_value(g, g->cut[2 * i]);
  cl_condition(o, g->d, c.variable, c.value);
  cl_printf(o, " of ");
  cl_action(o, g->d, g->cut[2 * i + 1]);
}

/* Every prevail that must go to cut the requesters of plus from those of
 * minus, one per path: the first prevail edge of the current path (step
 * `first`), then of each path still found once the edges before are cut.
 * Returns 1 when the cuts disconnect them, 0 when a path has no prevail
 * edge or there are more than SP_EXPLAIN_MAX_CUTS (g->cuts then counts
 * those found, at least 1 when first > 0). Leaves g->path clobbered. */
static int cl_cuts(ClGraph *g, int v, int plus, int minus, int first) {
  g->cuts = 0;
  if (first <= 0) return 0;
  cl_add_cut(g, first);
  while (g->cuts < SP_EXPLAIN_MAX_CUTS) {
    int len = sp__cl_search(g, v, plus, minus), at = -1;
    if (len == 0) return 1;
    for (int i = 1; i < len && at < 0; i++)
      if (CL_KIND(g->step[i]) == CL_PREVAIL) at = i;
    if (at < 0) return 0;
    cl_add_cut(g, at);
  }
  return sp__cl_search(g, v, plus, minus) == 0;
}

/* Problem (b): the 2-cycle k = {a+, a-}, both requested, whose requesters
 * are connected in G minus G(v). Runs the search again to get the path. */
static void cl_explain_connected(ClOut *o, ClGraph *g, int k, int number) {
  const SpDomain *d = g->d;
  int v = g->cyc_var[k];
  int plus = sp__cl_cycle_action(g, k, 0);
  int minus = sp__cl_cycle_action(g, k, 1);
  int len = sp__cl_search(g, v, plus, minus);
  int s = g->path[0], t = g->path[len - 1];
  cl_printf(o, "%d. ", number);
  cl_cycle_name(o, g, k);
  cl_printf(o, " has both actions requested, and ");
  cl_action(o, d, s);
  cl_printf(o, " (requests ");
  cl_action(o, d, plus);
  cl_printf(o, ") is connected to ");
  cl_action(o, d, t);
  cl_printf(o, " (requests ");
  cl_action(o, d, minus);
  cl_printf(o, ") in G minus G(");
  cl_variable(o, d, v);
  cl_printf(o, "), so their orders can interleave and a plan could need ");
  cl_action(o, d, plus);
  cl_printf(o, " or ");
  cl_action(o, d, minus);
  cl_printf(o, " twice.\n   path: ");
  cl_node(o, g, s);
  int cut = -1; /* the first prevail edge of the path, if any */
  for (int i = 1; i < len; i++) {
    cl_arrow(o, g->step[i]);
    cl_node(o, g, g->path[i]);
    if (cut < 0 && CL_KIND(g->step[i]) == CL_PREVAIL) cut = i;
  }

  /* The fix comes before the details: a compile error keeps only the
   * start of this text. */
  int all = cl_cuts(g, v, plus, minus, cut);
  cl_printf(o, "\n   fix: make the two groups of requesters independent: ");
  if (cut > 0 && (!all || g->cuts == 1)) {
    cl_printf(o, "cut the path (e.g. drop the prevail ");
    cl_cut(o, g, 0);
    cl_printf(o, "), ");
  } else if (cut > 0) { /* every path must go: name one prevail per path */
    cl_printf(o, "cut all %d paths (drop the prevail ", g->cuts);
    for (int i = 0; i < g->cuts; i++) {
      if (i > 0)
        cl_printf(o, i + 1 == g->cuts ? " and the prevail " : ", the prevail ");
      cl_cut(o, g, i);
    }
    cl_printf(o, "), ");
  }
  cl_printf(o, "drop the prevails on ");
  cl_variable(o, d, v);
  cl_printf(o, " of one side, or split ");
  cl_variable(o, d, v);
  cl_printf(o, " into two variables so that ");
  cl_action(o, d, plus);
  cl_printf(o, " and ");
  cl_action(o, d, minus);
  cl_printf(o, " no longer form a cycle.\n");
  for (int j = 1; all && j < g->cuts;
       j++) { /* the paths left by the cuts before */
    g->cuts = j;
    int plen = sp__cl_search(g, v, plus, minus);
    cl_printf(
        o, "   path %d (left once the prevails before are dropped): ", j + 1);
    cl_node(o, g, g->path[0]);
    for (int i = 1; i < plen; i++) {
      cl_arrow(o, g->step[i]);
      cl_node(o, g, g->path[i]);
    }
    cl_printf(o, "\n");
  }
  g->cuts = 0;
  len = sp__cl_search(g, v, plus,
                      minus); /* the first path again, for its edges */
  cl_printf(o, "   edges of the path:\n");
  for (int i = 1; i < len; i++) {
    int x = g->path[i - 1], y = g->path[i], link = g->step[i];
    cl_printf(o, "     ");
    cl_step(o, g, x, y, link);
    cl_printf(o, ": ");
    cl_step_reason(o, g, x, y, link);
    cl_printf(o, "\n");
  }
  cl_printf(o, "   ");
  cl_requested(o, g, plus);
  cl_printf(o, "\n   ");
  cl_requested(o, g, minus);
  cl_printf(o, "\n");
}

/* The first lines: the class and why (for outside: the problems). */
static void cl_explain_class(ClOut *o, ClGraph *g, SpClass cls) {
  const SpDomain *d = g->d;
  const char *name = sp_domain_name(d);
  cl_printf(o, "'%s' is ", cl_str(name));
  if (cls == SP_CLASS_OUTSIDE) {
    int problems = 0;
    for (int k = 0; k < g->cycles; k++) problems += sp__cl_problem(g, k);
    cl_printf(o, "outside SAS-PUC0, SAS-PUCS2 and SAS-PUC*2 (%d problem%s):\n",
              problems, problems == 1 ? "" : "s");
    int number = 0;
    for (int k = 0; k < g->cycles && number < SP_EXPLAIN_MAX_ITEMS; k++) {
      ClCycle c = sp__cl_cycle(g, k);
      if (sp__cl_too_long(c))
        cl_explain_long(o, g, k, ++number);
      else if (sp__cl_double(c) && sp__cl_connected(g, k))
        cl_explain_connected(o, g, k, ++number);
    }
    if (problems > number)
      cl_printf(o, "   ... and %d more problems\n", problems - number);
    cl_printf(o, "%s", cl_no_guarantee);
    return;
  }
  cl_printf(o, "%s: ", sp_class_name(cls));
  if (cls == SP_CLASS_C0) {
    cl_printf(o, "%s",
              g->cycles == 0
                  ? "the domain has no cycle, so no cycle contains a "
                    "requestable action.\n"
                  : "no cycle contains a requestable action.\n");
  } else if (cls == SP_CLASS_CS2) {
    cl_printf(o, "every cycle with a requestable action has 2 actions and only "
                 "one of them is requestable (not SAS-PUC0: ");
    int shown = 0;
    for (int k = 0; k < g->cycles && shown < SP_EXPLAIN_MAX_NAMES; k++) {
      if (g->cyc_req[k] == 0) continue;
      for (int i = 0; i < sp__cl_cycle_length(g, k); i++) {
        int a = sp__cl_cycle_action(g, k, i);
        if (!sp_action_is_requestable(d, a)) continue;
        cl_printf(o, "%s", shown++ > 0 ? ", " : "");
        cl_action(o, d, a);
        cl_printf(o, " on ");
        cl_cycle_name(o, g, k);
      }
    }
    cl_printf(o, " %s requested).\n", shown == 1 ? "is" : "are");
  } else {
    cl_printf(o, "every cycle with a requestable action has 2 actions; where "
                 "both are requestable (so not SAS-PUCS2), the requesters of "
                 "one and those of the other are not connected once the "
                 "cycle's variable is taken out of the action graph G "
                 "(values that no action sets count as nodes), so each "
                 "group can be ordered on its own:\n");
    int shown = 0;
    for (int k = 0; k < g->cycles; k++) {
      if (!sp__cl_double(sp__cl_cycle(g, k))) continue;
      if (shown++ == SP_EXPLAIN_MAX_ITEMS) {
        cl_printf(o, "  ... and more\n");
        break;
      }
      int v = g->cyc_var[k];
      int plus = sp__cl_cycle_action(g, k, 0);
      int minus = sp__cl_cycle_action(g, k, 1);
      cl_printf(o, "  ");
      cl_variable(o, d, v);
      cl_printf(o, ": the requesters of ");
      cl_action(o, d, plus);
      cl_printf(o, " (");
      cl_requesters(o, g, plus);
      cl_printf(o, ") and of ");
      cl_action(o, d, minus);
      cl_printf(o, " (");
      cl_requesters(o, g, minus);
      cl_printf(o, ") lie in separate parts of G minus G(");
      cl_variable(o, d, v);
      cl_printf(o, ").\n");
    }
  }
  cl_printf(o, "%s", cl_guarantee);
}

/* The cycles and the requestable actions, for every class. A variable
 * with several cycles shows each as 'v' (i of N). */
static void cl_explain_lists(ClOut *o, const ClGraph *g) {
  const SpDomain *d = g->d;
  int requestable = 0;
  for (int a = 0; a < g->n; a++)
    if (sp_action_is_requestable(d, a)) requestable++;

  if (g->cycles == 0)
    cl_printf(o, "cycles: none.\n");
  else
    cl_printf(o, "cycles (%d):\n", g->cycles);
  for (int k = 0; k < g->cycles; k++) {
    if (k == SP_EXPLAIN_MAX_ITEMS) {
      cl_printf(o, "  ... and %d more\n", g->cycles - SP_EXPLAIN_MAX_ITEMS);
      break;
    }
    cl_printf(o, "  ");
    cl_variable(o, d, g->cyc_var[k]);
    if (cl_siblings(g, k) > 1)
      cl_printf(o, " (%d of %d)", g->cyc_index[k] + 1, cl_siblings(g, k));
    cl_printf(o, ": ");
    cl_cycle_actions(o, g, k);
    int listed = 0;
    for (int i = 0; i < sp__cl_cycle_length(g, k); i++) {
      int a = sp__cl_cycle_action(g, k, i);
      if (!sp_action_is_requestable(d, a)) continue;
      cl_printf(o, "%s", listed++ == 0 ? "; requestable: " : ", ");
      cl_action(o, d, a);
    }
    cl_printf(o, "%s", listed == 0 ? "; no requestable action\n" : "\n");
  }

  if (requestable == 0)
    cl_printf(o, "requestable actions: none.\n");
  else
    cl_printf(o, "requestable actions (%d):\n", requestable);
  int shown = 0;
  for (int a = 0; a < g->n && requestable > 0; a++) {
    if (!sp_action_is_requestable(d, a)) continue;
    if (shown++ == SP_EXPLAIN_MAX_ITEMS) {
      cl_printf(o, "  ... and %d more\n", requestable - SP_EXPLAIN_MAX_ITEMS);
      break;
    }
    cl_printf(o, "  ");
    cl_requested(o, g, a);
    cl_printf(o, "\n");
  }
}

/* The explanation of class `cls` of G's domain into buf (snprintf
 * semantics); the full length. */
size_t sp__cl_explain(ClGraph *g, SpClass cls, char *buf, size_t size) {
  ClOut out = {buf, size, 0};
  cl_explain_class(&out, g, cls);
  cl_explain_lists(&out, g);
  return out.len;
}
