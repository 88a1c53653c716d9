/* save_names.c: the names block of a save (format 6): written from a world, read back bounded and checked, and a save's header read without a world. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"
#include "sp_save.h"

/* ------------------------------------------------------------------ */
/* Writer                                                             */
/* ------------------------------------------------------------------ */

/* A name, whole ("?" for an empty one, which the reader refuses): a u8
 * length up to SAVE_NAME_MAX, else 255 and a u32 length. */
static void put_name(SpSaveOut *o, const char *s) {
  size_t n = s != NULL ? strlen(s) : 0;
  if (n == 0) s = "?", n = 1;
  if (n > UINT32_MAX) n = UINT32_MAX; /* no name is 4 GiB */
  if (n > SAVE_NAME_MAX) {
    sp__save_out(o, 255, 1);
    sp__save_out(o, n, 4);
  } else {
    sp__save_out(o, n, 1);
  }
  sp__save_out_bytes(o, s, n);
}

const char *sp__save_place_name(const SpWorld *w, size_t p,
                                const SpSaveNames *names, char *buf,
                                size_t size) {
  if (names != NULL && names->places != NULL && names->places[p] != NULL)
    return names->places[p];
  const char *kind = sp_world_kind_name(w, w->places[p].kind);
  snprintf(buf, size, "%s#%zu", kind != NULL ? kind : "place", p + 1);
  return buf;
}

static const char *goal_name(const SpSaveNames *names, size_t k, int g,
                             char *buf, size_t size) {
  if (names != NULL && names->goals != NULL && names->goals[k] != NULL &&
      names->goals[k][g] != NULL)
    return names->goals[k][g];
  snprintf(buf, size, "goal %d", g + 1);
  return buf;
}

static uint64_t fnv_name(uint64_t h, const char *s) {
  return sp__save_fnv(h, s, strlen(s) + 1);
}

static uint64_t fnv_word(uint64_t h, uint64_t v) {
  uint8_t b[8];
  sp_save_put(b, v, 8);
  return sp__save_fnv(h, b, 8);
}

static const char *value_or_any(const SpDomain *d, int var, int x) {
  return x >= 0 && x < sp_variable_value_count(d, var)
             ? sp_value_name(d, var, x)
             : "*";
}

uint64_t sp__save_action_sig(const SpCrowd *c, int a,
                             const SpSaveNames *names) {
  const SpDomain *d = c->domain;
  int v = sp_action_variable(d, a);
  uint64_t h = fnv_name(SAVE_FNV_START, sp_action_name(d, a));
  h = fnv_name(h, sp_variable_name(d, v));
  h = fnv_name(h, value_or_any(d, v, sp_action_pre(d, a)));
  h = fnv_name(h, value_or_any(d, v, sp_action_post(d, a)));
  int np = sp_action_prevail_count(d, a);
  for (int j = 0; j < np; j++) {
    SpCondition p = sp_action_prevail(d, a, j);
    h = fnv_name(h, sp_variable_name(d, p.variable));
    h = fnv_name(h, value_or_any(d, p.variable, p.value));
  }
  const SpActionBehaviour *b = &c->beh[a];
  h = fnv_word(h, (uint64_t)sp_save_float_bits(b->min_duration) << 32 |
                      sp_save_float_bits(b->max_duration));
  h = fnv_word(h, (uint64_t)b->bind | (uint64_t)(b->interruptible != 0) << 8 |
                      (uint64_t)(b->scripted != 0) << 9 |
                      (uint64_t)(b->has_hook != 0) << 10 | (uint64_t)np << 16);
  char buf[64];
  if (b->bind == SP_BIND_PLACE && b->place < c->world->place_count)
    h = fnv_name(
        h, sp__save_place_name(c->world, b->place, names, buf, sizeof buf));
  if (b->bind == SP_BIND_KIND) {
    const char *kind = sp_world_kind_name(c->world, b->kind);
    h = fnv_name(h, kind != NULL ? kind : "");
  }
  return h;
}

