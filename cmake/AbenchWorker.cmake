# abench_add_worker(NAME SOURCE [ALLOCATOR_FILE FILE] [OUTPUT_DIRECTORY DIR] [TARGET_SUFFIX S] [LIBS...])
#
# Builds `abench-worker-NAME`: the shared harness plus exactly one allocator backend.
# mimalloc, jemalloc and tcmalloc export malloc/free themselves, so linking one of them
# replaces the allocator of the whole process. Two of them in one binary would make it
# a matter of link order which one serves malloc; hence one executable per backend, and
# each worker checks at start-up that the allocator it names really serves malloc, and,
# given ALLOCATOR_FILE (the library linked), that malloc and the allocator's own calls
# come from that very file.
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
#
# TARGET_SUFFIX and OUTPUT_DIRECTORY build a second worker of one backend (another build
# of the allocator) as targets abench-worker-S / abench-counter-S, files named as usual in DIR.
function(abench_add_worker name source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "ALLOCATOR_FILE;OUTPUT_DIRECTORY;TARGET_SUFFIX" "")
  set(libs ${arg_UNPARSED_ARGUMENTS})
  set(suffix ${name})
  if(arg_TARGET_SUFFIX)
    set(suffix ${arg_TARGET_SUFFIX})
  endif()
  add_library(abench_backend_${suffix} OBJECT ${source} ${PROJECT_SOURCE_DIR}/harness/cell_runner.cc
              ${PROJECT_SOURCE_DIR}/harness/count_runner.cc)
  target_link_libraries(abench_backend_${suffix} PUBLIC abench_harness ${libs})
  target_compile_definitions(abench_backend_${suffix} PUBLIC ABENCH_BACKEND_CALLS="allocators/calls/${name}.h")
  if(arg_ALLOCATOR_FILE)
    target_compile_definitions(abench_backend_${suffix} PRIVATE ABENCH_ALLOCATOR_FILE="${arg_ALLOCATOR_FILE}")
  endif()

  # The timed loops' identity (harness/timed_loop.h), named from the compiled cell_runner.cc
  # of this backend. Linked into whatever links the backend; the backend itself does not need it.
  set(identity_source ${CMAKE_CURRENT_BINARY_DIR}/generated/timed_loop_${suffix}.cc)
  set(loop_object "$<FILTER:$<TARGET_OBJECTS:abench_backend_${suffix}>,INCLUDE,/cell_runner\\.cc\\.o$>")
  add_custom_command(OUTPUT ${identity_source}
                     COMMAND $<TARGET_FILE:abench-timed-loop-identity> ${loop_object} ${identity_source}
                     DEPENDS abench-timed-loop-identity ${loop_object}
                     COMMENT "abench: naming the timed loops of ${suffix}")
  add_library(abench_timed_loop_${suffix} STATIC ${identity_source})
  target_include_directories(abench_timed_loop_${suffix} PRIVATE ${PROJECT_SOURCE_DIR})
  add_dependencies(abench_timed_loop_${suffix} abench_backend_${suffix})
  target_link_libraries(abench_backend_${suffix} INTERFACE abench_timed_loop_${suffix})

  add_executable(abench-worker-${suffix} ${PROJECT_SOURCE_DIR}/harness/worker_main.cc)
  target_link_libraries(abench-worker-${suffix} PRIVATE abench_backend_${suffix})
  add_executable(abench-counter-${suffix} ${PROJECT_SOURCE_DIR}/harness/worker_main.cc ${PROJECT_SOURCE_DIR}/harness/interpose.cc)
  target_link_libraries(abench-counter-${suffix} PRIVATE abench_backend_${suffix})
  foreach(kind worker counter)
    set_target_properties(abench-${kind}-${suffix} PROPERTIES OUTPUT_NAME abench-${kind}-${name})
    if(arg_OUTPUT_DIRECTORY)
      set_target_properties(abench-${kind}-${suffix} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${arg_OUTPUT_DIRECTORY})
    endif()
    if(arg_ALLOCATOR_FILE)
      # The worker must load the library it was built against, wherever it is installed.
      get_filename_component(lib_dir "${arg_ALLOCATOR_FILE}" DIRECTORY)
      set_property(TARGET abench-${kind}-${suffix} APPEND PROPERTY BUILD_RPATH "${lib_dir}")
    endif()
  endforeach()

  set_property(GLOBAL APPEND PROPERTY ABENCH_WORKER_TARGETS abench-worker-${suffix} abench-counter-${suffix})
  if(NOT arg_TARGET_SUFFIX)
    list(APPEND ABENCH_BACKENDS_BUILT ${name})
    set(ABENCH_BACKENDS_BUILT "${ABENCH_BACKENDS_BUILT}" PARENT_SCOPE)
    set_property(GLOBAL APPEND PROPERTY ABENCH_BACKEND_NAMES ${name})
  endif()
endfunction()
