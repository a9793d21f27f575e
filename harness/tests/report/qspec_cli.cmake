# Helpers of the report CLI tests: run qspec with an expected exit status, and check its output.

# qspec_cli(RC <status> OUT <var> [ENV <VAR=value>...] ARGS <qspec arguments...>)
# Runs ${QSPEC} (under ${EMULATOR} when cross-compiling) and stops the test unless it exits <status>.
function(qspec_cli)
  cmake_parse_arguments(A "" "RC;OUT" "ENV;ARGS" ${ARGN})
  set(cmd ${EMULATOR} ${QSPEC} ${A_ARGS})
  if(A_ENV)
    set(cmd ${CMAKE_COMMAND} -E env ${A_ENV} ${cmd})
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
  if(NOT rc STREQUAL "${A_RC}")
    string(SUBSTRING "${out}${err}" 0 6000 shown)
    string(REPLACE ";" " " shown_cmd "${A_ARGS}")
    message(FATAL_ERROR "qspec ${shown_cmd}\nexited ${rc}, expected ${A_RC}:\n${shown}")
  endif()
  set(${A_OUT} "${out}${err}" PARENT_SCOPE)
endfunction()

# expect_text(<text> <part>...): every part occurs in text.
function(expect_text text)
  foreach(part IN LISTS ARGN)
    string(FIND "${text}" "${part}" pos)
    if(pos EQUAL -1)
      string(SUBSTRING "${text}" 0 4000 shown)
      message(FATAL_ERROR "expected to find: ${part}\nin:\n${shown}")
    endif()
  endforeach()
endfunction()
