# qspec_add_conformance_test(): a backend's conformance run as one CTest test. Installed with the
# qspec CMake package and loaded by find_package(qspec) (docs/quickstart-backend.md):
#
#   qspec_add_conformance_test(NAME <test name>
#                              BACKEND <plugin target | path to a plugin .so | built-in backend name>
#                              [VECTORS <file or directory>...]   default: every shipped vector
#                              [EXPECT <file>]                    known deviations (docs/running.md)
#                              [TIMEOUT <seconds>]                default 600
#                              [ARGS <more qspec run options>...])
#
# The test runs `qspec run` and passes when every outcome is as expected (exit status 0): a FAIL,
# ERROR, CRASH, TIMEOUT or an unexpected pass fails it, with qspec's diagnostics in the test log.
# A relative VECTORS entry names a file or directory of the installed vectors
# (${QSPEC_DATA_DIR}/vectors, e.g. requantize/gemmlowp.double_round.json) when one exists there,
# else a path under the current source directory; EXPECT is relative to the current source
# directory. The JUnit report goes to <current binary dir>/<test name>.junit.xml.
include_guard(GLOBAL)

function(qspec_add_conformance_test)
  cmake_parse_arguments(A "" "NAME;BACKEND;EXPECT;TIMEOUT" "VECTORS;ARGS" ${ARGN})
  if(NOT A_NAME OR NOT A_BACKEND)
    message(FATAL_ERROR "qspec_add_conformance_test: NAME and BACKEND are required")
  endif()
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "qspec_add_conformance_test(${A_NAME}): unknown arguments ${A_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET qspec::qspec OR NOT DEFINED QSPEC_DATA_DIR)
    message(FATAL_ERROR "qspec_add_conformance_test: call find_package(qspec) first")
  endif()
  if(TARGET ${A_BACKEND})
    set(backend $<TARGET_FILE:${A_BACKEND}>)
  else()
    set(backend ${A_BACKEND})
  endif()
  set(cmd $<TARGET_FILE:qspec::qspec> --root ${QSPEC_DATA_DIR} run --backend ${backend} --progress never
      --junit ${CMAKE_CURRENT_BINARY_DIR}/${A_NAME}.junit.xml)
  if(NOT A_VECTORS)
    set(A_VECTORS ${QSPEC_DATA_DIR}/vectors)
  endif()
  foreach(v ${A_VECTORS})
    if(NOT IS_ABSOLUTE ${v})
      if(EXISTS ${QSPEC_DATA_DIR}/vectors/${v})
        set(v ${QSPEC_DATA_DIR}/vectors/${v})
      else()
        set(v ${CMAKE_CURRENT_SOURCE_DIR}/${v})
      endif()
    endif()
    if(NOT EXISTS ${v})
      message(FATAL_ERROR "qspec_add_conformance_test(${A_NAME}): VECTORS ${v} does not exist")
    endif()
    list(APPEND cmd --vectors ${v})
  endforeach()
  if(A_EXPECT)
    if(NOT IS_ABSOLUTE ${A_EXPECT})
      set(A_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/${A_EXPECT})
    endif()
    if(NOT EXISTS ${A_EXPECT})
      message(FATAL_ERROR "qspec_add_conformance_test(${A_NAME}): EXPECT ${A_EXPECT} does not exist")
    endif()
    list(APPEND cmd --expect ${A_EXPECT})
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 600)
  endif()
  add_test(NAME ${A_NAME} COMMAND ${cmd} ${A_ARGS})
  set_tests_properties(${A_NAME} PROPERTIES LABELS qspec TIMEOUT ${A_TIMEOUT})
endfunction()
