# Install rules: `cmake --install build --prefix P` gives
#   P/bin/kdet
#   P/lib/kdet/libkdet_chaos.so, libkdet_listing.so, libkdet_capture.so, kdet-exec-shim (kdet finds them relative to bin/kdet)
#   P/lib/libkdet_cache.so, P/include/kdet_cache.h, P/lib/pkgconfig/kdet-cache.pc
#   P/SITE/kdet_cache/  (the Python module, python/kdet_cache/; SITE: python3's site-packages or
#                        dist-packages under P, else lib/python3/dist-packages; install_python.cmake)
#   P/SITE/kdet_stage/  (the Python stage recipes of `kdet run --py`, python/kdet_stage/)
#   P/share/man/man1/kdet.1, kdet-COMMAND.1           (help2man, from each command's --help)
#   P/share/bash-completion/completions/kdet          (kdet completion bash)
#   P/share/kdet/schemas/kdet.NAME.schema.json        (the JSON Schemas of --json, docs/schemas)
# `cmake --install build --strip` strips the binaries (scripts/build.sh makes a Release build).
# (lib is CMAKE_INSTALL_LIBDIR.) The man pages and the completion script are written at build
# time by running the built kdet, so they follow the CLI definitions.
# A build folder configured before the folder was chosen at install time holds the old fixed
# default: it becomes the new default (empty).
set(_kdet_pydir_doc "Where the Python module is installed, relative to the prefix; empty: \
python3's own site-packages or dist-packages under the prefix, else LIBDIR/python3/dist-packages")
if(KDET_INSTALL_PYTHONDIR STREQUAL "${CMAKE_INSTALL_LIBDIR}/python3/dist-packages")
  set(KDET_INSTALL_PYTHONDIR "" CACHE STRING "${_kdet_pydir_doc}" FORCE)
endif()
set(KDET_INSTALL_PYTHONDIR "" CACHE STRING "${_kdet_pydir_doc}")

install(TARGETS kdet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS kdet_chaos kdet_listing kdet_capture LIBRARY DESTINATION ${KDET_INSTALL_PKGLIBDIR})
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
# The importable module over libkdet_cache.so (it finds the library under the same prefix), and
# the recipes of Python stages (`python3 -m kdet_stage NAME` prints one's file for --py).
# Its folder is chosen at install time, when the prefix is known (cmake/install_python.cmake).
install(CODE "set(KDET_PYDIR \"${KDET_INSTALL_PYTHONDIR}\")
set(KDET_PYDIR_FALLBACK \"${CMAKE_INSTALL_LIBDIR}/python3/dist-packages\")
set(KDET_PY_SRC \"${PROJECT_SOURCE_DIR}/python/kdet_cache;${PROJECT_SOURCE_DIR}/python/kdet_stage\")")
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/install_python.cmake)

# The licence travels with the binaries (Apache 2.0 asks that recipients get a copy), and the
# changelog with it, in share/doc/kdet as distributions place them.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The JSON Schemas of kdet's --json documents, for a user's validator (their $ids are names, never
# fetched: a tool loads them from here).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/schemas/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kdet/schemas
  FILES_MATCHING PATTERN "*.schema.json")

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
