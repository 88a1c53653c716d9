/* classify_checks.c: what the class-analysis tests share: compiling with asserts, reading explanations, the Gray-code and farm domains, the path checker and a reference classifier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saspu.h"
#include "sp_builtin.h"
#include "sp_classify.h"
#include "classify_checks.h"
#include "random_domain.h"

static const SpAllocator plain = {NULL, NULL};

const char *const bool_names[] = {"false", "true"};
const char *const bit_names[] = {"0", "1"};

/* ------------------------------------------------------------------ */
/* Compiling and reading explanations                                 */
/* ------------------------------------------------------------------ */

SpDomain *compile_or_fail(const SpDomainSpec *spec, int allow_outside) {
  SpCompileOptions opts = {allow_outside};
  SpDomain *d = NULL;
  SpError err;
  SpStatus st = sp_domain_compile(spec, &opts, plain, &d, &err);
  if (st != SP_OK) print_error("compile: %s\n", err.message);
  assert_int_equal(st, SP_OK);
  assert_non_null(d);
  return d;
}

SpDomain *compile_builtin(SpBuiltSpec *b) {
  assert_non_null(b);
  SpDomain *d = compile_or_fail(&b->spec, 0);
  sp_builtin_free(b);
  return d;
}

/* The explanation, in a heap buffer the caller frees. */
char *explain(const SpDomain *d) {
  size_t n = sp_domain_explain(d, NULL, 0);
  char *buf = malloc(n + 1);
  assert_non_null(buf);
  assert_int_equal(sp_domain_explain(d, buf, n + 1), n);
  assert_int_equal(strlen(buf), n);
  return buf;
}

/* Takes d, asserts its class is `want` and reads its explanation. */
Explained explained(SpDomain *d, SpClass want) {
  Explained e;
  e.d = d;
  assert_int_equal(sp_domain_class(d), want);
  e.text = explain(d);
  return e;
}

void explained_free(Explained *e) {
  free(e->text);
  sp_domain_free(e->d);
}

/* Compiles spec without allow_outside, expecting the class error and no
 * domain; returns the record, whose message the caller reads. */
SpError refused(const SpDomainSpec *spec) {
  SpDomain *d = NULL;
  SpError err;
  assert_int_equal(sp_domain_compile(spec, NULL, plain, &d, &err),
                   SP_ERR_CLASS);
  assert_null(d);
  assert_int_equal(err.code, SP_E_OUTSIDE_CLASS);
  return err;
}

void expect_text(const char *text, const char *part) {
  if (strstr(text, part) == NULL)
    fail_msg("missing \"%s\" in:\n%s", part, text);
}

void expect_no_text(const char *text, const char *part) {
  if (strstr(text, part) != NULL)
    fail_msg("unexpected \"%s\" in:\n%s", part, text);
}

/* `part` occurs and starts within the first `limit` characters. */
void expect_text_before(const char *text, const char *part, size_t limit) {
  const char *at = strstr(text, part);
  if (at == NULL) fail_msg("missing \"%s\" in:\n%s", part, text);
  if ((size_t)(at - text) + strlen(part) > limit)
    fail_msg("\"%s\" ends after %zu characters in:\n%s", part, limit, text);
}

/* ------------------------------------------------------------------ */
/* Domains more than one file builds                                  */
/* ------------------------------------------------------------------ */

void gray_build(Gray *g, int n) {
  for (int i = 0; i < n; i++) {
    snprintf(g->var_names[i], sizeof g->var_names[i], "bit%d", i);
    g->vars[i].name = g->var_names[i];
    g->vars[i].value_count = 2;
    g->vars[i].value_names = bit_names;
    for (int up = 1; up >= 0; up--) {
      int k = 2 * i + (1 - up);
      snprintf(g->names[k], sizeof g->names[k], "%s%d", up ? "set" : "reset",
               i);
      int np = 0;
      if (i >= 1) g->prv[k][np++] = (SpCondition){i - 1, 1};
      for (int j = 0; j + 1 < i; j++) g->prv[k][np++] = (SpCondition){j, 0};
      g->acts[k] =
          (SpActionSpec){g->names[k], i, up ? 0 : 1, up ? 1 : 0, np, g->prv[k]};
    }
  }
  g->spec = (SpDomainSpec){"gray", n, g->vars, 2 * n, g->acts};
}

