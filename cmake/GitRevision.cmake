# Writes OUT with the current git revision of SOURCE_DIR ("-dirty" when the tree has
# uncommitted changes, "unknown" outside a checkout); rewrites only on change so that
# an unchanged tree does not rebuild.
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse HEAD
  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no
    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    set(rev "${rev}-dirty")
  endif()
endif()
set(content "#pragma once\n#define ABENCH_GIT_REVISION \"${rev}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
