/* resident.c: how many bytes of an allocation are in memory (its touched pages), so the stats of large arrays agree with the process's resident set. */
#if !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* mincore */
#endif
#include <stddef.h>
#include <stdint.h>

#include "sp_internal.h"

#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)
#include <sys/mman.h>
#include <unistd.h>
#define SP_HAVE_MINCORE 1
#if defined(__APPLE__)
typedef char CoreByte;
#else
typedef unsigned char CoreByte;
#endif
#endif

/* Pages asked about per mincore call. */
enum { PAGES_PER_CALL = 4096 };

/* An untouched page of a large allocation costs no memory: the bytes of
 * [p, p + bytes) on pages in memory. Arrays under SP_RESIDENT_MIN, and
 * every array where the system cannot tell, count whole. */
size_t sp__mem_resident(const void *p, size_t bytes) {
  if (p == NULL) return 0;
#if defined(SP_HAVE_MINCORE)
  if (bytes < SP_RESIDENT_MIN) return bytes;
  long ps = sysconf(_SC_PAGESIZE);
  if (ps <= 0) return bytes;
  uintptr_t page = (uintptr_t)ps, begin = (uintptr_t)p, end = begin + bytes;
  uintptr_t at = begin & ~(page - 1u);
  size_t resident = 0;
  CoreByte vec[PAGES_PER_CALL];
  while (at < end) {
    size_t pages = (size_t)((end - at + page - 1u) / page);
    if (pages > PAGES_PER_CALL) pages = PAGES_PER_CALL;
    if (mincore((void *)at, pages * page, vec) != 0) return bytes;
    for (size_t k = 0; k < pages; k++, at += page) {
      if (!(vec[k] & 1)) continue;
      uintptr_t lo = at < begin ? begin : at;
      uintptr_t hi = at + page > end ? end : at + page;
      resident += (size_t)(hi - lo);
    }
  }
  return resident;
#else
  return bytes;
#endif
}

/* Large per-agent arrays are read at random (an agent whose step ends is
 * anywhere in them): 2 MiB pages spare the page walks of those reads. A
 * hint only, for the whole 2 MiB pages inside [p, p + bytes), given
 * before the pages are touched; nothing where the system has no such
 * hint. */
void sp__mem_hint_random(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (p == NULL || bytes < 2 * huge) return;
  uintptr_t begin = ((uintptr_t)p + huge - 1u) & ~(huge - 1u);
  uintptr_t end = ((uintptr_t)p + bytes) & ~(huge - 1u);
  if (end > begin) (void)madvise((void *)begin, end - begin, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}