/* A farm hand's position has two separate cycles: home <-> shop, and the
 * round field -> barn -> mill -> field. Selling needs the shop (the
 * 2-cycle: fine for SAS-PUCS2); with `feed`, feeding needs the barn, a
 * requested action on the 3-cycle, which no class allows. */
void farm_spec(int feed, SpDomainSpec *spec) {
  static const char *const places[] = {"home", "shop", "field", "barn", "mill"};
  static const SpVariableSpec vars[] = {
      {"pos", 5, places}, {"sold", 2, bool_names}, {"fed", 2, bool_names}};
  static const SpCondition at_shop[] = {{0, 1}};
  static const SpCondition at_barn[] = {{0, 3}};
  static const SpActionSpec acts[] = {
      {"go_shop", 0, 0, 1, 0, NULL},  {"go_home", 0, 1, 0, 0, NULL},
      {"go_barn", 0, 2, 3, 0, NULL},  {"go_mill", 0, 3, 4, 0, NULL},
      {"go_field", 0, 4, 2, 0, NULL}, {"sell", 1, 0, 1, 1, at_shop},
      {"feed", 2, 0, 1, 1, at_barn},
  };
  *spec = (SpDomainSpec){"farm", 3, vars, feed ? 7 : 6, acts};
}

/* ------------------------------------------------------------------ */
/* Reference classifier and path checker                              */
/* ------------------------------------------------------------------ */

