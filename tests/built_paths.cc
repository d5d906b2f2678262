#include "tests/built_paths.h"

namespace abench::testing::built {

const char* const kAbench = ABENCH_BIN;
const char* const kSourceDir = ABENCH_SOURCE_DIR_FOR_TESTS;
const char* const kJemallocLibrary = JEMALLOC_LIBRARY;
const char* const kTinyV1 = TINY_V1;
const char* const kTinyV2 = TINY_V2;
const char* const kTinyV3 = TINY_V3;
const char* const kTinyV4 = TINY_V4;
const char* const kTinyWorkerV1 = TINY_WORKER_V1;
const char* const kTinyWorkerV2 = TINY_WORKER_V2;
const char* const kAbufV1 = ABUF_V1;
const char* const kAbufV2 = ABUF_V2;
#ifdef RUST_BUFFER_V1
const char* const kRustBufferV1 = RUST_BUFFER_V1;
const char* const kRustBufferV2 = RUST_BUFFER_V2;
#else
const char* const kRustBufferV1 = "";
const char* const kRustBufferV2 = "";
#endif
const char* const kMallocSubject = MALLOC_SUBJECT;
const char* const kSlowSubject = SLOW_SUBJECT;
const char* const kFaultSubject = FAULT_SUBJECT;
const char* const kWrongAbiPlugin = WRONG_ABI_PLUGIN;
const char* const kWorkerSystem = WORKER_SYSTEM;
const char* const kCounterSystem = COUNTER_SYSTEM;
const char* const kWorkerMimalloc = WORKER_MIMALLOC;
#ifdef ABENCH_SANITIZED
const bool kSanitized = true;
#else
const bool kSanitized = false;
#endif

}  // namespace abench::testing::built
