/* support_version.c: keeps the test support library non-empty. */
#include "support_version.h"

const char *sp_test_support_version(void) { return "saspu tests"; }
