// Where this build put what the end-to-end tests run: abench, workers, test allocators and
// plugins. Defined in built_paths.cc, the one test file compiled with the build directory's
// paths, so every other file compiles alike in build/ and build-sanitize/ (ccache shares them).
#pragma once

namespace abench::testing::built {

extern const char* const kAbench;
extern const char* const kSourceDir;
extern const char* const kJemallocLibrary;  // the library the jemalloc worker links
extern const char* const kTinyV1;           // tests/allocators/tiny.c: v2 slower, v3 far reads, v4 history
extern const char* const kTinyV2;
extern const char* const kTinyV3;
extern const char* const kTinyV4;
extern const char* const kTinyWorkerV1;  // backend `linked` against tiny v1 and v2
extern const char* const kTinyWorkerV2;
extern const char* const kAbufV1;  // examples/abuf: v1 padded, v2 exact
extern const char* const kAbufV2;
extern const char* const kRustBufferV1;  // examples/rust-buffer; "" where this build has no Rust
extern const char* const kRustBufferV2;
extern const char* const kMallocSubject;
extern const char* const kSlowSubject;
extern const char* const kFaultSubject;
extern const char* const kWrongAbiPlugin;
extern const char* const kWorkerSystem;
extern const char* const kCounterSystem;
extern const char* const kWorkerMimalloc;
// The orchestrator is built under ASan + UBSan (scripts/test --sanitize).
extern const bool kSanitized;

}  // namespace abench::testing::built
