# Installs python/kdet_cache and python/kdet_stage at `cmake --install` time (install(SCRIPT)
# from install.cmake), where the prefix is known. With KDET_PYDIR empty (the default), the
# folder is the first of python3's own sys.path entries (site-packages or dist-packages) under
# the prefix, asked of python3 on PATH and then /usr/bin/python3, so that `import kdet_cache`
# works with no variable (/usr/local/lib/python3.11/dist-packages for /usr/local on Debian, a
# venv's site-packages for the venv's prefix); else PREFIX/lib/python3/dist-packages, which then
# goes on PYTHONPATH.
# Set by install.cmake: KDET_PYDIR, KDET_PYDIR_FALLBACK, KDET_PY_SRC (the module folders).
set(_dir "${KDET_PYDIR}")
if(NOT _dir)
  set(_dir "${KDET_PYDIR_FALLBACK}")
  set(_ask "import os, sys\np = os.path.realpath(sys.argv[1])\nfor d in sys.path:\n    r = os.path.realpath(d) if d else ''\n    if r.startswith(p + '/') and r.endswith(('site-packages', 'dist-packages')):\n        print(r[len(p) + 1:])\n        break\n")
  find_program(_py_path python3 NO_CACHE)
  foreach(_py IN ITEMS "${_py_path}" /usr/bin/python3)
    if(_py AND EXISTS "${_py}")
      execute_process(COMMAND "${_py}" -c "${_ask}" "${CMAKE_INSTALL_PREFIX}"
        OUTPUT_VARIABLE _rel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
      if(_rc EQUAL 0 AND _rel)
        set(_dir "${_rel}")
        break()
      endif()
    endif()
  endforeach()
endif()
file(INSTALL ${KDET_PY_SRC} DESTINATION "${CMAKE_INSTALL_PREFIX}/${_dir}"
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
