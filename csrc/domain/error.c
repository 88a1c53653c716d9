/* error.c: the error record, status and class names, and the memory hook. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_internal.h"

const char *sp_status_name(SpStatus status) {
  switch (status) {
  case SP_OK: return "ok";
  case SP_ERR_MEMORY: return "out of memory";
  case SP_ERR_INVALID: return "invalid domain";
  case SP_ERR_CLASS: return "outside the tractable classes";
  case SP_ERR_STATE: return "invalid state";
  case SP_NO_PLAN: return "no plan";
  }
  return "unknown status";
}

const char *sp_class_name(SpClass c) {
  switch (c) {
  case SP_CLASS_C0: return "SAS-PUC0";
  case SP_CLASS_CS2: return "SAS-PUCS2";
  case SP_CLASS_CSTAR2: return "SAS-PUC*2";
  case SP_CLASS_OUTSIDE: return "outside";
  }
  return "outside";
}

void sp__error_clear(SpError *err) {
  if (err == NULL) return;
  memset(err, 0, sizeof *err);
  err->action = err->other_action = err->variable = -1;
  err->value = err->index = -1;
}

SpStatus sp__error_set(SpError *err, SpStatus status, SpErrorCode code,
                       SpField field, const char *fmt, ...) {
  if (err == NULL) return status;
  err->status = status;
  err->code = code;
  err->field = field;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return status;
}

SpStatus sp__error_memory(SpError *err) {
  sp__error_clear(err);
  return sp__error_set(err, SP_ERR_MEMORY, SP_E_MEMORY, SP_FIELD_NONE,
                       "out of memory");
}
