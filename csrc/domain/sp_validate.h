/* sp_validate.h: validation of a domain description (before compiling). */
#ifndef sp_validate_h
#define sp_validate_h

#include "saspu.h"

/* Checks every rule of a SAS-PU description: names, sizes and limits,
 * ranges, unariness, pre != post, post-uniqueness. Returns SP_OK, or
 * SP_ERR_INVALID / SP_ERR_MEMORY with `err` naming the action, the field
 * and the value (err must be cleared by the caller). Allocates only
 * scratch, always released. */
SpStatus sp__spec_validate(const SpDomainSpec *spec, SpAllocator alloc,
                           SpError *err);

#endif
