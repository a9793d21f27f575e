# Runs `qspec --root ROOT ARGS` (ARGS defaults to `spec lint`) and passes only if it exits
# EXPECT_RC and prints every text of EXPECT_TEXT (a CMake list). EMULATOR is the cross build's
# CMAKE_CROSSCOMPILING_EMULATOR (a list), empty natively.
if(NOT DEFINED ARGS)
  set(ARGS spec lint)
endif()
execute_process(COMMAND ${EMULATOR} ${QSPEC} --root ${ROOT} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL ${EXPECT_RC})
  message(FATAL_ERROR "expected exit status ${EXPECT_RC}, got ${rc}")
endif()
foreach(text IN LISTS EXPECT_TEXT)
  string(FIND "${out}${err}" "${text}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "expected the output to contain: ${text}")
  endif()
endforeach()
