// A small loop for tests/timed_loop_identity_test.cc: compiled several ways, its objects must
// get one identity where only debug information or the source's path differ, and another where
// the instructions or the function called differ.
#include <stdlib.h>

void* subject_allocate(size_t n);
void* subject_allocate_elsewhere(size_t n);

#ifdef SUBJECT_CALLS_ELSEWHERE
#define SUBJECT_CALL subject_allocate_elsewhere  // the same instructions, another call target
#else
#define SUBJECT_CALL subject_allocate
#endif

unsigned long subject_loop(unsigned long iterations, size_t size) {
  unsigned long kept = 0;
  for (unsigned long i = 0; i < iterations; ++i) {
    void* block = SUBJECT_CALL(size);
#ifdef SUBJECT_MORE_WORK
    kept += (unsigned long)block >> 4;
#endif
    kept += block != NULL;
    free(block);
  }
  return kept;
}
