/* sp_builtin.h: the builtin domains for the core's own code, tests and benchmarks: the public saspu_builtin.h. */
#ifndef sp_builtin_h
#define sp_builtin_h

#include "saspu_builtin.h"

#endif
