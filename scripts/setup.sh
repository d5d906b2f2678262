# Sourced by scripts/abench and scripts/test: installs what is missing, then configures
# and builds abench (Release) into build/. Cheap when nothing changed: no apt-get when
# every package is present, no reconfigure when build/ exists, an incremental build.
set -euo pipefail

ABENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ABENCH_BUILD="${ABENCH_BUILD:-$ABENCH_ROOT/build}"

# Debian packages abench builds and tests with. gperftools (tcmalloc) is optional for the
# build, but installed so the tcmalloc backend is there wherever the package exists;
# valgrind runs --measure instructions (and provides valgrind/callgrind.h); gnuplot draws
# the report (with DejaVu fonts); libpng reads the report's screenshots in the tests;
# SQLite and libpq hold the history store (docs/history.md); OpenSSL signs abench's records
# of its runs (docs/security.md).
ABENCH_PACKAGES=(g++ cmake make pkg-config git libcli11-dev nlohmann-json3-dev libfmt-dev
                 libmimalloc-dev libjemalloc-dev libgtest-dev libgoogle-perftools-dev valgrind libsqlite3-dev libpq-dev libboost-dev libssl-dev
                 gnuplot-nox fonts-dejavu-core libpng-dev ccache
                 ${ABENCH_EXTRA_PACKAGES:-})

abench_install_packages() {
  local missing=()
  for pkg in "${ABENCH_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) && return 0
  echo "abench: installing missing packages: ${missing[*]}" >&2
  local sudo=()
  [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# ccache, its cache inside this checkout: the sanitized build compiles the workers (never
# sanitized) from the same sources with the same flags as the plain one, and takes them from
# the cache instead (paths relative to the checkout, so build/ and build-sanitize/ match).
# A fresh clone starts with an empty cache.
export CCACHE_DIR="${CCACHE_DIR:-$ABENCH_ROOT/.cache/ccache}" CCACHE_BASEDIR="$ABENCH_ROOT" CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-2G}"

abench_build() {
  if [[ ! -f "$ABENCH_BUILD/CMakeCache.txt" ]]; then
    local launcher=()
    command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    # shellcheck disable=SC2086 # ABENCH_CMAKE_ARGS: more options, word-split on purpose
    cmake -S "$ABENCH_ROOT" -B "$ABENCH_BUILD" -DCMAKE_BUILD_TYPE=Release -DABENCH_WERROR=ON "${launcher[@]}" \
      ${ABENCH_CMAKE_ARGS:-} >&2
  fi
  # shellcheck disable=SC2086 # ABENCH_BUILD_TARGETS: "--target a b", word-split on purpose
  cmake --build "$ABENCH_BUILD" -j"$(nproc)" ${ABENCH_BUILD_TARGETS:-} >&2
}

# scripts/test --arch makes a sysroot between the two steps: it sets ABENCH_SETUP_STEPS=packages.
abench_install_packages
[[ "${ABENCH_SETUP_STEPS:-all}" == packages ]] || abench_build
