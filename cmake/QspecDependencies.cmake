# Finds every dependency once, as imported targets; cross builds fall back to header-only or source copies.

if(CMAKE_CROSSCOMPILING)
  # The header-only libraries are exposed to the cross compiler by the toolchain file's link
  # directory (never the host's whole /usr/include); stand-in targets keep the link lines uniform.
  foreach(t Boost::headers nlohmann_json::nlohmann_json CLI11::CLI11 RapidJSON::RapidJSON)
    add_library(${t} INTERFACE IMPORTED)
  endforeach()
else()
  find_package(Boost 1.81 REQUIRED)          # Multiprecision is header-only (libboost1.81-dev)
  find_package(nlohmann_json 3.10 REQUIRED)
  find_package(CLI11 REQUIRED)
  # rapidjson-dev: header-only; its validator (JSON Schema draft 4) checks vectors/schema/*.json.
  # (libvalijson-dev, used before, pulls Qt5, Poco, a MariaDB client and Vulkan headers.)
  find_package(RapidJSON 1.1 REQUIRED)
  if(NOT TARGET RapidJSON::RapidJSON)
    add_library(RapidJSON::RapidJSON INTERFACE IMPORTED)
    set_target_properties(RapidJSON::RapidJSON PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${RAPIDJSON_INCLUDE_DIRS}")
  endif()
endif()
find_package(Threads REQUIRED)

if(QSPEC_BUILD_TESTS)
  if(CMAKE_CROSSCOMPILING)
    # Debian ships GoogleTest's sources (package googletest, pulled by libgtest-dev): build them
    # for the target. RapidCheck ships only a host static library, so the cross build runs the
    # unit, exhaustive and vector tests and leaves properties to the host build.
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/_googletest EXCLUDE_FROM_ALL)
    # googletest's own CMake already defines the GTest:: aliases.
  else()
    find_package(GTest REQUIRED)
    find_package(rapidcheck REQUIRED)
  endif()
  include(GoogleTest)
endif()

if(NOT CMAKE_CROSSCOMPILING)
  find_package(benchmark QUIET)
endif()

# Third-party libraries (tools/install-deps backends). Optional: adapters and cross-checks
# are built only when found, and the configure log says which were skipped.
set(QSPEC_HAVE_GEMMLOWP OFF)
if(QSPEC_THIRD_PARTY AND EXISTS /usr/include/gemmlowp/fixedpoint/fixedpoint.h AND NOT CMAKE_CROSSCOMPILING)
  set(QSPEC_HAVE_GEMMLOWP ON)
endif()
find_library(QSPEC_XNNPACK_LIB XNNPACK)
find_library(QSPEC_PTHREADPOOL_LIB pthreadpool)
find_library(QSPEC_DNNL_LIB dnnl)
message(STATUS "qspec: gemmlowp=${QSPEC_HAVE_GEMMLOWP} xnnpack=${QSPEC_XNNPACK_LIB} dnnl=${QSPEC_DNNL_LIB}")
