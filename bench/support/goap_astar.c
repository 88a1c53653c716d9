/* goap_astar.c: the GOAP baseline, forward A* over packed full states with unit costs, for comparison with saspu. */
#include "goap_astar.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define GOAP_INLINE static inline __attribute__((always_inline))
#else
#define GOAP_INLINE static inline
#endif

/* One slot of the closed/open set: live when its stamp is the query's. */
typedef struct Slot {
  uint32_t stamp, node;
} Slot;

/* One open-list entry: smaller f first, then larger g (deeper nodes
 * first, which finds the goal sooner among equal f with unit costs). */
typedef struct HeapEntry {
  uint64_t key; /* f << 32 | (UINT32_MAX - g) */
  uint32_t node;
} HeapEntry;

struct GoapPlanner {
  const SpDomain *d;
  int m, words, bits, action_count;
  /* where each variable's field lives */
  uint32_t *var_word;
  uint8_t *var_shift;
  /* per action: dense precondition mask/value over all words (its own
   * pre value and every prevail), then the single field it rewrites */
  uint64_t *pre_mask, *pre_val;
  uint32_t *eff_word;
  uint64_t *eff_keep, *eff_set;
  int32_t *act_var;
  uint8_t *act_pre, *act_post;
  /* search storage, reused by every query */
  long cap;
  uint64_t *states; /* (cap + 1) * words: the extra row is the child scratch */
  int32_t *g, *parent;
  int32_t *heap_pos; /* where the node sits in the heap, -1 once expanded */
  uint16_t *via;
  Slot *slots; /* open addressing, linear probing */
  size_t slot_mask;
  uint32_t stamp;
  HeapEntry *heap; /* indexed binary heap: each node at most once */
  long heap_n;
  /* per query */
  uint64_t *goal_packed;
  int8_t *h_delta;
  long expanded, stored;
  size_t bytes;
};

const char *goap_result_name(GoapResult r) {
  switch (r) {
  case GOAP_FOUND: return "found";
  case GOAP_NO_PLAN: return "no plan";
  case GOAP_CAPPED: return "capped";
  }
  return "?";
}

/* ------------------------------------------------------------------ */
/* Construction                                                       */
/* ------------------------------------------------------------------ */

/* calloc that also counts the bytes into the planner's total. */
static void *take(GoapPlanner *p, size_t count, size_t size) {
  if (count == 0) count = 1;
  p->bytes += count * size;
  return calloc(count, size);
}

static void pack_state(const GoapPlanner *p, const SpValue *s, uint64_t *out) {
  int i;
  memset(out, 0, (size_t)p->words * sizeof *out);
  for (i = 0; i < p->m; i++)
    out[p->var_word[i]] |= (uint64_t)s[i] << p->var_shift[i];
}

/* Lays out fields of a common width (enough bits for the largest
 * variable), as many per word as fit, and compiles each action into its
 * mask/value and write. */
static void compile_actions(GoapPlanner *p) {
  const SpDomain *d = p->d;
  int per_word = 64 / p->bits, i, a;
  uint64_t field = p->bits == 64 ? ~0ull : ((1ull << p->bits) - 1);
  for (i = 0; i < p->m; i++) {
    p->var_word[i] = (uint32_t)(i / per_word);
    p->var_shift[i] = (uint8_t)((i % per_word) * p->bits);
  }
  for (a = 0; a < p->action_count; a++) {
    uint64_t *mask = p->pre_mask + (size_t)a * (size_t)p->words;
    uint64_t *val = p->pre_val + (size_t)a * (size_t)p->words;
    int v = sp_action_variable(d, a), k, n = sp_action_prevail_count(d, a);
    int w = (int)p->var_word[v], sh = p->var_shift[v];
    p->act_var[a] = v;
    p->act_pre[a] = (uint8_t)sp_action_pre(d, a);
    p->act_post[a] = (uint8_t)sp_action_post(d, a);
    mask[w] |= field << sh;
    val[w] |= (uint64_t)p->act_pre[a] << sh;
    for (k = 0; k < n; k++) {
      SpCondition c = sp_action_prevail(d, a, k);
      int cw = (int)p->var_word[c.variable], csh = p->var_shift[c.variable];
      mask[cw] |= field << csh;
      val[cw] |= (uint64_t)c.value << csh;
    }
    p->eff_word[a] = (uint32_t)w;
    p->eff_keep[a] = ~(field << sh);
    p->eff_set[a] = (uint64_t)p->act_post[a] << sh;
  }
}

