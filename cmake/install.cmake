# Install rules: `cmake --install build --prefix P` gives
#   P/bin/kdet
#   P/lib/kdet/libkdet_chaos.so, libkdet_capture.so, kdet-exec-shim (kdet finds them relative to bin/kdet)
#   P/lib/libkdet_cache.so, P/include/kdet_cache.h, P/lib/pkgconfig/kdet-cache.pc
#   P/${KDET_INSTALL_PYTHONDIR}/kdet_cache/           (the Python module, python/kdet_cache/)
#   P/share/man/man1/kdet.1, kdet-COMMAND.1           (help2man, from each command's --help)
#   P/share/bash-completion/completions/kdet          (kdet completion bash)
# (lib is CMAKE_INSTALL_LIBDIR.) The man pages and the completion script are written at build
# time by running the built kdet, so they follow the CLI definitions.
set(KDET_INSTALL_PYTHONDIR "${CMAKE_INSTALL_LIBDIR}/python3/dist-packages" CACHE STRING
  "Where the Python module is installed, relative to the prefix (on sys.path for /usr on Debian)")

install(TARGETS kdet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS kdet_chaos kdet_capture LIBRARY DESTINATION ${KDET_INSTALL_PKGLIBDIR})
# capture finds the shim beside libkdet_capture.so.
install(TARGETS kdet_exec_shim RUNTIME DESTINATION ${KDET_INSTALL_PKGLIBDIR})
install(TARGETS kdet_cache LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/capi/kdet_cache.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The .pc file finds the prefix from its own place (${pcfiledir}), so --prefix at install time
# and a moved tree both work.
cmake_path(RELATIVE_PATH CMAKE_INSTALL_PREFIX BASE_DIRECTORY
  "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig" OUTPUT_VARIABLE KDET_PC_TO_PREFIX)
configure_file(${PROJECT_SOURCE_DIR}/cmake/kdet-cache.pc.in
  ${PROJECT_BINARY_DIR}/kdet-cache.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/kdet-cache.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The importable module over libkdet_cache.so (it finds the library under the same prefix).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/kdet_cache DESTINATION ${KDET_INSTALL_PYTHONDIR}
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)

# Man pages and bash completion, from the built kdet.
find_program(KDET_HELP2MAN help2man)
if(NOT KDET_HELP2MAN)
  message(WARNING "help2man not found (scripts/setup.sh installs it): no man pages are built")
endif()
set(KDET_DOC_DIR ${PROJECT_BINARY_DIR}/doc)
add_custom_command(
  OUTPUT ${KDET_DOC_DIR}/stamp
  COMMAND ${PROJECT_SOURCE_DIR}/cmake/gen_docs.sh $<TARGET_FILE:kdet> ${KDET_DOC_DIR}
          ${PROJECT_VERSION} "${KDET_HELP2MAN}"
  DEPENDS kdet ${PROJECT_SOURCE_DIR}/cmake/gen_docs.sh
  COMMENT "Writing man pages and bash completion from kdet's CLI definitions"
  VERBATIM)
add_custom_target(kdet_docs ALL DEPENDS ${KDET_DOC_DIR}/stamp)
install(DIRECTORY ${KDET_DOC_DIR}/man1 DESTINATION ${CMAKE_INSTALL_MANDIR})
install(FILES ${KDET_DOC_DIR}/completion/kdet
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