void sp__save_put_names(SpSaveOut *o, const SpWorld *w,
                        const SpCrowd *const *crowds, size_t count,
                        const SpSaveNames *names, const uint64_t *agents) {
  char buf[64];
  sp__save_out(o, w->place_count, 4);
  for (size_t p = 0; p < w->place_count; p++)
    put_name(o, sp__save_place_name(w, p, names, buf, sizeof buf));
  sp__save_out(o, (uint64_t)w->fact_count, 4);
  for (int f = 0; f < w->fact_count; f++) {
    put_name(o, w->facts[f].name);
    sp__save_out(o, (uint64_t)w->facts[f].value_count, 1);
    for (int v = 0; v < w->facts[f].value_count; v++)
      put_name(o, w->facts[f].values[v]);
  }
  sp__save_out(o, count, 4);
  for (size_t k = 0; k < count; k++) {
    const SpCrowd *c = crowds[k];
    const SpDomain *d = c->domain;
    put_name(o, sp_domain_name(d));
    sp__save_out(o, agents != NULL ? agents[k] : c->n, 8);
    sp__save_out(o, (uint64_t)c->m, 4);
    for (int v = 0; v < c->m; v++) {
      put_name(o, sp_variable_name(d, v));
      int nv = sp_variable_value_count(d, v);
      sp__save_out(o, (uint64_t)nv, 1);
      for (int x = 0; x < nv; x++) put_name(o, sp_value_name(d, v, x));
    }
    sp__save_out(o, (uint64_t)c->action_count, 4);
    for (int a = 0; a < c->action_count; a++) {
      put_name(o, sp_action_name(d, a));
      sp__save_out(o, sp__save_action_sig(c, a, names), 8);
    }
    sp__save_out(o, (uint64_t)c->goal_count, 4);
    for (int g = 0; g < c->goal_count; g++)
      put_name(o, goal_name(names, k, g, buf, sizeof buf));
  }
}

/* ------------------------------------------------------------------ */
/* Reader                                                             */
/* ------------------------------------------------------------------ */

/* One walk over the block: counts (n NULL) or fills n's arrays; the same
 * code both times, so the counts fit the fill. */
typedef struct Walk {
  const uint8_t *p;
  size_t len, at;
  uint32_t version; /* 9 on: a long name's u32 length */
  char *buf;
  size_t size;
  int failed;
  /* the counts of the first walk, the cursors of the second */
  size_t strs, u32s, sigs;
  SaveNames *n;
  SaveStr *str;
  uint32_t *u32;
  uint64_t *sig;
  /* sp_save_info: the crowd wanted and where it goes */
  size_t want;
  SpSaveCrowdInfo *info;
} Walk;

static int fail(Walk *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(Walk *w, const char *fmt, ...) {
  if (w->failed) return 0;
  w->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->buf, w->size, fmt, ap);
  va_end(ap);
  return 0;
}

static int num(Walk *w, int bytes, uint64_t *v, const char *what) {
  *v = 0;
  if (w->failed) return 0;
  if (w->len - w->at < (size_t)bytes)
    return fail(w, "truncated at byte %zu in the names (%s)",
                w->len + SAVE_HEADER_BYTES, what);
  *v = sp_save_get(w->p + w->at, bytes);
  w->at += (size_t)bytes;
  return 1;
}

/* A count of at most `max` entries (0 once the walk failed). */
static uint32_t count_of(Walk *w, uint64_t max, const char *what) {
  uint64_t v = 0;
  if (!num(w, 4, &v, what)) return 0;
  if (v > max) {
    fail(w, "names: %llu %s (at most %llu)", (unsigned long long)v, what,
         (unsigned long long)max);
    return 0;
  }
  return (uint32_t)v;
}

/* Where the next name goes (NULL while counting). */
static const SaveStr *here(const Walk *w) {
  return w->str != NULL ? w->str + w->strs : NULL;
}

/* The next name into the string array. */
static int name(Walk *w, SaveStr *out, const char *what, uint32_t k) {
  uint64_t n = 0;
  if (!num(w, 1, &n, what)) return 0;
  if (n == 0) return fail(w, "names: %s %u: the name is empty", what, k + 1);
  if (n == 255 && w->version >= 9) { /* a long name, whole */
    if (!num(w, 4, &n, what)) return 0;
    if (n <= SAVE_NAME_MAX)
      return fail(w, "names: %s %u: a long name of %llu bytes", what, k + 1,
                  (unsigned long long)n);
  }
  if (w->len - w->at < n)
    return fail(w, "truncated at byte %zu in the names (%s %u)",
                w->len + SAVE_HEADER_BYTES, what, k + 1);
  if (memchr(w->p + w->at, 0, (size_t)n) != NULL)
    return fail(w, "names: %s %u: the name holds a NUL byte", what, k + 1);
  SaveStr s = {w->p + w->at, (size_t)n};
  if (w->str != NULL) w->str[w->strs] = s;
  if (out != NULL) *out = s;
  w->strs++;
  w->at += (size_t)n;
  return 1;
}

/* Variables or facts: a count, then per entry a name, u8 values (1..255)
 * and their names. */