GoapPlanner *goap_planner_new(const SpDomain *d, long node_cap) {
  GoapPlanner *p;
  int i, maxv = 2;
  size_t slots = 2;
  if (node_cap <= 0) node_cap = GOAP_DEFAULT_NODE_CAP;
  if (node_cap > (1L << 30)) return NULL;
  p = calloc(1, sizeof *p);
  if (p == NULL) return NULL;
  p->bytes = sizeof *p;
  p->d = d;
  p->m = sp_domain_variable_count(d);
  p->action_count = sp_domain_action_count(d);
  for (i = 0; i < p->m; i++)
    if (sp_variable_value_count(d, i) > maxv)
      maxv = sp_variable_value_count(d, i);
  p->bits = 1;
  while ((1 << p->bits) < maxv) p->bits++;
  p->words = (p->m + 64 / p->bits - 1) / (64 / p->bits);
  p->cap = node_cap;
  while (slots < 2 * (size_t)node_cap) slots <<= 1;
  p->slot_mask = slots - 1;
  p->var_word = take(p, (size_t)p->m, sizeof *p->var_word);
  p->var_shift = take(p, (size_t)p->m, sizeof *p->var_shift);
  p->pre_mask =
      take(p, (size_t)p->action_count * (size_t)p->words, sizeof(uint64_t));
  p->pre_val =
      take(p, (size_t)p->action_count * (size_t)p->words, sizeof(uint64_t));
  p->eff_word = take(p, (size_t)p->action_count, sizeof *p->eff_word);
  p->eff_keep = take(p, (size_t)p->action_count, sizeof *p->eff_keep);
  p->eff_set = take(p, (size_t)p->action_count, sizeof *p->eff_set);
  p->act_var = take(p, (size_t)p->action_count, sizeof *p->act_var);
  p->act_pre = take(p, (size_t)p->action_count, 1);
  p->act_post = take(p, (size_t)p->action_count, 1);
  p->states =
      take(p, ((size_t)node_cap + 1) * (size_t)p->words, sizeof(uint64_t));
  p->g = take(p, (size_t)node_cap, sizeof *p->g);
  p->parent = take(p, (size_t)node_cap, sizeof *p->parent);
  p->via = take(p, (size_t)node_cap, sizeof *p->via);
  p->slots = take(p, slots, sizeof *p->slots);
  p->heap = take(p, (size_t)node_cap, sizeof *p->heap);
  p->heap_pos = take(p, (size_t)node_cap, sizeof *p->heap_pos);
  p->goal_packed = take(p, (size_t)p->words, sizeof(uint64_t));
  p->h_delta = take(p, (size_t)p->action_count, 1);
  if (p->var_word == NULL || p->var_shift == NULL || p->pre_mask == NULL ||
      p->pre_val == NULL || p->eff_word == NULL || p->eff_keep == NULL ||
      p->eff_set == NULL || p->act_var == NULL || p->act_pre == NULL ||
      p->act_post == NULL || p->states == NULL || p->g == NULL ||
      p->parent == NULL || p->via == NULL || p->slots == NULL ||
      p->heap == NULL || p->heap_pos == NULL || p->goal_packed == NULL ||
      p->h_delta == NULL) {
    goap_planner_free(p);
    return NULL;
  }
  compile_actions(p);
  p->stamp = 0;
  return p;
}

void goap_planner_free(GoapPlanner *p) {
  if (p == NULL) return;
  free(p->var_word);
  free(p->var_shift);
  free(p->pre_mask);
  free(p->pre_val);
  free(p->eff_word);
  free(p->eff_keep);
  free(p->eff_set);
  free(p->act_var);
  free(p->act_pre);
  free(p->act_post);
  free(p->states);
  free(p->g);
  free(p->parent);
  free(p->via);
  free(p->slots);
  free(p->heap);
  free(p->heap_pos);
  free(p->goal_packed);
  free(p->h_delta);
  free(p);
}

