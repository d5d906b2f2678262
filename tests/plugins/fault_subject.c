/*
 * Test plugin: an allocator subject over malloc that misbehaves when asked for one size,
 * as a buggy allocator or library under test would. ABENCH_TEST_FAULT=KIND:SIZE, KIND one of
 *   segv, abort      the process dies (a crash in the subject)
 *   hang             it stops answering (a deadlock)
 *   exithang         it serves the size, but the process never finishes exiting (a
 *                    teardown that deadlocks, after every report is out)
 *   null             allocate returns NULL
 *   misaligned       allocate returns a block one byte off
 *   chatty           it prints to stdout: text without a newline and a forged protocol line
 *   nonutf8          it writes bytes that are not UTF-8 to stderr, then crashes
 * Every other size is served normally. ABENCH_TEST_HANG_ONCE=PATH: the second process to load
 * the plugin (after abench's self-check of the worker; the one that creates PATH.2) hangs
 * before it can say hello, as a worker whose start deadlocks; every other starts normally.
 */
#include <abench/plugin.h>

#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_kind[16];
static size_t g_size = (size_t)-1;

__attribute__((constructor)) static void hang_if_second(void) {
  const char* marker = getenv("ABENCH_TEST_HANG_ONCE");
  if (marker == NULL || strlen(marker) > 4000) return;
  char path[4100];
  snprintf(path, sizeof path, "%s.1", marker);  /* abench's self-check of the worker */
  if (open(path, O_CREAT | O_EXCL | O_WRONLY, 0600) >= 0) return;
  snprintf(path, sizeof path, "%s.2", marker);  /* the first timed worker */
  if (open(path, O_CREAT | O_EXCL | O_WRONLY, 0600) >= 0)
    for (;;) pause();
}

__attribute__((constructor)) static void read_fault(void) {
  const char* fault = getenv("ABENCH_TEST_FAULT");
  if (fault == NULL) return;
  const char* colon = strchr(fault, ':');
  if (colon == NULL || (size_t)(colon - fault) >= sizeof g_kind) return;
  memcpy(g_kind, fault, (size_t)(colon - fault));
  g_size = (size_t)strtoull(colon + 1, NULL, 10);
}

static int is(const char* kind) { return strcmp(g_kind, kind) == 0; }

static int g_served_faulty_size;

__attribute__((destructor)) static void hang_on_the_way_out(void) {
  if (g_served_faulty_size && is("exithang"))
    for (;;) pause();
}

static void* plain_allocate(size_t size, size_t align) {
  void* block = NULL;
  if (align < sizeof(void*)) align = sizeof(void*);
  return posix_memalign(&block, align, size ? size : 1) == 0 ? block : NULL;
}

static void* subject_allocate(void* context, size_t size, size_t align) {
  (void)context;
  if (size == g_size) {
    g_served_faulty_size = 1;
    if (is("segv")) raise(SIGSEGV);
    if (is("abort")) abort();
    if (is("hang"))
      for (;;) pause();
    if (is("null")) return NULL;
    if (is("misaligned")) {
      char* block = plain_allocate(size + 1, align);
      return block ? block + 1 : NULL;
    }
    if (is("chatty")) {
      static int said;
      if (!said) {
        said = 1;
        printf("chatter without a newline");
        printf("{\"type\":\"done\"}\n");
        fflush(stdout);
      }
    }
    if (is("nonutf8")) {
      static const char bad[] = "subject says \xff\xfe\xc3 before it crashes\n";
      if (write(STDERR_FILENO, bad, sizeof bad - 1) < 0) abort();
      raise(SIGSEGV);
    }
  }
  return plain_allocate(size, align);
}

static void* subject_allocate_zeroed(void* context, size_t size, size_t align) {
  void* block = subject_allocate(context, size, align);
  if (block != NULL) memset(block, 0, size);
  return block;
}

static void subject_deallocate(void* context, void* block, size_t size, size_t align) {
  (void)context;
  (void)size;
  (void)align;
  if ((uintptr_t)block & 1) block = (char*)block - 1;  /* a misaligned block of ours */
  free(block);
}

static void* subject_grow(void* context, void* block, size_t old_size, size_t new_size, size_t align) {
  void* moved = subject_allocate(context, new_size, align);
  if (moved == NULL) return NULL;
  memcpy(moved, block, old_size < new_size ? old_size : new_size);
  subject_deallocate(context, block, old_size, align);
  return moved;
}

static size_t subject_usable_size(void* context, const void* block) {
  (void)context;
  if ((uintptr_t)block & 1) return malloc_usable_size((char*)block - 1) - 1;
  return malloc_usable_size((void*)block);
}

static const abench_allocator kAllocator = {NULL, subject_allocate, subject_allocate_zeroed, subject_grow,
                                            subject_deallocate, subject_usable_size};

const abench_plugin* abench_plugin_v1(void) {
  static const abench_plugin plugin = {ABENCH_PLUGIN_ABI_VERSION, "fault_subject", "1", NULL, &kAllocator};
  return &plugin;
}