static void vars(Walk *w, SaveVars *out, uint64_t max, const char *what) {
  uint32_t count = count_of(w, max, what);
  if (out != NULL)
    out->count = count, out->str = here(w),
    out->at = w->u32 != NULL ? w->u32 + w->u32s : NULL;
  size_t first = w->strs;
  for (uint32_t v = 0; v < count && !w->failed; v++) {
    if (w->u32 != NULL) w->u32[w->u32s] = (uint32_t)(w->strs - first);
    w->u32s++;
    uint64_t nv = 0;
    name(w, NULL, what, v);
    num(w, 1, &nv, what);
    if (!w->failed && nv == 0)
      fail(w, "names: %s %u has no values", what, v + 1);
    for (uint32_t x = 0; x < nv && !w->failed; x++) name(w, NULL, "value", x);
  }
  if (w->u32 != NULL) w->u32[w->u32s] = (uint32_t)(w->strs - first);
  w->u32s++;
}

static void walk_crowd(Walk *w, uint32_t k) {
  SaveCrowdNames *cn = w->n != NULL ? &w->n->crowd[k] : NULL, tmp;
  if (cn == NULL) cn = &tmp;
  name(w, &cn->name, "crowd", k);
  num(w, 8, &cn->agents, "a crowd");
  vars(w, &cn->vars, SP_MAX_VARIABLES, "variable");
  cn->actions = count_of(w, SP_MAX_ACTIONS, "actions");
  cn->act = here(w), cn->sig = w->sig != NULL ? w->sig + w->sigs : NULL;
  for (uint32_t a = 0; a < cn->actions && !w->failed; a++) {
    uint64_t sig = 0;
    name(w, NULL, "action", a);
    num(w, 8, &sig, "an action");
    if (w->sig != NULL) w->sig[w->sigs] = sig;
    w->sigs++;
  }
  cn->goals = count_of(w, SP_CROWD_MAX_GOALS, "goals");
  cn->goal = here(w);
  for (uint32_t g = 0; g < cn->goals && !w->failed; g++)
    name(w, NULL, "goal", g);
  if (w->info != NULL && k == w->want && !w->failed) {
    w->info->name = (const char *)cn->name.p, w->info->name_len = cn->name.len;
    w->info->agents = cn->agents, w->info->variables = cn->vars.count;
    w->info->actions = cn->actions, w->info->goals = cn->goals;
  }
}

static void walk(Walk *w, uint32_t *places, uint32_t *crowds, SaveVars *facts) {
  *places = count_of(w, UINT32_MAX, "places");
  if (w->n != NULL) w->n->place = here(w);
  for (uint32_t p = 0; p < *places && !w->failed; p++)
    name(w, NULL, "place", p);
  vars(w, facts, UINT32_MAX, "fact");
  *crowds = count_of(w, UINT32_MAX, "crowds");
  for (uint32_t k = 0; k < *crowds && !w->failed; k++) walk_crowd(w, k);
}

const char sp__save_no_memory[] = "not enough memory";

void sp__save_names_free(SaveNames *n) {
  if (n->mem != NULL) sp__mem_free(n->alloc, n->mem, n->mem_bytes);
  n->mem = NULL;
}

const char *sp__save_names_read(const uint8_t *p, size_t len, uint32_t version,
                                SpAllocator alloc, SaveNames *out, char *buf,
                                size_t size) {
  Walk w;
  memset(&w, 0, sizeof w);
  w.p = p, w.len = len, w.buf = buf, w.size = size, w.want = SIZE_MAX;
  w.version = version;
  uint32_t places = 0, crowds = 0;
  SaveVars facts;
  walk(&w, &places, &crowds, &facts);
  if (w.failed) return buf;
  if (out == NULL) return NULL;
  /* every count is bounded by the bytes just read: one allocation */
  memset(out, 0, sizeof *out);
  out->alloc = alloc;
  out->end = w.at;
  size_t bytes = (size_t)crowds * sizeof(SaveCrowdNames) +
                 w.strs * sizeof(SaveStr) + w.sigs * sizeof(uint64_t) +
                 w.u32s * sizeof(uint32_t) + 1;
  out->mem = sp__mem_alloc(alloc, bytes);
  if (out->mem == NULL) return sp__save_no_memory;
  out->mem_bytes = bytes;
  uint8_t *m = out->mem;
  out->crowd = (SaveCrowdNames *)m;
  m += (size_t)crowds * sizeof(SaveCrowdNames);
  SaveStr *str = (SaveStr *)m;
  m += w.strs * sizeof(SaveStr);
  uint64_t *sig = (uint64_t *)m;
  m += w.sigs * sizeof(uint64_t);
  uint32_t *u32 = (uint32_t *)m;
  Walk again = {p, len, 0,   version, buf, size, 0,        0,
                0, 0,   out, str,     u32, sig,  SIZE_MAX, NULL};
  walk(&again, &out->places, &out->crowds, &out->facts);
  return NULL; /* the same bytes: the second walk cannot fail */
}

int sp__save_str_is(SaveStr s, const char *name) {
  return strlen(name) == s.len && memcmp(s.p, name, s.len) == 0;
}

