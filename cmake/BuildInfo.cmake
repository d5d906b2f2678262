# Records how abench was built (compiler, flags, git revision) in a generated header,
# so every result file can say which build produced it. The git revision is refreshed
# on every build, not only at configure time.
string(TOUPPER "${CMAKE_BUILD_TYPE}" _abench_bt)
set(ABENCH_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
get_directory_property(_abench_options COMPILE_OPTIONS)
list(JOIN _abench_options " " _abench_options)
set(ABENCH_CXX_FLAGS "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_abench_bt}} -std=c++${CMAKE_CXX_STANDARD} ${_abench_options}")
string(STRIP "${ABENCH_CXX_FLAGS}" ABENCH_CXX_FLAGS)

set(_abench_info_dir ${CMAKE_BINARY_DIR}/generated)
configure_file(${CMAKE_SOURCE_DIR}/cmake/build_config.h.in ${_abench_info_dir}/build_config.h @ONLY)
add_custom_target(abench_git_revision
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${_abench_info_dir}/git_revision.h
          -P ${CMAKE_SOURCE_DIR}/cmake/GitRevision.cmake
  BYPRODUCTS ${_abench_info_dir}/git_revision.h
  COMMENT "abench: recording git revision")
# One small library reads the generated headers (harness/build_info.h): the build directory is
# on no other file's include path, so the rest compiles alike in build/ and build-sanitize/.
add_library(abench_build_info STATIC ${CMAKE_SOURCE_DIR}/harness/build_info.cc)
add_dependencies(abench_build_info abench_git_revision)
target_include_directories(abench_build_info PRIVATE ${_abench_info_dir} ${CMAKE_SOURCE_DIR})
