# `qspec run` unsharded and as 4 shards; `qspec report merge` of the shards must equal the unsharded
# report byte for byte once the per-test "seconds" are removed; merge must refuse overlaps and gaps;
# the GoogleTest shard variables must act as --shard.
# Variables: QSPEC, ROOT, WORK, BACKEND, VECTORS, RUN_ARGS (list), RUN_RC, EMULATOR.
include(${CMAKE_CURRENT_LIST_DIR}/qspec_cli.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(run --root ${ROOT} run --backend ${BACKEND} --vectors ${VECTORS} --progress never --max-diagnostics 0 ${RUN_ARGS})

qspec_cli(RC ${RUN_RC} OUT out ARGS ${run} --report-json ${WORK}/whole.json)
foreach(i 0 1 2 3)
  qspec_cli(RC ${RUN_RC} OUT out ARGS ${run} --shard ${i}/4 --report-json ${WORK}/shard${i}.json)
  expect_text("${out}" "Shard ${i}/4: ")
endforeach()

# Merged in a scrambled order: the merge restores the selection order.
qspec_cli(RC ${RUN_RC} OUT out ARGS --root ${ROOT} report merge ${WORK}/merged.json
          ${WORK}/shard2.json ${WORK}/shard0.json ${WORK}/shard3.json ${WORK}/shard1.json)
expect_text("${out}" "qspec report merge: 4 inputs -> ${WORK}/merged.json (1 backend)")

# Equal to the unsharded report once timing is gone ("seconds" is the last field of a test; the
# run record's "started" and "finished" times).
function(strip_timing in out)
  file(READ ${in} text)
  string(REGEX REPLACE "\n *\"(seconds|started|finished)\": [^\n]*" "" text "${text}")
  file(WRITE ${out} "${text}")
endfunction()
strip_timing(${WORK}/whole.json ${WORK}/whole.notime.json)
strip_timing(${WORK}/merged.json ${WORK}/merged.notime.json)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/whole.notime.json ${WORK}/merged.notime.json RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  execute_process(COMMAND diff -u ${WORK}/whole.notime.json ${WORK}/merged.notime.json OUTPUT_VARIABLE d)
  string(SUBSTRING "${d}" 0 6000 d)
  message(FATAL_ERROR "the merged shards differ from the unsharded run:\n${d}")
endif()
file(READ ${WORK}/merged.notime.json merged)
string(JSON total GET "${merged}" summary total)
string(JSON selected GET "${merged}" selection tests)
if(NOT total EQUAL selected OR total LESS 1)
  message(FATAL_ERROR "merged report: ${total} tests, selection ${selected}")
endif()
message(STATUS "4 shards merged into ${total} tests, equal to the unsharded run")

# Overlaps and gaps are refused with exit status 2.
qspec_cli(RC 2 OUT out ARGS --root ${ROOT} report merge ${WORK}/bad.json
          ${WORK}/shard0.json ${WORK}/shard1.json ${WORK}/shard1.json ${WORK}/shard2.json ${WORK}/shard3.json)
expect_text("${out}" "shard 1/4 of backend" "is given twice: ${WORK}/shard1.json and ${WORK}/shard1.json (overlapping shards)")
qspec_cli(RC 2 OUT out ARGS --root ${ROOT} report merge ${WORK}/bad.json ${WORK}/shard0.json ${WORK}/shard1.json ${WORK}/shard3.json)
expect_text("${out}" "missing shard 2/4 (" "tests not covered)")
qspec_cli(RC 2 OUT out ARGS --root ${ROOT} report merge ${WORK}/bad.json ${WORK}/whole.json ${WORK}/shard0.json)
expect_text("${out}" "${WORK}/whole.json is a whole run of backend" "not a shard")
if(EXISTS ${WORK}/bad.json)
  message(FATAL_ERROR "a refused merge wrote its output")
endif()
# An output in a directory that does not exist is refused before the inputs are read; no directory appears.
qspec_cli(RC 2 OUT out ARGS --root ${ROOT} report merge ${WORK}/no/such/merged.json ${WORK}/shard0.json)
expect_text("${out}" "OUT ${WORK}/no/such/merged.json: the directory ${WORK}/no/such does not exist (qspec does not create it")
if(EXISTS ${WORK}/no)
  message(FATAL_ERROR "report merge created the directory of its output")
endif()

# GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS stand for --shard; the status file is created.
qspec_cli(RC ${RUN_RC} OUT out ENV GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=4 GTEST_SHARD_STATUS_FILE=${WORK}/gtest-status
          ARGS ${run} --report-json ${WORK}/env1.json)
expect_text("${out}" "Shard 1/4: ")
if(NOT EXISTS ${WORK}/gtest-status)
  message(FATAL_ERROR "GTEST_SHARD_STATUS_FILE was not created")
endif()
strip_timing(${WORK}/env1.json ${WORK}/env1.notime.json)
strip_timing(${WORK}/shard1.json ${WORK}/shard1.notime.json)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/env1.notime.json ${WORK}/shard1.notime.json RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message(FATAL_ERROR "GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=4 ran another selection than --shard 1/4")
endif()
qspec_cli(RC 2 OUT out ARGS ${run} --shard 4/4)
expect_text("${out}" "--shard '4/4': the index is 0-based and must be below N")
qspec_cli(RC 2 OUT out ENV GTEST_SHARD_INDEX=1 ARGS ${run})
expect_text("${out}" "GTEST_SHARD_INDEX is set but GTEST_TOTAL_SHARDS is not")

# The output must not be an input, nor an existing file that is not a report.
qspec_cli(RC 2 OUT out ARGS --root ${ROOT} report merge ${WORK}/shard0.json ${WORK}/shard0.json ${WORK}/shard1.json)
expect_text("${out}" "is also an input")
file(WRITE ${WORK}/notes.txt "not a report")
qspec_cli(RC 2 OUT out ARGS --root ${ROOT} report merge ${WORK}/notes.txt ${WORK}/shard0.json ${WORK}/shard1.json ${WORK}/shard2.json ${WORK}/shard3.json)
expect_text("${out}" "exists and is not a qspec report; not overwriting it")