int sp__save_vars_find(const SaveVars *v, const char *name) {
  for (uint32_t k = 0; k < v->count; k++)
    if (sp__save_str_is(v->str[v->at[k]], name)) return (int)k;
  return -1;
}

int sp__save_values_find(const SaveVars *v, int var, const char *name) {
  for (uint32_t x = v->at[var] + 1; x < v->at[var + 1]; x++)
    if (sp__save_str_is(v->str[x], name)) return (int)(x - v->at[var] - 1);
  return -1;
}

size_t sp__save_body_at(const uint8_t *save, size_t len) {
  if (len < SAVE_HEADER_BYTES) return 0;
  if (sp_save_get(save + 8, 4) < 6) return SAVE_HEADER_BYTES;
  char buf[160];
  Walk w;
  memset(&w, 0, sizeof w);
  w.p = save + SAVE_HEADER_BYTES, w.len = len - SAVE_HEADER_BYTES;
  w.buf = buf, w.size = sizeof buf, w.want = SIZE_MAX;
  w.version = (uint32_t)sp_save_get(save + 8, 4);
  uint32_t places, crowds;
  SaveVars facts;
  walk(&w, &places, &crowds, &facts);
  return w.failed ? 0 : SAVE_HEADER_BYTES + w.at;
}

/* ------------------------------------------------------------------ */
/* sp_save_info                                                       */
/* ------------------------------------------------------------------ */

static SpStatus info_bad(SpError *err, const char *what) {
  return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                       "saved world: %s", what);
}

/* Format 5: the crowd count after the world's part. */
static int old_crowds(const uint8_t *p, size_t len, uint32_t *crowds) {
  size_t at = 16;
  if (len < at + 4) return 0;
  uint64_t np = sp_save_get(p + at, 4);
  at += 4;
  if (np > (len - at) / 4) return 0;
  at += 4 * (size_t)np + 8;
  if (len < at + 4) return 0;
  uint64_t nf = sp_save_get(p + at, 4);
  at += 4;
  if (nf > (len - at) / 12) return 0;
  at += 12 * (size_t)nf;
  if (len < at + 4) return 0;
  uint64_t facts = sp_save_get(p + at, 4);
  at += 4;
  if (facts > len - at || len - at - facts < 4) return 0;
  *crowds = (uint32_t)sp_save_get(p + at + facts, 4);
  return 1;
}

SpStatus sp_save_info(const void *data, size_t len, size_t k, SpSaveInfo *info,
                      SpSaveCrowdInfo *crowd, SpError *err) {
  sp__error_clear(err);
  memset(info, 0, sizeof *info);
  const uint8_t *p = data;
  if (len < SAVE_HEADER_BYTES || memcmp(p, SAVE_MAGIC, 8) != 0)
    return info_bad(err,
                    "not a saspu save (bad magic or shorter than its header)");
  info->version = (uint32_t)sp_save_get(p + 8, 4);
  info->payload = sp_save_get(p + 16, 8);
  if (info->version < SAVE_OLDEST || info->version > SP_SAVE_VERSION)
    return sp__error_set(
        err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
        "saved world: format version %u, this saspu reads %u to %d",
        info->version, SAVE_OLDEST, SP_SAVE_VERSION);
  if (info->payload != len - SAVE_HEADER_BYTES)
    return info_bad(err, "its length is not the one its header says");
  p += SAVE_HEADER_BYTES, len -= SAVE_HEADER_BYTES;
  if (sp__save_fnv(SAVE_FNV_START, p, len) !=
      sp_save_get((const uint8_t *)data + 24, 8))
    return info_bad(err, "checksum mismatch (the data is corrupted)");
  if (info->version < 6)
    return old_crowds(p, len, &info->crowds)
               ? SP_OK
               : info_bad(err, "truncated in the world");
  char buf[160];
  Walk w;
  memset(&w, 0, sizeof w);
  w.p = p, w.len = len, w.buf = buf, w.size = sizeof buf;
  w.want = k, w.info = crowd, w.version = info->version;
  SaveVars facts;
  walk(&w, &info->places, &info->crowds, &facts);
  info->facts = facts.count;
  if (w.failed) return info_bad(err, buf);
  if (crowd != NULL && k >= info->crowds) memset(crowd, 0, sizeof *crowd);
  return SP_OK;
}

void sp_save_layout(SpSaveLayout *out) {
  out->version = SP_SAVE_VERSION;
  out->oldest = (int)SAVE_OLDEST;
  out->header_bytes = (int)SAVE_HEADER_BYTES;
  out->agent_bytes = (int)SAVE_AGENT_BYTES;
  out->counters = SAVE_COUNTERS;
  out->name_max = (int)SAVE_NAME_MAX;
}