long goap_last_expanded(const GoapPlanner *p) { return p->expanded; }
long goap_last_stored(const GoapPlanner *p) { return p->stored; }
size_t goap_planner_size_bytes(const GoapPlanner *p) { return p->bytes; }
int goap_planner_field_bits(const GoapPlanner *p) { return p->bits; }
int goap_planner_state_words(const GoapPlanner *p) { return p->words; }

/* ------------------------------------------------------------------ */
/* Indexed binary heap                                                */
/* ------------------------------------------------------------------ */

static uint64_t entry_key(uint32_t f, uint32_t g) {
  return (uint64_t)f << 32 | (uint64_t)(UINT32_MAX - g);
}

/* Moves entry e up from slot i to its place, keeping heap_pos current. */
static void heap_up(GoapPlanner *p, long i, HeapEntry e) {
  HeapEntry *h = p->heap;
  while (i > 0) {
    long up = (i - 1) / 2;
    if (h[up].key <= e.key) break;
    h[i] = h[up];
    p->heap_pos[h[i].node] = (int32_t)i;
    i = up;
  }
  h[i] = e;
  p->heap_pos[e.node] = (int32_t)i;
}

static void heap_push(GoapPlanner *p, uint32_t node, uint64_t key) {
  HeapEntry e;
  e.key = key;
  e.node = node;
  heap_up(p, p->heap_n++, e);
}

/* Lowers the key of a node already in the heap. */
static void heap_decrease(GoapPlanner *p, uint32_t node, uint64_t key) {
  long i = p->heap_pos[node];
  HeapEntry e = p->heap[i];
  e.key = key;
  heap_up(p, i, e);
}

static HeapEntry heap_pop(GoapPlanner *p) {
  HeapEntry *h = p->heap, top = h[0], last = h[--p->heap_n];
  long i = 0, size = p->heap_n;
  p->heap_pos[top.node] = -1;
  if (size == 0) return top;
  for (;;) {
    long c = 2 * i + 1;
    if (c >= size) break;
    if (c + 1 < size && h[c + 1].key < h[c].key) c++;
    if (last.key <= h[c].key) break;
    h[i] = h[c];
    p->heap_pos[h[i].node] = (int32_t)i;
    i = c;
  }
  h[i] = last;
  p->heap_pos[last.node] = (int32_t)i;
  return top;
}

/* ------------------------------------------------------------------ */
/* Search                                                             */
/* ------------------------------------------------------------------ */

GOAP_INLINE size_t hash_state(const uint64_t *s, int words) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  int k;
  for (k = 0; k < words; k++) {
    h ^= s[k];
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return (size_t)h;
}

GOAP_INLINE int same_state(const uint64_t *a, const uint64_t *b, int words) {
  int k;
  for (k = 0; k < words; k++)
    if (a[k] != b[k]) return 0;
  return 1;
}

/* Finds `s` in the closed/open set, or inserts it as node `fresh`.
 * Returns the node index it is stored under. */
GOAP_INLINE uint32_t lookup_or_insert(GoapPlanner *p, const uint64_t *s,
                                      int words, uint32_t fresh) {
  size_t i = hash_state(s, words) & p->slot_mask;
  while (p->slots[i].stamp == p->stamp) {
    uint32_t n = p->slots[i].node;
    if (same_state(p->states + (size_t)n * (size_t)words, s, words)) return n;
    i = (i + 1) & p->slot_mask;
  }
  p->slots[i].stamp = p->stamp;
  p->slots[i].node = fresh;
  return fresh;
}

/* A* proper. `words` is a parameter so that the call with the constant 1
 * (every paper domain fits one word) is specialised by the compiler.
 * Unit costs and a consistent heuristic: a node is final when popped, so
 * it is expanded once; a shorter path to a node still open lowers its
 * key in place; should a shorter path reach an expanded node anyway, the
 * node is reopened, so the result never depends on consistency. The goal
 * test on expansion keeps the plan minimal. */
