/* sp_error.h: helpers that fill the SpError record. */
#ifndef sp_error_h
#define sp_error_h

#include "saspu.h"

/* Resets every field: indices to -1, message empty. NULL is allowed. */
void sp__error_clear(SpError *err);

/* Sets status, code, field and a printf-formatted message; returns
 * status so callers can `return sp__error_set(...)`. Index fields are
 * left to the caller. */
SpStatus sp__error_set(SpError *err, SpStatus status, SpErrorCode code,
                       SpField field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

SpStatus sp__error_memory(SpError *err);

#endif
