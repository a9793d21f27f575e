# The out-of-tree backend story end to end (docs/quickstart-backend.md): install this build's qspec
# component to a prefix, MOVE the prefix elsewhere (the install must be relocatable), configure
# docs/examples/example_backend against the moved prefix with find_package(qspec), build the
# plugin, and run its CTest, which qspec_add_conformance_test() defines: every
# requantize/gemmlowp.double_round test must PASS. Also checks that the moved qspec finds its data
# root and its adapter plugins next to itself, and names the root in the run header.
# Variables: BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR C_COMPILER.
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}${err}")
  endif()
  set(STEP_OUTPUT "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_in text what)
  string(FIND "${text}" "${what}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "expected the output to contain '${what}':\n${text}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(installed ${WORK_DIR}/installed)
set(prefix ${WORK_DIR}/moved/prefix)
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${installed} --component qspec)
file(MAKE_DIRECTORY ${WORK_DIR}/moved)
file(RENAME ${installed} ${prefix})
if(EXISTS ${installed})
  message(FATAL_ERROR "${installed} still exists after the move")
endif()

# -Werror here (not in the example's CMakeLists.txt: a consumer's build never fails on a warning).
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/docs/examples/example_backend -B ${WORK_DIR}/build -G ${GENERATOR}
     -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_FLAGS=-Werror)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
set(plugin ${WORK_DIR}/build/libqspec_example_backend.so)
set(qspec ${prefix}/bin/qspec)
if(NOT EXISTS ${plugin} OR NOT EXISTS ${qspec})
  message(FATAL_ERROR "expected ${plugin} and ${qspec}")
endif()

step(${qspec} backends ${plugin})
expect_in("${STEP_OUTPUT}" "example\t1.0 (scalar C)")

set(vectors ${prefix}/share/qspec/vectors/requantize/gemmlowp.double_round.json)
if(NOT EXISTS ${vectors})
  message("QSPEC-SKIP: installed, built and loaded the example backend, but ${vectors} does not exist yet")
  return()
endif()

# No --root, no QSPEC_ROOT: the moved qspec finds <prefix>/share/qspec by itself and says so.
step(${CMAKE_COMMAND} -E env --unset=QSPEC_ROOT ${qspec} run --backend ${plugin} --filter "requantize/gemmlowp.double_round.json"
     --progress never --fail-on-unsupported)
expect_in("${STEP_OUTPUT}" "data root ${prefix}/share/qspec (next to the executable)")
string(REGEX MATCH "requantize/gemmlowp.double_round.json: ([0-9]+) tests: ([0-9]+) PASS\n" line "${STEP_OUTPUT}")
if(NOT line OR NOT CMAKE_MATCH_1 EQUAL CMAKE_MATCH_2 OR CMAKE_MATCH_1 EQUAL 0)
  message(FATAL_ERROR "the example backend does not pass every requantize vector:\n${STEP_OUTPUT}")
endif()

# The built-in adapters' plugins are loaded from the moved prefix, not from this build tree.
file(GLOB installed_plugins ${prefix}/lib*/qspec/backends/qspec_backend_*.so ${prefix}/lib/*/qspec/backends/qspec_backend_*.so)
if(installed_plugins)
  list(GET installed_plugins 0 p)
  get_filename_component(pname ${p} NAME_WE)
  string(REPLACE "qspec_backend_" "" builtin ${pname})
  step(${CMAKE_COMMAND} -E env --unset=QSPEC_PLUGIN_DIR LD_DEBUG=files ${qspec} backends)
  string(REGEX MATCH "file=[^\n]*/${pname}.so" loaded "${STEP_OUTPUT}")
  if(NOT loaded MATCHES "^file=${prefix}/")
    message(FATAL_ERROR "the moved qspec loaded the ${builtin} adapter from '${loaded}', not from ${prefix}")
  endif()
endif()

# The one-line CTest of docs/quickstart-backend.md: qspec_add_conformance_test() from the package.
step(${CMAKE_COMMAND} -E env --unset=QSPEC_ROOT ${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/build --output-on-failure)
expect_in("${STEP_OUTPUT}" "100% tests passed, 0 tests failed out of 1")
expect_in("${STEP_OUTPUT}" "example_backend_conformance")
message("${line}")
