# abench_add_worker(NAME SOURCE [LIBS...])
#
# Builds `abench-worker-NAME`: the shared harness plus exactly one allocator backend.
# mimalloc, jemalloc and tcmalloc export malloc/free themselves, so linking one of them
# replaces the allocator of the whole process. Two of them in one binary would make it
# a matter of link order which one serves malloc; hence one executable per backend, and
# each worker checks at start-up that the allocator it names really serves malloc.
#
# Also builds `abench-counter-NAME`: the same worker plus harness/interpose.cc, which
# defines the malloc family in the executable to count every request and forward it to
# the backend. Counting runs use it; timed runs never do, so no timed sample pays for
# counting.
#
# The harness's loops that call the allocator (cell_runner.cc, count_runner.cc) are
# compiled here, once per backend, with that backend's calls header
# (allocators/calls/NAME.h) as ABENCH_BACKEND_CALLS: the allocator's calls are then inline
# in the timed loop, as in the user's program, instead of behind an adapter function.
function(abench_add_worker name source)
  set(libs ${ARGN})
  add_library(abench_backend_${name} OBJECT ${source} harness/cell_runner.cc harness/count_runner.cc)
  target_link_libraries(abench_backend_${name} PUBLIC abench_harness ${libs})
  target_compile_definitions(abench_backend_${name} PUBLIC ABENCH_BACKEND_CALLS="allocators/calls/${name}.h")

  add_executable(abench-worker-${name} harness/worker_main.cc)
  target_link_libraries(abench-worker-${name} PRIVATE abench_backend_${name})

  list(APPEND ABENCH_BACKENDS_BUILT ${name})
  set(ABENCH_BACKENDS_BUILT "${ABENCH_BACKENDS_BUILT}" PARENT_SCOPE)
  add_executable(abench-counter-${name} harness/worker_main.cc harness/interpose.cc)
  target_link_libraries(abench-counter-${name} PRIVATE abench_backend_${name})

  set_property(GLOBAL APPEND PROPERTY ABENCH_WORKER_TARGETS abench-worker-${name} abench-counter-${name})
  set_property(GLOBAL APPEND PROPERTY ABENCH_BACKEND_NAMES ${name})
endfunction()
