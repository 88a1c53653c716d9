/* support_version.h: identifies the test support library. */
#ifndef support_version_h
#define support_version_h

const char *sp_test_support_version(void);

#endif
