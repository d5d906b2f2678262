# Sourced by scripts/test --arch aarch64: an arm64 root file system to build against and run
# in (debootstrap, cached outside the checkout), binfmt_misc sending aarch64 programs to
# qemu-user, and the cross build's settings. docs/arm.md says what runs and what is skipped.

# The target's packages: what abench builds and tests with (scripts/setup.sh), as arm64
# (libssl-dev comes with libpq-dev, which depends on it).
ABENCH_SYSROOT_PACKAGES=(libc6-dev libstdc++-12-dev libcli11-dev nlohmann-json3-dev libfmt-dev libmimalloc-dev
                         libjemalloc-dev libgtest-dev libgoogle-perftools-dev libpng-dev valgrind libsqlite3-dev libpq-dev libboost-dev)
export ABENCH_SYSROOT="${ABENCH_SYSROOT:-/var/cache/abench/sysroot-arm64-bookworm}"
ABENCH_CROSS_HOST_PACKAGES="g++-aarch64-linux-gnu qemu-user-static binfmt-support debootstrap"

# binfmt_misc must be mounted for the kernel to hand aarch64 programs to qemu; the qemu
# entry is registered with the F flag, so it works inside the sysroot too.
abench_cross_binfmt() {
  if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
      { echo "abench: cannot mount binfmt_misc (needs root): aarch64 programs cannot run under qemu" >&2; return 1; }
  fi
  [[ "$(head -1 /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null)" == enabled ]] ||
    update-binfmts --enable qemu-aarch64 >&2 ||
    update-binfmts --import qemu-aarch64 >&2
  [[ "$(head -1 /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null)" == enabled ]] ||
    { echo "abench: binfmt_misc has no enabled qemu-aarch64 entry (is qemu-user-static installed?)" >&2; return 1; }
}

# Made once, then reused while its package list is the same (the stamp records it).
# debootstrap writes into a temporary directory renamed into place, so an interrupted
# run leaves no half-made sysroot behind.
abench_cross_sysroot() {
  local wanted stamp="$ABENCH_SYSROOT/.abench-packages"
  wanted="bookworm arm64 ${ABENCH_SYSROOT_PACKAGES[*]}"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
    echo "abench: arm64 sysroot up to date: $ABENCH_SYSROOT" >&2
    abench_cross_unshadow
    return 0
  fi
  local partial="$ABENCH_SYSROOT.partial"
  rm -rf "$partial"
  mkdir -p "$(dirname "$ABENCH_SYSROOT")"
  local list
  list="$(IFS=,; echo "${ABENCH_SYSROOT_PACKAGES[*]}")"
  echo "abench: making the arm64 sysroot (debootstrap, a few minutes): $ABENCH_SYSROOT" >&2
  debootstrap --arch=arm64 --variant=minbase --include="$list" bookworm "$partial" http://deb.debian.org/debian >&2
  echo "$wanted" > "$partial/.abench-packages"
  rm -rf "$ABENCH_SYSROOT"
  mv "$partial" "$ABENCH_SYSROOT"
  abench_cross_unshadow
}

# qemu opens an absolute path under QEMU_LD_PREFIX when it exists there: the sysroot's empty
# mount points (and /tmp) would hide the host's /proc, /sys and /tmp from a listing (no
# processes in /proc).
abench_cross_unshadow() {
  rmdir "$ABENCH_SYSROOT/proc" "$ABENCH_SYSROOT/sys" "$ABENCH_SYSROOT/tmp" 2>/dev/null || true
}
