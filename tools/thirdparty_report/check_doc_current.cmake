# CTest driver: renders docs/third-party.md from the committed measurements into the build tree
# and fails, with a diff, when the committed page differs (the page must only ever be produced by
# tools/thirdparty_report/generate.sh, or rendered from its measurements).
#   cmake -DSOURCE_DIR=... -DTOOL=... -DOUT=... -P check_doc_current.cmake
execute_process(
  COMMAND ${TOOL} render --measurements tools/thirdparty_report/measurements --annotations tools/thirdparty_report/annotations.json
          --vectors vectors --out ${OUT} --command tools/thirdparty_report/generate.sh --fail-on-unclassified
  WORKING_DIRECTORY ${SOURCE_DIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "qspec_thirdparty_report render failed (exit ${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${SOURCE_DIR}/docs/third-party.md RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  execute_process(COMMAND diff -u ${SOURCE_DIR}/docs/third-party.md ${OUT} OUTPUT_VARIABLE d)
  message(FATAL_ERROR "docs/third-party.md is not what the measurements in tools/thirdparty_report/measurements/ render to.\n"
                      "Regenerate it (tools/thirdparty_report/generate.sh) and commit. Diff (committed -> rendered):\n${d}")
endif()
message(STATUS "docs/third-party.md matches its rendering from the recorded measurements")
