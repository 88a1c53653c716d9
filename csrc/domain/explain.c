/* explain.c: a compiled domain's class and the reasons for it, as text (the classifier run again with a text sink). */
#include <stdio.h>

#include "sp_classify.h"
#include "sp_internal.h"

size_t sp_domain_explain(const SpDomain *d, char *buf, size_t size) {
  SpClass cls;
  size_t needed = 0;
  if (sp_classify(d, d->alloc, &cls, buf, size, &needed) != SP_OK) {
    int n = snprintf(buf, size, "%s (out of memory while explaining)",
                     sp_class_name(d->class_));
    return n < 0 ? 0 : (size_t)n;
  }
  return needed;
}
