/* sense.c: sensors: two-valued variables the update keeps equal to a spatial test (an agent of a crowd, or a place of a kind, within r cells), without Lua. */
#include <math.h>
#include <stdlib.h>

#include "sp_agents.h"
#include "sp_facts.h"
#include "sp_space.h"
#include "sp_error.h"
#include "sp_internal.h"

int sp__sensor_of(const SpCrowd *c, int var) {
  for (int k = 0; k < c->sensor_count; k++)
    if (c->sensors[k].var == var) return 1;
  return 0;
}

static SpStatus sensor_error(const SpCrowd *c, const SpSensor *s, SpError *err,
                             const char *what) {
  const char *name =
      s->var >= 0 && s->var < c->m ? sp_variable_name(c->domain, s->var) : "?";
  return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                       "crowd: sensor of variable '%s': %s", name, what);
}

SpStatus sp_crowd_add_sensor(SpCrowd *c, const SpSensor *s, SpError *err) {
  sp__error_clear(err);
  if (s->var < 0 || s->var >= c->m)
    return sp__error_set(err, SP_ERR_INVALID, SP_E_LIMIT, SP_FIELD_NONE,
                         "crowd: sensor: variable %d does not exist (%d "
                         "variables)",
                         s->var, c->m);
  int nv = sp_variable_value_count(c->domain, s->var);
  if (s->on < 0 || s->on >= nv || s->off < 0 || s->off >= nv || s->on == s->off)
    return sensor_error(c, s, err,
                        "its on and off values must be two "
                        "different values of it");
  if (c->sensor_count >= SP_CROWD_MAX_SENSORS)
    return sensor_error(c, s, err, "too many sensors (SP_CROWD_MAX_SENSORS)");
  if (sp__sensor_of(c, s->var) || sp__facts_tie_of(c, s->var) >= 0)
    return sensor_error(c, s, err,
                        "it is a sensor's or a world fact's already");
  for (int a = 0; a < c->action_count; a++)
    if (sp_action_variable(c->domain, a) == s->var)
      return sensor_error(c, s, err,
                          "an action changes it (the sensor sets it)");
  if ((s->near == NULL) == (s->kind < 0))
    return sensor_error(c, s, err, "give a crowd or a place kind, one of them");
  if (s->near != NULL && s->near->world != c->world)
    return sensor_error(c, s, err,
                        "the crowd it senses lives in another world");
  if (s->near == NULL && s->kind >= c->world->kind_count)
    return sensor_error(c, s, err, "no such place kind");
  if (s->r < 0) return sensor_error(c, s, err, "the radius is negative");
  if (!(s->period >= 0.0f) || isinf(s->period))
    return sensor_error(c, s, err,
                        "the period must be a finite number of "
                        "seconds, 0 or more");
  c->sensors[c->sensor_count] = *s;
  c->sensor_due[c->sensor_count] = -1.0; /* read at the first update */
  c->sensor_count++;
  return SP_OK;
}

static int due(const SpCrowd *c, int k) { return c->clock >= c->sensor_due[k]; }

SpStatus sp__sensors_ready(SpCrowd *c, SpError *err) {
  for (int k = 0; k < c->sensor_count; k++) {
    const SpCrowd *near = c->sensors[k].near;
    if (!due(c, k) || near == NULL || near->retired) continue;
    SpStatus st = sp__index_ready((SpCrowd *)c->sensors[k].near, err);
    if (st != SP_OK) return st;
  }
  return SP_OK;
}

/* 1 when a place of `kind` is within r of (x, y). */
static int place_near(const SpWorld *w, int kind, int x, int y, int r) {
  for (uint32_t p = sp_world_first_of_kind(w, kind); p != SP_NO_PLACE;
       p = w->places[p].next_of_kind) {
    int dx = abs(w->places[p].x - x), dy = abs(w->places[p].y - y);
    if ((dx > dy ? dx : dy) <= r) return 1;
  }
  return 0;
}

/* One sensor over every live agent. */
static void read_sensor(SpCrowd *c, const SpSensor *s, SpChanged changed) {
  const SpCrowd *near = s->near;
  int gone = near != NULL && near->retired; /* closed: senses nothing */
  size_t self =
      near == c ? 0 : SP_NO_AGENT; /* an agent does not sense itself */
  for (size_t i = 0; i < c->n; i++) {
    if (c->agents[i].phase == SP_PHASE_FREE) continue;
    int x = c->agents[i].x, y = c->agents[i].y;
    int hit = gone           ? 0
              : near != NULL ? sp__index_any_but(near, x, y, s->r,
                                                 self == 0 ? i : SP_NO_AGENT)
                             : place_near(c->world, s->kind, x, y, s->r);
    SpValue v = (SpValue)(hit ? s->on : s->off);
    SpValue *state = sp_population_state_at(c->pop, i);
    if (state[s->var] == v) continue;
    sp_facts_sync(c, i);
    state[s->var] = v;
    changed(c, i);
  }
}

void sp__sensors_read(SpCrowd *c, SpChanged changed) {
  for (int k = 0; k < c->sensor_count; k++) {
    if (!due(c, k)) continue;
    c->sensor_due[k] = c->clock + (double)c->sensors[k].period;
    read_sensor(c, &c->sensors[k], changed);
  }
}
