// How this binary was built (version, git revision, compiler, flags, build type), for the
// worker's hello and the run's conditions. Only build_info.cc sees the generated headers, so
// every other file compiles the same in any build directory (and ccache shares it).
#pragma once

namespace abench {

struct BuildInfo {
  const char* version;
  const char* git_revision;  // "-dirty" appended when the tree had uncommitted changes
  const char* compiler;
  const char* cxx_flags;
  const char* build_type;
};

const BuildInfo& build_info();

}  // namespace abench
