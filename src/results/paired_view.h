// Two placements of the same cells, seen as a compare's two sides. A --context plan measures
// more variants than one verdict pairs (a compare --context: each side in the matrix and
// fresh); a view lays the variants one judgement pairs as a compare's (variant 2i first,
// 2i+1 second, partners by position), so compare_results judges it by the one rule.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "src/results/results.h"

namespace abench {

// variant_pairs[i] = (old variant of side one, old variant of side two): each variant
// measures the same cells in the same order. Workers, hellos and jobs are renumbered with
// their cells; what the view leaves out is dropped.
RunResults paired_view(const RunResults& results,
                       const std::vector<std::pair<std::size_t, std::size_t>>& variant_pairs);

}  // namespace abench
