# `qspec sweep --shard`: the shards' (property, seed) units partition the unsharded list; --seed is
# required; a sharded sweep runs; GoogleTest shard variables shard qspec, not its property binaries.
# Variables: QSPEC, PROPERTY_BINARY, WORK, EMULATOR.
include(${CMAKE_CURRENT_LIST_DIR}/qspec_cli.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/bin)
get_filename_component(name ${PROPERTY_BINARY} NAME)
file(CREATE_LINK ${PROPERTY_BINARY} ${WORK}/bin/${name} SYMBOLIC)
set(sweep sweep --bin-dir ${WORK}/bin --property "round_*" --progress never --out ${WORK}/out)

# Lines of a --list output, sorted.
function(units text out)
  string(REGEX MATCHALL "[A-Za-z_0-9]+\\.[A-Za-z_0-9]+@[0-9]+" found "${text}")
  list(SORT found)
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

qspec_cli(RC 0 OUT all_text ARGS ${sweep} --list --seed 7 --seeds 3)
units("${all_text}" all)
list(LENGTH all n_all)
if(n_all LESS 6)
  message(FATAL_ERROR "expected at least 6 (property, seed) units, got ${n_all}:\n${all_text}")
endif()
set(union "")
foreach(i 0 1 2 3)
  qspec_cli(RC 0 OUT part_text ARGS ${sweep} --list --seed 7 --seeds 3 --shard ${i}/4)
  units("${part_text}" part)
  list(LENGTH part n_part)
  math(EXPR lo "${n_all} / 4")
  if(n_part LESS lo)
    message(FATAL_ERROR "shard ${i}/4 has ${n_part} of ${n_all} units: unbalanced")
  endif()
  list(APPEND union ${part})
endforeach()
list(SORT union)
if(NOT union STREQUAL all)
  message(FATAL_ERROR "the shards' units are not the unsharded list:\nshards: ${union}\nall:    ${all}")
endif()
message(STATUS "${n_all} (property, seed) units, each in exactly one of 4 shards")

qspec_cli(RC 2 OUT out ARGS ${sweep} --shard 0/2 --cases 5)
expect_text("${out}" "--shard 0/2 needs --seed S")

# A real sharded sweep; and the GoogleTest variables: qspec takes shard 1/2 of the units, while
# the property binaries it starts must not see the variables (shard 1/2 of a one-test
# --gtest_filter would run no test, and the sweep would fail).
qspec_cli(RC 0 OUT out ARGS ${sweep} --cases 20 --seed 3 --seeds 2 --shard 1/2 --jobs 2)
expect_text("${out}" "shard 1/2: " "(property, seed) units" "@4 ")
qspec_cli(RC 0 OUT out ENV GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=2 GTEST_SHARD_STATUS_FILE=${WORK}/status
          ARGS ${sweep} --cases 10 --seed 3 --jobs 2)
expect_text("${out}" "shard 1/2: " " 0 failed")
if(NOT EXISTS ${WORK}/status)
  message(FATAL_ERROR "GTEST_SHARD_STATUS_FILE was not created")
endif()
