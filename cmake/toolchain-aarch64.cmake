# Cross toolchain for AArch64 (g++-aarch64-linux-gnu) with qemu-aarch64 running the tests.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# The header-only dependencies (Boost.Multiprecision, nlohmann-json, CLI11, rapidjson) are
# architecture independent; the cross compiler must not see the host's /usr/include as a
# whole (its glibc headers), so expose only those trees through a directory of links.
set(_qspec_xinc ${CMAKE_BINARY_DIR}/_cross_include)
file(MAKE_DIRECTORY ${_qspec_xinc})
foreach(d boost nlohmann CLI rapidjson)
  if(NOT EXISTS ${_qspec_xinc}/${d})
    file(CREATE_LINK /usr/include/${d} ${_qspec_xinc}/${d} SYMBOLIC)
  endif()
endforeach()
set(CMAKE_CXX_FLAGS_INIT "-isystem ${_qspec_xinc}")
