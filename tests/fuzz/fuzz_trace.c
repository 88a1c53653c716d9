/* fuzz_trace.c: libFuzzer harness: any bytes given to the trace reader are read or refused, never crash, and leak nothing; what it reads keeps its bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "saspu_record.h"
#include "test_alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: the trace's bytes. A read trace's events, cells and notes must
 * name frames and crowds it has, its problems end in a NUL, and freeing
 * it returns every block. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  TestAlloc ta;
  SpTrace *t = NULL;
  SpError err;
  if (size > (1u << 20)) return 0;
  test_alloc_init(&ta, 0);
  SpStatus st = sp_trace_read(data, size, test_alloc_hook(&ta), &t, &err);
  if (st != SP_OK) {
    if (t != NULL || ta.live != 0 || err.message[0] == '\0') abort();
    return 0;
  }
  for (size_t k = 0; k < t->nevents; k++)
    if (t->events[k].frame >= t->nframes || t->events[k].crowd >= t->ncrowds ||
        t->events[k].kind >= t->nkinds || t->events[k].reason >= t->nreasons)
      abort();
  for (size_t k = 0; k < t->ncells; k++)
    if (t->cells[k].frame >= t->nframes || t->cells[k].crowd >= t->ncrowds)
      abort();
  for (size_t k = 0; k < t->nnotes; k++)
    if (t->notes[k].event >= t->nevents || t->notes[k].text == NULL) abort();
  for (size_t k = 0; k < t->nfact_changes; k++)
    if (t->fact_changes[k].fact >= t->nfacts) abort();
  if (strlen(t->problems) != t->problems_len) abort();
  sp_trace_free(t);
  if (ta.live != 0) abort();
  return 0;
}
