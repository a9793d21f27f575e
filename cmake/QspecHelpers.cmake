# One-line helpers to add a qspec library, test or tool with the project's warning and label policy.

# Warnings for project code only (never for third-party sources built alongside). They are errors
# only when QSPEC_WERROR is ON: the project's presets (CMakePresets.json) and so CI turn it on; a
# plain `cmake -DCMAKE_BUILD_TYPE=Release` build, a distribution's package build or a consumer's
# add_subdirectory never fail on a warning a newer or older compiler invents.
option(QSPEC_WERROR "Treat warnings in qspec's own code as errors (ON in CMakePresets.json's presets and CI)" OFF)
set(QSPEC_WARNINGS -Wall -Wextra)
# GCC 12 at -O3 (a plain Release build) warns -Wrestrict inside libstdc++'s own std::string
# concatenation (`"[" + s + "]"`: "__builtin_memcpy accessing 9223372036854775810 or more bytes ...
# may overlap"), a known false positive of GCC 12 (GCC PR 105329 and PR 105651, fixed in GCC 13)
# that fired at 14 call sites here. It says nothing about qspec's code, so GCC 12 does not run it
# in the -O3 configuration (the presets' RelWithDebInfo, -O2, never raised it).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND QSPEC_WARNINGS $<$<CONFIG:Release>:-Wno-restrict>)
endif()
if(QSPEC_WERROR)
  list(APPEND QSPEC_WARNINGS -Werror -Wno-error=deprecated-declarations)
endif()

# Test drivers (the GoogleTest/RapidCheck binaries of qspec_test) build at -Og in the optimizing
# build types: their own code is test scaffolding (GoogleTest, RapidCheck and Boost templates), and
# -O2 spent a third more compile time on it than -Og (measured on five conformance files: 43.0 vs
# 28.5 CPU-s), ~130 s of CI's two cores. The code they test (reference, core, harness, backends)
# is built by its own targets at the build type's level, so what is judged is what ships.
option(QSPEC_TEST_DRIVERS_OG "Compile test drivers at -Og in optimizing build types (the code under test keeps its level)" ON)

# Deterministic RapidCheck seed used by every property test in CTest (override with RC_PARAMS).
set(QSPEC_RC_SEED 20261121 CACHE STRING "RapidCheck seed for property tests run by CTest")
set(QSPEC_RC_MAX_SUCCESS 200 CACHE STRING "RapidCheck cases per property in CTest")

function(qspec_warnings target)
  target_compile_options(${target} PRIVATE ${QSPEC_WARNINGS})
endfunction()

# What every test driver is compiled with: the warnings, -Og (QSPEC_TEST_DRIVERS_OG) and the source
# tree's path. The precompiled header's anchor gets exactly these, so that its PCH is valid for them.
function(qspec_test_driver_options target)
  qspec_warnings(${target})
  if(QSPEC_TEST_DRIVERS_OG)
    target_compile_options(${target} PRIVATE $<$<CONFIG:RelWithDebInfo,Release,MinSizeRel>:-Og>)
  endif()
  target_compile_definitions(${target} PRIVATE QSPEC_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endfunction()

# One precompiled header for the test drivers under conformance/ (about 110 single-file binaries,
# each of which parsed GoogleTest, RapidCheck, nlohmann::json and the standard library again: 1-2.5
# CPU-s of a 1.5-7 s compile). Only third-party and standard headers: a change to qspec's own
# headers never rebuilds it. Built once, by the anchor below (call qspec_test_pch() in the
# directory whose compile options the drivers share), and reused by every qspec_test there and
# below (REUSE_FROM) unless it says NO_PCH: a driver compiled with code-generation flags GCC records
# in a PCH (-fPIE/-fPIC, -m ISA flags; -ffp-contract=off is not one of them: those drivers use it)
# would find the PCH invalid, which -Winvalid-pch (added by CMake) turns into an error under
# QSPEC_WERROR. Off: -DQSPEC_TEST_PCH=OFF (also the way to check that every
# driver includes what it uses). ccache caches PCH users only with
# CCACHE_SLOPPINESS=pch_defines,time_macros (docs/CONTRIBUTING.md).
option(QSPEC_TEST_PCH "Compile the conformance test drivers with one shared precompiled header" ON)
function(qspec_test_pch)
  # Cross builds: the emulated suite is small, and the host's headers are not the target's.
  if(NOT QSPEC_TEST_PCH OR TARGET qspec_test_pch OR CMAKE_CROSSCOMPILING)
    return()
  endif()
  # An executable, not an OBJECT library: GCC's PCH records -fPIE (executables) versus -fPIC.
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/qspec_test_pch.cc
       "// The anchor of the test drivers' precompiled header.\nint main() { return 0; }\n")
  add_executable(qspec_test_pch ${CMAKE_CURRENT_BINARY_DIR}/qspec_test_pch.cc)
  qspec_test_driver_options(qspec_test_pch)
  target_link_libraries(qspec_test_pch PRIVATE GTest::gtest GTest::gmock rapidcheck rapidcheck_gtest
                                               nlohmann_json::nlohmann_json)
  target_precompile_headers(qspec_test_pch PRIVATE
    <gtest/gtest.h> <gmock/gmock.h> <rapidcheck.h> <rapidcheck/gtest.h> <nlohmann/json.hpp>
    <algorithm> <bit> <cmath> <cstdint> <filesystem> <fstream> <functional> <map> <optional> <random>
    <regex> <set> <sstream> <string> <vector>)
