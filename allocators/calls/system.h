// Entry points of backend `system` (glibc): malloc and friends are its only API, so its
// native set is its portable one.
#pragma once

#include <cstddef>

#include "allocators/calls/portable.h"
#include "allocators/entry_sets.h"

namespace abench::backend {

// glibc aligns every block to 2 * sizeof(size_t) = 16, whatever its size.
using SystemPortable = calls::Portable<alignof(std::max_align_t)>;

using DefaultCalls = SystemPortable;  // allocators/entry_sets.h: the first set offered

template <class F>
decltype(auto) with_entry_set(EntrySet, F&& f) {
  return f(SystemPortable{});
}

}  // namespace abench::backend
