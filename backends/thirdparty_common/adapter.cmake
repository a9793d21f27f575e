# CMake helpers for third-party adapter plugins; included by each backends/<library>/CMakeLists.txt.
#
# backends/CMakeLists.txt adds the backend directories in alphabetical order, so the adapters
# (gemmlowp, onednn, xnnpack) cannot rely on thirdparty_common/CMakeLists.txt having run first;
# they include this file instead, and the include guard makes the shared target exist once.
include_guard(GLOBAL)
include(GNUInstallDirs)

# A cache variable: include_guard(GLOBAL) skips this file in the second adapter directory.
set(QSPEC_THIRDPARTY_COMMON_DIR ${CMAKE_CURRENT_LIST_DIR} CACHE INTERNAL "")

# The adapters' shared code: C ABI glue, tensor I/O, parameter translation. Static and PIC so it
# links into each plugin; hidden visibility so two plugins in one process never share symbols.
add_library(qspec_thirdparty_common STATIC
  ${QSPEC_THIRDPARTY_COMMON_DIR}/src/adapter.cc
  ${QSPEC_THIRDPARTY_COMMON_DIR}/src/tensor_io.cc
  ${QSPEC_THIRDPARTY_COMMON_DIR}/src/requant_params.cc)
target_include_directories(qspec_thirdparty_common PUBLIC ${QSPEC_THIRDPARTY_COMMON_DIR}/include)
target_link_libraries(qspec_thirdparty_common PUBLIC qspec_core qspec_backend_common nlohmann_json::nlohmann_json)
set_target_properties(qspec_thirdparty_common PROPERTIES
  POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
qspec_warnings(qspec_thirdparty_common)

# The version of an installed Debian package ("" if dpkg does not know it), for backend versions.
function(qspec_debian_package_version pkg out_var)
  find_program(QSPEC_DPKG_QUERY dpkg-query)
  set(v "")
  if(QSPEC_DPKG_QUERY)
    execute_process(COMMAND ${QSPEC_DPKG_QUERY} -W -f=\${Version} ${pkg}
      OUTPUT_VARIABLE v ERROR_QUIET RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      set(v "")
    endif()
  endif()
  set(${out_var} "${v}" PARENT_SCOPE)
endfunction()

# qspec_thirdparty_plugin(<name> SRCS ... [LIBS ...] [SYSTEM_INCLUDES ...] [DEFINES ...])
# Builds qspec_backend_<name>.so as an out-of-tree user would: a shared module exporting only
# qspec_backend_create. Third-party headers are SYSTEM includes so their warnings do not trip
# -Werror; the static qspec code inside is hidden (--exclude-libs).
function(qspec_thirdparty_plugin name)
  cmake_parse_arguments(A "" "" "SRCS;LIBS;SYSTEM_INCLUDES;DEFINES" ${ARGN})
  set(t qspec_backend_${name})
  add_library(${t} MODULE ${A_SRCS})
  set_target_properties(${t} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/backends/plugins)
  target_include_directories(${t} SYSTEM PRIVATE ${A_SYSTEM_INCLUDES})
  target_link_libraries(${t} PRIVATE qspec_thirdparty_common ${A_LIBS})
  target_link_options(${t} PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined)
  target_compile_definitions(${t} PRIVATE ${A_DEFINES})
  qspec_warnings(${t})
  install(TARGETS ${t} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/qspec/backends COMPONENT qspec OPTIONAL)
endfunction()

# qspec_thirdparty_plugin_test(<name> PLUGIN <plugin name> SRCS ...): a GoogleTest binary (label
# backend) that loads the plugin through dlopen + qspec_backend_create, the path a user's takes.
function(qspec_thirdparty_plugin_test name)
  cmake_parse_arguments(A "" "PLUGIN" "SRCS" ${ARGN})
  if(NOT QSPEC_BUILD_TESTS)
    return()
  endif()
  qspec_test(${name} SRCS ${A_SRCS} DEPS ${CMAKE_DL_LIBS} nlohmann_json::nlohmann_json LABELS backend TIMEOUT 120)
  target_include_directories(${name} PRIVATE ${QSPEC_THIRDPARTY_COMMON_DIR}/testing
    ${PROJECT_SOURCE_DIR}/abi/include)
  target_compile_definitions(${name} PRIVATE QSPEC_PLUGIN_PATH="$<TARGET_FILE:qspec_backend_${A_PLUGIN}>")
  add_dependencies(${name} qspec_backend_${A_PLUGIN})
endfunction()

# qspec_thirdparty_builtin(<name>): registers `<name>` in the qspec executable's built-in backend
# registry as a thin loader of qspec_backend_<name>.so (builtin.cc in the adapter directory), so
# `qspec run --backend <name>` works without a path. qspec does not link the library itself.
function(qspec_thirdparty_builtin name)
  if(NOT TARGET qspec OR NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/builtin.cc)
    return()
  endif()
  set(t qspec_builtin_${name})
  add_library(${t} OBJECT ${CMAKE_CURRENT_SOURCE_DIR}/builtin.cc)
  target_include_directories(${t} PRIVATE ${QSPEC_THIRDPARTY_COMMON_DIR}/include ${PROJECT_SOURCE_DIR}/abi/include)
  # The installed plugin relative to the installed qspec (bin/ -> lib/qspec/backends/): a moved
  # install prefix keeps working. (GNUInstallDirs' FULL_ paths are directory-scoped: this file's
  # include guard skips them in the second adapter directory.)
  include(GNUInstallDirs)
  file(RELATIVE_PATH rel ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR}/qspec/backends/qspec_backend_${name}.so)
  target_compile_definitions(${t} PRIVATE
    QSPEC_PLUGIN_BUILD_PATH="$<TARGET_FILE:qspec_backend_${name}>"
    QSPEC_PLUGIN_INSTALL_PATH="${rel}")
  qspec_warnings(${t})
  target_link_libraries(qspec PRIVATE ${t} ${CMAKE_DL_LIBS})
  add_dependencies(qspec qspec_backend_${name})
endfunction()

# qspec_thirdparty_conformance_test(<name>): CTest `conformance_<name>` (label backend) runs the
# built-in `<name>` on the shipped vectors with backends/<name>/expect.txt: the library must meet
# its own conventions except for the listed, classified deviations (docs/third-party.md).
function(qspec_thirdparty_conformance_test name)
  if(NOT TARGET qspec OR NOT QSPEC_BUILD_TESTS)
    return()
  endif()
  add_test(NAME conformance_${name}
    COMMAND qspec --root ${PROJECT_SOURCE_DIR} run --backend ${name} --vectors ${PROJECT_SOURCE_DIR}/vectors
            --expect ${CMAKE_CURRENT_SOURCE_DIR}/expect.txt --progress never --max-diagnostics 20
            --timeout 60)  # loading libtorch takes longer than the default 10 s on a loaded machine
  set_tests_properties(conformance_${name} PROPERTIES LABELS backend TIMEOUT 300
    ENVIRONMENT "OMP_NUM_THREADS=1;QSPEC_PLUGIN_DIR=${CMAKE_BINARY_DIR}/backends/plugins")
endfunction()

# The shared code's own unit tests (the adapters' behaviour is tested through their plugins).
if(QSPEC_BUILD_TESTS)
  qspec_test(thirdparty_output_dtype_hint_test SRCS ${QSPEC_THIRDPARTY_COMMON_DIR}/tests/output_dtype_hint_test.cc
    DEPS qspec_thirdparty_common LABELS unit)
endif()
