// Optimization barriers. The compiler must assume the asm reads (and may modify) the
// value and all memory, so it can neither constant-fold a request size nor delete an
// allocation whose result "escapes" here. Emits no instructions.
#pragma once

namespace abench {

template <class T>
inline void do_not_optimize(T& value) {
  asm volatile("" : "+r,m"(value) : : "memory");
}

template <class T>
inline void do_not_optimize(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

// Hides a value from the optimizer (no constant folding of a size, no hoisting of the work
// that uses it) without claiming memory was touched: no store or reload is forced, so it
// costs no instruction in the timed loop.
template <class T>
inline void hide(T& value) {
  asm volatile("" : "+r"(value));
}

// The value, with everything the compiler knows about it forgotten: an allocator's headers
// declare its result aligned (alloc_align), so once its call is inlined the compiler
// would fold a check of that very alignment to "true". Checks of what an allocator
// returned look at the address through this.
template <class T>
inline T opaque(T value) {
  asm volatile("" : "+r"(value));
  return value;
}

// The pointer is used: whatever it points to cannot be deleted (an allocation stays), but no
// memory is clobbered, so nothing else is stored or reloaded around it.
template <class T>
inline void escape(T* pointer) {
  asm volatile("" : : "r"(pointer));
}

// All memory writes before this point are considered observed.
inline void clobber_memory() { asm volatile("" : : : "memory"); }

}  // namespace abench
