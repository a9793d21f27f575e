# Checks bench_ratio's choice of each library's row on a hand-written run: the fastest exact
# configuration wins over a faster inexact one, a library with only inexact ones shows its fastest
# marked INEXACT, and the ratio is qspec's time over the chosen one's.
#   cmake -DRATIO=<bench_ratio> -DWORK=<dir> -P bench_ratio_test.cmake
file(MAKE_DIRECTORY ${WORK})
# One shape; times in µs. avx2 10; onednn: conv_s8 20 exact, conv_u8 5 inexact (a faster wrong
# answer must not win); xnnpack: qs8 8 inexact, qc8 4 inexact (no exact one: the faster, marked).
file(WRITE ${WORK}/run.json [=[
{"benchmarks": [
 {"name": "BM_conv2d/avx2/s", "run_name": "BM_conv2d/avx2/s", "run_type": "iteration", "cpu_time": 10, "time_unit": "us"},
 {"name": "BM_conv2d/onednn.conv_s8/s", "run_name": "BM_conv2d/onednn.conv_s8/s", "run_type": "iteration", "cpu_time": 20, "time_unit": "us", "label": "jit:avx2"},
 {"name": "BM_conv2d/onednn.conv_u8/s", "run_name": "BM_conv2d/onednn.conv_u8/s", "run_type": "iteration", "cpu_time": 5, "time_unit": "us", "label": "inexact: 3 of 9 outputs differ; jit:avx2"},
 {"name": "BM_conv2d/xnnpack.qs8/s", "run_name": "BM_conv2d/xnnpack.qs8/s", "run_type": "iteration", "cpu_time": 8, "time_unit": "us", "label": "inexact: 1 of 9 outputs differ"},
 {"name": "BM_conv2d/xnnpack.qc8/s", "run_name": "BM_conv2d/xnnpack.qc8/s", "run_type": "iteration", "cpu_time": 4, "time_unit": "us", "label": "inexact: 2 of 9 outputs differ"}
]}
]=])
execute_process(COMMAND ${RATIO} ${WORK}/run.json OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_ratio exited ${rc}:\n${out}")
endif()
# The first table's rows: op shape library configuration src avx2 lib ratio dispatched.
foreach(want "conv2d +s +onednn +conv_s8 +s8 +10 +20 +0\\.500 +jit:avx2"
             "conv2d +s +xnnpack +qc8 INEXACT +s8 +10 +4 +2\\.500 +inexact: 2 of 9")
  if(NOT out MATCHES "${want}")
    message(FATAL_ERROR "bench_ratio's table lacks a row matching '${want}':\n${out}")
  endif()
endforeach()
foreach(wrong "onednn +conv_u8 +s8" "onednn +conv_u8 INEXACT")
  if(out MATCHES "${wrong}")
    message(FATAL_ERROR "bench_ratio picked an inexact configuration over an exact one ('${wrong}'):\n${out}")
  endif()
endforeach()
