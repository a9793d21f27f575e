# The out-of-tree backend story end to end (docs/backend-abi.md): install this build's qspec
# component to a prefix, configure docs/examples/example_backend against it with
# find_package(qspec), build the plugin, load it with the installed qspec, and run it on the
# installed requantize vectors (exit 0, every gemmlowp.double_round test PASS).
# Variables: BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR C_COMPILER.
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}${err}")
  endif()
  set(STEP_OUTPUT "${out}${err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component qspec)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/docs/examples/example_backend -B ${WORK_DIR}/build -G ${GENERATOR}
     -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
set(plugin ${WORK_DIR}/build/libqspec_example_backend.so)
set(qspec ${prefix}/bin/qspec)
if(NOT EXISTS ${plugin} OR NOT EXISTS ${qspec})
  message(FATAL_ERROR "expected ${plugin} and ${qspec}")
endif()

step(${qspec} backends ${plugin})
string(FIND "${STEP_OUTPUT}" "example\t1.0 (scalar C)" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "`qspec backends ${plugin}` does not list the example backend:\n${STEP_OUTPUT}")
endif()

set(vectors ${prefix}/share/qspec/vectors/requantize/gemmlowp.double_round.json)
if(NOT EXISTS ${vectors})
  message("QSPEC-SKIP: installed, built and loaded the example backend, but ${vectors} does not exist yet")
  return()
endif()
step(${qspec} --root ${prefix}/share/qspec run --backend ${plugin} --vectors ${vectors} --progress never --fail-on-unsupported)
string(REGEX MATCH "requantize/gemmlowp.double_round.json: ([0-9]+) tests: ([0-9]+) PASS\n" line "${STEP_OUTPUT}")
if(NOT line OR NOT CMAKE_MATCH_1 EQUAL CMAKE_MATCH_2 OR CMAKE_MATCH_1 EQUAL 0)
  message(FATAL_ERROR "the example backend does not pass every requantize vector:\n${STEP_OUTPUT}")
endif()
message("${line}")