/* Union-find over action ids, for the reference classifier only. */
static int uf_find(int *parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

static int setter_of(const SpDomainSpec *s, int var, int value) {
  for (int a = 0; a < s->action_count; a++)
    if (s->actions[a].variable == var && s->actions[a].post == value) return a;
  return -1;
}

/* The cycle through action a (walking back from its pre through
 * setters), stored in cyc[] (room for |D(v)|) in walk order; 0 when a is
 * on no cycle. A cycle has at most |D(v)| actions, so a walk that
 * collects more without coming back to a has entered another cycle. */
static int cycle_through(const SpDomainSpec *s, int a, int *cyc) {
  int v = s->actions[a].variable, x = s->actions[a].pre, len = 0;
  cyc[len++] = a;
  for (;;) {
    int b = setter_of(s, v, x);
    if (b < 0) return 0;
    if (b == a) return len;
    if (len == s->variables[v].value_count) return 0;
    cyc[len++] = b;
    x = s->actions[b].pre;
  }
}

static int is_requested(const SpDomainSpec *s, int a) {
  for (int b = 0; b < s->action_count; b++)
    for (int i = 0; i < s->actions[b].prevail_count; i++)
      if (s->actions[b].prevails[i].variable == s->actions[a].variable &&
          s->actions[b].prevails[i].value == s->actions[a].post)
        return 1;
  return 0;
}

/* Requesters of p and of m joined in G minus G(v)? Plain union-find over
 * the actions and one node per value that no action sets (a ghost, id
 * action_count + the value's global index), as the analysis reads Def. 7. */
static int requesters_joined(const SpDomainSpec *s, int v, int p, int m) {
  int parent[RD_MAX_ACTIONS + RD_MAX_VARIABLES * RD_MAX_VALUES],
      base[RD_MAX_VARIABLES];
  int nodes = s->action_count;
  for (int w = 0; w < s->variable_count; w++) {
    base[w] = nodes - s->action_count;
    nodes += s->variables[w].value_count;
  }
  for (int a = 0; a < nodes; a++) parent[a] = a;
  for (int b = 0; b < s->action_count; b++) {
    const SpActionSpec *act = &s->actions[b];
    if (act->variable == v) continue;
    SpCondition needs_of[1 + RD_MAX_PREVAILS];
    int k = 0;
    needs_of[k++] = (SpCondition){act->variable, act->pre};
    for (int i = 0; i < act->prevail_count; i++)
      needs_of[k++] = act->prevails[i];
    for (int i = 0; i < k; i++) {
      SpCondition c = needs_of[i];
      if (c.variable == v) continue; /* G(v), ghosts of v included */
      int from = setter_of(s, c.variable, c.value);
      if (from < 0) from = s->action_count + base[c.variable] + c.value;
      parent[uf_find(parent, from)] = uf_find(parent, b);
    }
  }
  const SpActionSpec *ap = &s->actions[p], *am = &s->actions[m];
  for (int x = 0; x < s->action_count; x++)
    for (int y = 0; y < s->action_count; y++) {
      int rx = 0, ry = 0;
      for (int i = 0; i < s->actions[x].prevail_count; i++) {
        SpCondition c = s->actions[x].prevails[i];
        rx |= c.variable == v && c.value == ap->post;
      }
      for (int i = 0; i < s->actions[y].prevail_count; i++) {
        SpCondition c = s->actions[y].prevails[i];
        ry |= c.variable == v && c.value == am->post;
      }
      if (rx && ry && uf_find(parent, x) == uf_find(parent, y)) return 1;
    }
  return 0;
}

/* The class straight from the definitions, every cycle of every
 * variable judged on its own (a variable may have several). */
SpClass reference_class(const SpDomainSpec *s) {
  int any = 0, twice = 0, joined = 0;
  for (int a = 0; a < s->action_count; a++) {
    int cyc[RD_MAX_VALUES], len = cycle_through(s, a, cyc), req = 0, lowest = 1;
    for (int i = 0; i < len; i++) {
      req += is_requested(s, cyc[i]);
      lowest &= cyc[i] >= a;
    }
    if (len == 0 || !lowest || req == 0) continue; /* each cycle once */
    if (len > 2) return SP_CLASS_OUTSIDE;
    any = 1;
    if (req == 2) {
      twice = 1;
      /* walk order from a is a, then a's predecessor: plus is a */
      joined |= requesters_joined(s, s->actions[a].variable, cyc[0], cyc[1]);
    }
  }
  if (joined) return SP_CLASS_OUTSIDE;
  return twice ? SP_CLASS_CSTAR2 : any ? SP_CLASS_CS2 : SP_CLASS_C0;
}

int action_named(const SpDomain *d, const char *name, size_t len) {
  for (int a = 0; a < sp_domain_action_count(d); a++)
    if (strlen(sp_action_name(d, a)) == len &&
        memcmp(sp_action_name(d, a), name, len) == 0)
      return a;
  fail_msg("no action '%.*s'", (int)len, name);
  return -1;
}

int variable_named(const SpDomain *d, const char *name, size_t len) {
  for (int v = 0; v < sp_domain_variable_count(d); v++)
    if (strlen(sp_variable_name(d, v)) == len &&
        memcmp(sp_variable_name(d, v), name, len) == 0)
      return v;
  fail_msg("no variable '%.*s'", (int)len, name);
  return -1;
}

static int needs(const SpDomain *d, int b, int var, int value) {
  for (int i = 0; i < sp_action_prevail_count(d, b); i++) {
    SpCondition c = sp_action_prevail(d, b, i);
    if (c.variable == var && c.value == value) return 1;
  }
  return 0;
}

/* Reads a quoted name at *p, leaves *p after it. */
const char *quoted(const char **p, size_t *len) {
  assert_true(**p == '\'');
  const char *start = *p + 1, *end = strchr(start, '\'');
  assert_non_null(end);
  *len = (size_t)(end - start);
  *p = end + 1;
  return start;
}

/* A node of a printed path: an action, or a value no action sets. */
typedef struct PathNode {
  int action;          /* -1 for a ghost */
  int variable, value; /* the value the node sets */
} PathNode;

static PathNode path_node(const SpDomain *d, const char **p) {
  PathNode n;
  size_t len;
  static const char ghost[] = "(no action sets ";
  if (strncmp(*p, ghost, strlen(ghost)) == 0) {
    *p += strlen(ghost);
    const char *name = quoted(p, &len);
    n.action = -1;
    n.variable = variable_named(d, name, len);
    assert_true(strncmp(*p, " = ", 3) == 0);
    *p += 3;
    const char *close = strchr(*p, ')');
    assert_non_null(close);
    n.value = -1;
    for (int x = 0; x < sp_variable_value_count(d, n.variable); x++) {
      const char *vn = sp_value_name(d, n.variable, x);
      if (strlen(vn) == (size_t)(close - *p) && memcmp(vn, *p, strlen(vn)) == 0)
        n.value = x;
    }
    assert_true(n.value >= 0);
    assert_int_equal(sp_domain_setter(d, n.variable, n.value), -1);
    *p = close + 1;
    return n;
  }
  const char *name = quoted(p, &len);
  n.action = action_named(d, name, len);
  n.variable = sp_action_variable(d, n.action);
  n.value = sp_action_post(d, n.action);
  return n;
}

/* Every "path:" line of an explanation is a real path of G minus G(v)
 * (ghost values as nodes) from a requester of the cycle's first action
 * to one of its second. The cycle is "the cycle of 'v'" (v's only one)
 * or "the cycle 'a' -> 'b' -> 'a' (one of the N cycles of 'v')". */
void check_paths(const SpDomain *d, const char *text) {
  for (const char *at = strstr(text, "has both actions requested"); at != NULL;
       at = strstr(at + 1, "has both actions requested")) {
    const char *line = at;
    while (line > text && line[-1] != '\n') line--;
    const char *p = strstr(line, "the cycle ") + strlen("the cycle ");
    size_t len;
    int v, plus, minus;
    if (strncmp(p, "of ", 3) == 0) {
      p += 3;
      const char *name = quoted(&p, &len);
      v = variable_named(d, name, len);
      assert_int_equal(sp_variable_cycle_count(d, v), 1);
      plus = sp_variable_cycle_action(d, v, 0, 0);
      minus = sp_variable_cycle_action(d, v, 0, 1);
    } else {
      const char *name = quoted(&p, &len);
      plus = action_named(d, name, len);
      assert_true(strncmp(p, " -> ", 4) == 0);
      p += 4;
      name = quoted(&p, &len);
      minus = action_named(d, name, len);
      p = strstr(p, "cycles of ") + strlen("cycles of ");
      name = quoted(&p, &len);
      v = variable_named(d, name, len);
      int found = 0;
      for (int c = 0; c < sp_variable_cycle_count(d, v); c++)
        found |= sp_variable_cycle_length(d, v, c) == 2 &&
                 sp_variable_cycle_action(d, v, c, 0) == plus &&
                 sp_variable_cycle_action(d, v, c, 1) == minus;
      assert_true(found && sp_variable_cycle_count(d, v) > 1);
    }
    p = strstr(at, "\n   path: ") + strlen("\n   path: ");
    PathNode x = path_node(d, &p);
    assert_true(x.action >= 0 &&
                needs(d, x.action, v, sp_action_post(d, plus)));
    while (*p == ' ') {
      int pre =
          strncmp(p, " -pre-> ", 8) == 0 || strncmp(p, " <-pre- ", 8) == 0;
      int forward = p[2] != '-';
      p = strchr(p + 1, ' ') + 1;
      PathNode y = path_node(d, &p);
      PathNode from = forward ? x : y, to = forward ? y : x;
      assert_int_not_equal(y.variable, v);
      assert_true(to.action >= 0);
      if (pre) {
        assert_int_equal(from.variable, to.variable);
        assert_int_equal(from.value, sp_action_pre(d, to.action));
      } else {
        assert_true(needs(d, to.action, from.variable, from.value));
      }
      x = y;
    }
    assert_true(x.action >= 0 &&
                needs(d, x.action, v, sp_action_post(d, minus)));
  }
}
