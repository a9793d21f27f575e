# Installs the qspec tool, the backend C ABI, the specification and the vectors, and exports a
# CMake package so an out-of-tree backend can do find_package(qspec) (docs/backend-abi.md):
#   qspec::backend_abi   INTERFACE target: the include directory of <qspec/backend.h>
#   qspec::qspec         the qspec executable (imported), e.g. to run a plugin in a test
#   QSPEC_DATA_DIR       <prefix>/share/qspec (spec/ and vectors/), QSPEC_BACKEND_ABI_VERSION
#   qspec_add_conformance_test(NAME BACKEND [VECTORS] [EXPECT])   a backend's conformance run in CTest
# The installed tree is relocatable: qspec finds share/qspec and lib/qspec/backends relative to
# itself, and the package files locate everything relative to themselves.
# Everything is in install component "qspec" (`cmake --install build --component qspec`).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# What a backend compiles against: only the C header (target qspec_backend_abi, abi/), no qspec library.
set_target_properties(qspec PROPERTIES EXPORT_NAME qspec)
install(TARGETS qspec EXPORT qspecTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT qspec)
install(TARGETS qspec_backend_abi EXPORT qspecTargets COMPONENT qspec)
install(FILES ${PROJECT_SOURCE_DIR}/abi/include/qspec/backend.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/qspec COMPONENT qspec)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/spec/ DESTINATION ${CMAKE_INSTALL_DATADIR}/qspec/spec COMPONENT qspec)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/vectors/ DESTINATION ${CMAKE_INSTALL_DATADIR}/qspec/vectors COMPONENT qspec
        FILES_MATCHING PATTERN "*.json" PATTERN "gen" EXCLUDE)

set(QSPEC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/qspec)
set(QSPEC_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/qspec)
install(EXPORT qspecTargets NAMESPACE qspec:: DESTINATION ${QSPEC_CMAKE_DIR} COMPONENT qspec)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/qspecConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/qspecConfig.cmake
  INSTALL_DESTINATION ${QSPEC_CMAKE_DIR}
  PATH_VARS QSPEC_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/qspecConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/qspecConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/qspecConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/qspecConformanceTest.cmake
        DESTINATION ${QSPEC_CMAKE_DIR} COMPONENT qspec)
