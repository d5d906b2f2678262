// What every backend file (allocators/<name>.cc, exactly one linked into each worker)
// defines beside its calls (allocators/calls/<name>.h): who serves malloc, the memory the
// allocator holds, and its malloc family for the counting interposer.
//
// Contract of the calls, for every backend and entry-point set (allocators/entry_sets.h):
//   allocate(size, align)          a block of >= size bytes at an address % align == 0,
//                                  or nullptr. align is a power of two. A set uses plain
//                                  malloc-family calls only for alignments its allocator
//                                  guarantees for every size (glibc: 16; the others: 8, as
//                                  their 8-byte size classes are 8-aligned).
//   allocate_zeroed(size, align)   the same, first size bytes zero.
//   grow(block, old, new, align)   a block of >= new bytes, align-aligned, holding the first
//                                  min(old, new) bytes of block; block is released unless
//                                  nullptr is returned. May return block itself (in place).
//   deallocate(block, size, align) size and align are those of the request that made block.
//   usable_size(block)             bytes the allocator says block can hold (>= request).
//
// The calls never adjust what they are asked for to hide an allocator's fault: the
// harness checks the contract and reports a violation as a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

// The shared object a worker was built against (cmake/AbenchWorker.cmake), "" for libc.
#ifndef ABENCH_ALLOCATOR_FILE
#define ABENCH_ALLOCATOR_FILE ""
#endif

namespace abench::backend {

// Who serves malloc in this process, and whether it is the allocator this worker names.
struct Identity {
  std::string name;           // "system", "mimalloc", ...
  std::string version;        // the allocator's own version string
  std::string malloc_object;  // shared object that defines the `malloc` symbol in use
  bool serves_malloc = false;
  std::string problem;  // why serves_malloc is false
};

Identity identify();

// The allocator's own figure for the memory it holds from the system, where it offers one
// (glibc mallinfo2, mimalloc mi_process_info, jemalloc stats.resident, tcmalloc's heap size).
struct ResidentFigure {
  bool available = false;
  std::uint64_t bytes = 0;
  std::string source;  // which figure, e.g. "jemalloc stats.resident"
};
ResidentFigure allocator_resident();

// The malloc family of this allocator, reached without going through the `malloc` symbol:
// the counting worker (harness/interpose.cc) defines malloc, free, ... itself, counts, and
// forwards here.
namespace raw {
void* malloc(std::size_t size) noexcept;
void* calloc(std::size_t count, std::size_t size) noexcept;
void* realloc(void* block, std::size_t size) noexcept;
void free(void* block) noexcept;
void* memalign(std::size_t align, std::size_t size) noexcept;
}  // namespace raw

}  // namespace abench::backend
