# Cross build for aarch64 Linux with Debian's g++-aarch64-linux-gnu against an arm64 root
# file system (ABENCH_SYSROOT, made by scripts/cross/aarch64.sh); tests and test discovery
# run under qemu-user (docs/arm.md).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT ABENCH_SYSROOT)
  set(ABENCH_SYSROOT "$ENV{ABENCH_SYSROOT}")
endif()
if(NOT ABENCH_SYSROOT OR NOT EXISTS "${ABENCH_SYSROOT}/usr/lib/aarch64-linux-gnu")
  message(FATAL_ERROR "ABENCH_SYSROOT must name an arm64 root file system (scripts/test --arch aarch64 makes one)")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ABENCH_SYSROOT)
set(CMAKE_SYSROOT "${ABENCH_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH "${ABENCH_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the target's .pc files and prefixes their paths with the sysroot.
set(ENV{PKG_CONFIG_LIBDIR} "${ABENCH_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${ABENCH_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${ABENCH_SYSROOT}")

# Test discovery and ctest run the target's programs directly: binfmt_misc hands them to
# qemu-user, which finds their loader and libraries under QEMU_LD_PREFIX (the sysroot; set
# by scripts/test --arch for the build and the tests, and inherited by abench's workers).
