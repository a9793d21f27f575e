# Installs the qspec tool, the specification and the vectors under the standard GNU layout.
include(GNUInstallDirs)
install(TARGETS qspec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/spec/ DESTINATION ${CMAKE_INSTALL_DATADIR}/qspec/spec)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/vectors/ DESTINATION ${CMAKE_INSTALL_DATADIR}/qspec/vectors
        FILES_MATCHING PATTERN "*.json")