endfunction()

# qspec_library(name SRCS a.cc b.cc [DEPS x y] [PUBLIC_INCLUDE dir] [OBJECT])
function(qspec_library name)
  cmake_parse_arguments(A "OBJECT" "PUBLIC_INCLUDE" "SRCS;DEPS" ${ARGN})
  if(A_OBJECT)
    add_library(${name} OBJECT ${A_SRCS})
  else()
    add_library(${name} STATIC ${A_SRCS})
  endif()
  add_library(qspec::${name} ALIAS ${name})
  if(A_PUBLIC_INCLUDE)
    target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${A_PUBLIC_INCLUDE}> $<INSTALL_INTERFACE:include>)
  endif()
  target_link_libraries(${name} PUBLIC ${A_DEPS})
  qspec_warnings(${name})
endfunction()

# qspec_test(name SRCS a.cc [DEPS x] LABELS unit|property|exhaustive|crosscheck|vectors|harness|backend
#            [TIMEOUT s] [NO_MAIN] [NO_PCH])
# Registers the GoogleTest cases one by one with CTest (discovered when CTest runs, so cross
# builds discover them under the emulator). Property tests get a fixed RapidCheck seed. Under
# conformance/ the driver reuses the shared precompiled header (qspec_test_pch) unless NO_PCH.
function(qspec_test name)
  cmake_parse_arguments(A "NO_MAIN;NO_PCH" "TIMEOUT" "SRCS;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${A_SRCS})
  qspec_test_driver_options(${name})
  if("property" IN_LIST A_LABELS)
    # Fixed seed by default (conformance/support/rc_main.cc), whether run by CTest or by hand. One
    # object for every property binary: compiled per binary it cost 43 compilations (~58 CPU-s a build).
    if(NOT TARGET qspec_rc_main)
      add_library(qspec_rc_main OBJECT ${PROJECT_SOURCE_DIR}/conformance/support/rc_main.cc)
      qspec_warnings(qspec_rc_main)
      target_compile_definitions(qspec_rc_main PRIVATE
        QSPEC_RC_DEFAULT_PARAMS="seed=${QSPEC_RC_SEED} max_success=${QSPEC_RC_MAX_SUCCESS}")
      target_link_libraries(qspec_rc_main PRIVATE GTest::gtest)
    endif()
    target_link_libraries(${name} PRIVATE qspec_rc_main ${A_DEPS} GTest::gtest GTest::gmock rapidcheck rapidcheck_gtest)
  elseif(A_NO_MAIN)
    target_link_libraries(${name} PRIVATE ${A_DEPS} GTest::gtest GTest::gmock)
  else()
    target_link_libraries(${name} PRIVATE ${A_DEPS} GTest::gtest_main GTest::gmock)
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 600)
  endif()
  # Tests under conformance/ are the clauses' properties and tests: `qspec spec lint` lists them.
  string(FIND "${CMAKE_CURRENT_SOURCE_DIR}/" "${PROJECT_SOURCE_DIR}/conformance/" _in_conformance)
  if(_in_conformance EQUAL 0)
    set_property(GLOBAL APPEND PROPERTY QSPEC_CLAUSE_TEST_TARGETS ${name})
    if(TARGET qspec_test_pch AND NOT A_NO_PCH)
      target_precompile_headers(${name} REUSE_FROM qspec_test_pch)
    endif()
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS "${A_LABELS}" TIMEOUT ${A_TIMEOUT})
endfunction()

# qspec_conformance_dir(): one test binary per *.cc in the current directory, labelled by its
# file name: *_properties.cc -> property, exhaustive_*.cc -> exhaustive, crosscheck_*.cc ->
# crosscheck, anything else -> unit. Adding a test file needs no CMake edit.
function(qspec_conformance_dir)
  cmake_parse_arguments(A "" "" "DEPS;EXCLUDE" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  foreach(src ${srcs})
    get_filename_component(stem ${src} NAME_WE)
    if(stem IN_LIST A_EXCLUDE)
      continue()
    endif()
    if(stem MATCHES "_properties$")
      if(CMAKE_CROSSCOMPILING)
        continue()
      endif()
      set(label property)
    elseif(stem MATCHES "^exhaustive_")
      set(label exhaustive)
    elseif(stem MATCHES "^crosscheck_")
      set(label crosscheck)
    else()
      set(label unit)
    endif()
    qspec_test(${stem} SRCS ${src} DEPS ${A_DEPS} LABELS ${label})
  endforeach()
endfunction()