GOAP_INLINE GoapResult search(GoapPlanner *p, int words, uint32_t h0,
                              uint32_t *goal_node) {
  const int na = p->action_count;
  uint64_t *scratch = p->states + (size_t)p->cap * (size_t)words;
  p->g[0] = 0;
  p->parent[0] = -1;
  p->via[0] = 0;
  p->stored = 1;
  p->heap_n = 0;
  lookup_or_insert(p, p->states, words, 0);
  heap_push(p, 0, entry_key(h0, 0));
  while (p->heap_n > 0) {
    HeapEntry top = heap_pop(p);
    uint32_t node = top.node, g = (uint32_t)p->g[node];
    uint32_t h = (uint32_t)(top.key >> 32) - g;
    const uint64_t *s = p->states + (size_t)node * (size_t)words;
    int a;
    if (h == 0 && same_state(s, p->goal_packed, words)) {
      *goal_node = node;
      return GOAP_FOUND;
    }
    p->expanded++;
    for (a = 0; a < na; a++) {
      const uint64_t *mask = p->pre_mask + (size_t)a * (size_t)words;
      const uint64_t *val = p->pre_val + (size_t)a * (size_t)words;
      uint32_t child, ng = g + 1;
      uint64_t key;
      int k, ok = 1;
      for (k = 0; k < words; k++)
        if ((s[k] & mask[k]) != val[k]) {
          ok = 0;
          break;
        }
      if (!ok) continue;
      for (k = 0; k < words; k++) scratch[k] = s[k];
      scratch[p->eff_word[a]] =
          (scratch[p->eff_word[a]] & p->eff_keep[a]) | p->eff_set[a];
      child = lookup_or_insert(p, scratch, words, (uint32_t)p->stored);
      key = entry_key(ng + (uint32_t)((int)h + p->h_delta[a]), ng);
      if (child == (uint32_t)p->stored) {
        if (p->stored == p->cap) return GOAP_CAPPED;
        memcpy(p->states + (size_t)child * (size_t)words, scratch,
               (size_t)words * sizeof *scratch);
        p->stored++;
        p->g[child] = (int32_t)ng;
        p->parent[child] = (int32_t)node;
        p->via[child] = (uint16_t)a;
        heap_push(p, child, key);
        continue;
      }
      if ((uint32_t)p->g[child] <= ng) continue;
      p->g[child] = (int32_t)ng;
      p->parent[child] = (int32_t)node;
      p->via[child] = (uint16_t)a;
      if (p->heap_pos[child] >= 0)
        heap_decrease(p, child, key);
      else
        heap_push(p, child, key);
    }
  }
  return GOAP_NO_PLAN;
}

/* Packs the query, resets the set in O(1) by moving to a new stamp, runs
 * the search and writes the plan by walking the parents back. */
GoapResult goap_plan(GoapPlanner *p, const SpValue *s0, const SpValue *goal,
                     uint16_t *plan, int plan_cap, int *len) {
  uint32_t h0 = 0, node = 0;
  GoapResult r;
  int i, a;
  *len = -1;
  p->expanded = 0;
  p->stored = 0;
  for (i = 0; i < p->m; i++) h0 += s0[i] != goal[i];
  for (a = 0; a < p->action_count; a++) {
    SpValue gv = goal[p->act_var[a]];
    p->h_delta[a] = (int8_t)((p->act_post[a] != gv) - (p->act_pre[a] != gv));
  }
  pack_state(p, s0, p->states);
  pack_state(p, goal, p->goal_packed);
  if (++p->stamp == 0) {
    /* the stamp wrapped: old slots could look current, so clear them once */
    memset(p->slots, 0, (p->slot_mask + 1) * sizeof *p->slots);
    p->stamp = 1;
  }
  r = p->words == 1 ? search(p, 1, h0, &node) : search(p, p->words, h0, &node);
  if (r != GOAP_FOUND) return r;
  *len = p->g[node];
  for (i = *len - 1; i >= 0; i--) {
    if (i < plan_cap) plan[i] = p->via[node];
    node = (uint32_t)p->parent[node];
  }
  return r;
}
