/* demo.c: plans every named start/goal pair of the built-in paper domains. */
#include <stdio.h>
#include <string.h>

#include "saspu.h"
#include "sp_builtin.h"

static void print_state(const SpDomain *d, const SpValue *s) {
  printf("<");
  for (int v = 0; v < sp_domain_variable_count(d); v++)
    printf("%s%s=%s", v ? ", " : "", sp_variable_name(d, v),
           sp_value_name(d, v, s[v]));
  printf(">");
}

/* Plans each start of the domain towards each of its goals and prints the
 * plan or the reason there is none. Returns 0, or 1 on a compile error. */
static int show(const char *title, SpBuiltSpec *b) {
  SpAllocator heap = {NULL, NULL};
  SpDomain *d;
  SpWorkspace *ws;
  SpError err;
  if (b == NULL) {
    fprintf(stderr, "%s: out of memory\n", title);
    return 1;
  }
  if (sp_domain_compile(&b->spec, NULL, heap, &d, &err) != SP_OK) {
    fprintf(stderr, "%s: %s\n", title, err.message);
    sp_builtin_free(b);
    return 1;
  }
  if (sp_workspace_new(d, heap, &ws, &err) != SP_OK) {
    fprintf(stderr, "%s: %s\n", title, err.message);
    sp_domain_free(d);
    sp_builtin_free(b);
    return 1;
  }
  printf("== %s: %d variables, %d actions, class %s\n", title,
         sp_domain_variable_count(d), sp_domain_action_count(d),
         sp_class_name(sp_domain_class(d)));
  uint16_t plan[SP_MAX_ACTIONS];
  SpValue goal[SP_MAX_VARIABLES];
  for (int i = 0; i < b->start_count; i++) {
    for (int j = 0; j < b->goal_count; j++) {
      const SpNamedState *s0 = &b->starts[i], *g = &b->goals[j];
      sp_builtin_resolve_goal(b, g, s0->values, goal);
      int len;
      SpFailure why;
      SpStatus st = sp_plan(d, ws, s0->values, goal, plan, &len, &why);
      printf("\n%s -> %s\n  start ", s0->name, g->name);
      print_state(d, s0->values);
      printf("\n  goal  ");
      print_state(d, goal);
      printf("\n");
      if (st == SP_OK) {
        printf("  plan (%d):", len);
        for (int k = 0; k < len; k++)
          printf("%s %s", k ? "," : "", sp_action_name(d, plan[k]));
        printf("\n");
      } else {
        char text[512];
        sp_failure_format(d, &why, text, sizeof text);
        printf("  no plan: %s\n", text);
      }
    }
  }
  printf("\n");
  sp_workspace_free(ws);
  sp_domain_free(d);
  sp_builtin_free(b);
  return 0;
}

int main(void) {
  SpAllocator heap = {NULL, NULL};
  int bad = 0;
  bad |= show("Horse Breeder (SSCI 2022 table)",
              sp_builtin_horse_breeder(heap, SP_HORSE_SSCI));
  bad |= show("Citizen (ACO)", sp_builtin_citizen(heap));
  bad |= show("Acquisition Machine (HZD)",
              sp_builtin_acquisition_machine(heap));
  return bad;
}
