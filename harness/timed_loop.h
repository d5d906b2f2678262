// The identity of this worker's timed loops (harness/cell_runner.cc as compiled for its
// backend): 16 hex digits that change when the loops' instructions or the calls they make
// change, and only then (tools/timed_loop_identity.cc). Each worker says it in its hello, and
// every result keeps it, so figures measured by different loops are never taken for alike.
#pragma once

namespace abench {

// Defined by the file tools/timed_loop_identity.cc generates, one per worker build.
const char* timed_loop_identity();

}  // namespace abench
