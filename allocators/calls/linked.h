// Entry points of backend `linked`: the portable calls only. No alignment is assumed
// beyond what C promises malloc returns (max_align_t): an allocator that gives less is
// reported by the harness's checks, never covered for.
#pragma once

#include <cstddef>

#include "allocators/calls/portable.h"
#include "allocators/entry_sets.h"

namespace abench::backend {

using DefaultCalls = calls::Portable<alignof(std::max_align_t)>;

template <class F>
decltype(auto) with_entry_set(EntrySet, F&& f) {
  return f(DefaultCalls{});
}

}  // namespace abench::backend
