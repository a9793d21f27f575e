# `format` rewrites project sources with clang-format; `format-check` fails if any would change.
find_program(QSPEC_CLANG_FORMAT clang-format)
if(QSPEC_CLANG_FORMAT)
  file(GLOB_RECURSE QSPEC_FORMAT_SRCS CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/reference/*.h ${PROJECT_SOURCE_DIR}/reference/*.cc
    ${PROJECT_SOURCE_DIR}/harness/*.h ${PROJECT_SOURCE_DIR}/harness/*.cc
    ${PROJECT_SOURCE_DIR}/conformance/*.h ${PROJECT_SOURCE_DIR}/conformance/*.cc
    ${PROJECT_SOURCE_DIR}/backends/*.h ${PROJECT_SOURCE_DIR}/backends/*.cc
    ${PROJECT_SOURCE_DIR}/vectors/*.h ${PROJECT_SOURCE_DIR}/vectors/*.cc
    ${PROJECT_SOURCE_DIR}/bench/*.cc)
  add_custom_target(format COMMAND ${QSPEC_CLANG_FORMAT} -i ${QSPEC_FORMAT_SRCS} COMMENT "clang-format -i")
  add_custom_target(format-check COMMAND ${QSPEC_CLANG_FORMAT} --dry-run --Werror ${QSPEC_FORMAT_SRCS}
                    COMMENT "clang-format --dry-run --Werror")
endif()
