// Whether this test process runs under AddressSanitizer (scripts/test --sanitize), told at run
// time: a test binary's own code is compiled alike in both builds (ccache serves the sanitized
// one), and only the library it links, and the runtime with it, differ.
#pragma once

extern "C" void __asan_init() __attribute__((weak));

namespace abench::testing {

inline bool linked_with_address_sanitizer() { return __asan_init != nullptr; }

}  // namespace abench::testing
