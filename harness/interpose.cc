// The counting worker's malloc family: defined in the executable, so every call to
// malloc & co. in the process (the harness, libstdc++, libc's own strdup, a plugin) comes
// here first; each is counted (harness/counters.h) and forwarded to the backend's own
// entry points (backend::raw), never to the `malloc` symbol, which would be this again.
//
// Linked only into abench-counter-<backend>; timed workers never carry it.
// Allocators export helpers of their own (mimalloc: strdup, strndup, realpath, reallocarray,
// pvalloc, ...) that allocate without passing through the `malloc` symbol, so libc's helpers
// are defined here too, in terms of the counted malloc: a preloaded allocator's version
// would otherwise allocate uncounted.
// Not covered: allocator-specific entry points called by outside code (mi_malloc, mallocx,
// tc_malloc) are not interposed; the harness's own calls to them are counted by
// CountingAllocator.
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "allocators/backend.h"
#include "harness/counters.h"

namespace raw = abench::backend::raw;

namespace {
// The allocator's own calls inside one of these (a realloc that calls malloc and free, as
// tiny allocators' do) are its business, not requests: counting stops inside, and the
// interposed call counts once, after.
template <class Call>
auto forwarded(Call&& call) {
  abench::InterfaceCallScope nested;
  return call();
}
}  // namespace

extern "C" {

void* malloc(std::size_t size) {
  void* block = forwarded([&] { return raw::malloc(size); });
  abench::count_request(block, size, false);
  return block;
}

void* calloc(std::size_t count, std::size_t size) {
  void* block = forwarded([&] { return raw::calloc(count, size); });
  abench::count_request(block, count * size, false);
  return block;
}

void* realloc(void* old_block, std::size_t size) {
  const auto old_address = reinterpret_cast<std::uintptr_t>(old_block);
  void* block = forwarded([&] { return raw::realloc(old_block, size); });
  if (old_block == nullptr) {
    abench::count_request(block, size, false);
  } else if (size == 0 && block == nullptr) {
    abench::count_free(reinterpret_cast<const void*>(old_address), false);
  } else {
    abench::count_resize(old_address, block, size, false);
  }
  return block;
}

void free(void* block) {
  abench::count_free(block, false);
  forwarded([&] { raw::free(block); });
}

int posix_memalign(void** out, std::size_t align, std::size_t size) {
  if (align < sizeof(void*) || (align & (align - 1)) != 0) return EINVAL;
  void* block = forwarded([&] { return raw::memalign(align, size); });
  abench::count_request(block, size, false);
  if (block == nullptr) return ENOMEM;
  *out = block;
  return 0;
}

void* aligned_alloc(std::size_t align, std::size_t size) {
  void* block = forwarded([&] { return raw::memalign(align, size); });
  abench::count_request(block, size, false);
  return block;
}

void* memalign(std::size_t align, std::size_t size) {
  void* block = forwarded([&] { return raw::memalign(align, size); });
  abench::count_request(block, size, false);
  return block;
}

namespace {
std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
}  // namespace

void* valloc(std::size_t size) { return memalign(page_size(), size); }

void* pvalloc(std::size_t size) {
  const std::size_t page = page_size();
  if (size > SIZE_MAX - page) {
    errno = ENOMEM;
    return nullptr;
  }
  return memalign(page, size == 0 ? page : (size + page - 1) & ~(page - 1));
}

void* reallocarray(void* block, std::size_t count, std::size_t size) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(block, bytes);
}

char* strndup(const char* text, std::size_t most) {
  const std::size_t length = strnlen(text, most);
  auto* copy = static_cast<char*>(malloc(length + 1));
  if (copy == nullptr) return nullptr;
  std::memcpy(copy, text, length);
  copy[length] = '\0';
  return copy;
}

char* strdup(const char* text) { return strndup(text, SIZE_MAX); }

// realpath(path, nullptr) allocates its answer: resolve into a buffer with the next
// realpath (libc's or the allocator's), then copy with the counted strdup.
char* realpath(const char* path, char* resolved) noexcept {
  using Realpath = char* (*)(const char*, char*);
  static const auto next = reinterpret_cast<Realpath>(dlsym(RTLD_NEXT, "realpath"));
  if (next == nullptr) {
    errno = ENOSYS;
    return nullptr;
  }
  if (resolved != nullptr) return forwarded([&] { return next(path, resolved); });
  char buffer[PATH_MAX];
  if (forwarded([&] { return next(path, buffer); }) == nullptr) return nullptr;
  return strdup(buffer);
}

}  // extern "C"

// C++ allocation: allocators such as jemalloc and tcmalloc export their own operator new,
// which would bypass the malloc symbol; these route it through the counted family.
namespace {
void* new_block(std::size_t size, std::size_t align = 0) {
  void* block = align ? memalign(align, size ? size : 1) : malloc(size ? size : 1);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}
}  // namespace

void* operator new(std::size_t size) { return new_block(size); }
void* operator new[](std::size_t size) { return new_block(size); }
void* operator new(std::size_t size, std::align_val_t a) { return new_block(size, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t size, std::align_val_t a) { return new_block(size, static_cast<std::size_t>(a)); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return malloc(size ? size : 1); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return malloc(size ? size : 1); }
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, std::size_t) noexcept { free(p); }
void operator delete[](void* p, std::size_t) noexcept { free(p); }
void operator delete(void* p, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { free(p); }

namespace abench {
bool counting_interposer_active() { return dlsym(RTLD_DEFAULT, "malloc") == reinterpret_cast<void*>(&::malloc); }
}  // namespace abench
