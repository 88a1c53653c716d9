/* saspu_limits.h: size limits of saspu domains, each overridable at build time. */
#ifndef saspu_limits_h
#define saspu_limits_h

/* Values are stored in one byte per variable; the byte 0xFF is kept for
 * SP_ANY ("don't care" in goals), so at most 255 values. */
#if !defined(SP_MAX_VALUES)
#define SP_MAX_VALUES 255
#endif

#if !defined(SP_MAX_VARIABLES)
#define SP_MAX_VARIABLES 4096
#endif

/* Action ids are 16-bit in plans. */
#if !defined(SP_MAX_ACTIONS)
#define SP_MAX_ACTIONS 65535
#endif

#if !defined(SP_MAX_PREVAILS)
#define SP_MAX_PREVAILS 1000000
#endif

#if !defined(SP_MAX_NAME)
#define SP_MAX_NAME 255
#endif

#endif
