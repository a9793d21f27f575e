# Adds bench_thirdparty.cc (gemmlowp, XNNPACK, oneDNN) to bench_kernels and builds bench_ratio.
# Included by bench/CMakeLists.txt once bench_kernels exists.
# libtorch (tools/install-deps torch): its benchmarks live with its adapter and are added only where
# the adapter is built.
if(TARGET bench_kernels AND TARGET qspec_backend_libtorch)
  target_sources(bench_kernels PRIVATE ${PROJECT_SOURCE_DIR}/backends/libtorch/bench/bench_libtorch.cc)
  target_include_directories(bench_kernels PRIVATE ${PROJECT_SOURCE_DIR}/bench)
  target_link_libraries(bench_kernels PRIVATE ${QSPEC_TORCH_CPU_LIB} ${QSPEC_C10_LIB})
endif()
if(NOT TARGET bench_kernels OR NOT QSPEC_HAVE_GEMMLOWP OR NOT QSPEC_XNNPACK_LIB OR NOT QSPEC_PTHREADPOOL_LIB
   OR NOT QSPEC_DNNL_LIB)
  return()
endif()
target_sources(bench_kernels PRIVATE ${PROJECT_SOURCE_DIR}/bench/bench_thirdparty.cc)
# gemmlowp's x86 kernels need SSE4.1; only this file includes it.
set_source_files_properties(${PROJECT_SOURCE_DIR}/bench/bench_thirdparty.cc PROPERTIES COMPILE_OPTIONS "-msse4.1")
target_link_libraries(bench_kernels PRIVATE ${QSPEC_XNNPACK_LIB} ${QSPEC_PTHREADPOOL_LIB} ${QSPEC_DNNL_LIB} ${CMAKE_DL_LIBS}
  Threads::Threads)

add_executable(bench_ratio ${PROJECT_SOURCE_DIR}/bench/thirdparty/bench_ratio.cc)
qspec_warnings(bench_ratio)
set_target_properties(bench_ratio PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
target_link_libraries(bench_ratio PRIVATE nlohmann_json::nlohmann_json)
add_test(NAME bench_ratio_picks_exact_configurations
  COMMAND ${CMAKE_COMMAND} -DRATIO=$<TARGET_FILE:bench_ratio> -DWORK=${CMAKE_CURRENT_BINARY_DIR}/bench_ratio_test
          -P ${PROJECT_SOURCE_DIR}/bench/thirdparty/bench_ratio_test.cmake)
set_tests_properties(bench_ratio_picks_exact_configurations PROPERTIES LABELS tools TIMEOUT 60)
