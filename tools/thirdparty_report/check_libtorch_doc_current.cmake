# CTest driver: regenerates docs/third-party-libtorch.md into the build tree and fails, with a diff,
# when the committed page differs (it is only ever produced by tools/thirdparty_report/generate_libtorch.sh).
#   cmake -DSOURCE_DIR=... -DBUILD_DIR=... -DOUT=... -P check_libtorch_doc_current.cmake
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env OUT=${OUT} bash ${SOURCE_DIR}/tools/thirdparty_report/generate_libtorch.sh ${BUILD_DIR}
  WORKING_DIRECTORY ${SOURCE_DIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "generate_libtorch.sh failed (exit ${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${SOURCE_DIR}/docs/third-party-libtorch.md RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  execute_process(COMMAND diff -u ${SOURCE_DIR}/docs/third-party-libtorch.md ${OUT} OUTPUT_VARIABLE d)
  message(FATAL_ERROR "docs/third-party-libtorch.md is not what tools/thirdparty_report/generate_libtorch.sh produces now.\n"
                      "Regenerate it and commit. Diff (committed -> regenerated):\n${d}")
endif()
message(STATUS "docs/third-party-libtorch.md matches its regeneration")
