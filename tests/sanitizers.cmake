# What the tests need in a sanitized build (KDET_ENABLE_ASAN/UBSAN/TSAN):
#   KDET_SANITIZER_NAME      "" in a plain build, else e.g. "ASan+UBSan"
#   KDET_SANITIZER_ENV       options every test gets (ASAN_OPTIONS, UBSAN_OPTIONS, TSAN_OPTIONS)
#   KDET_UNIT_TIMEOUT, KDET_E2E_TIMEOUT   per-test limits (longer when sanitized: the same
#                            assertions, on code that runs 2-15x slower)
#   kdet_sanitizer_skip_reason(TEST OUT)  why TEST cannot run in this build, or ""
#   kdet_sanitizer_test_env(TEST OUT)     extra environment for TEST
# Every sanitizer report is written to <build>/sanitizer-logs/<test>.<tool>.<pid> rather than
# to stderr: workers and compilers write stderr into compiler logs, where a report would be
# recorded as a run outcome and lost. scripts/test.sh fails a phase that leaves any report.
set(KDET_SANITIZER_NAME "")
set(KDET_SANITIZER_ENV "")
set(KDET_UNIT_TIMEOUT 300)
set(KDET_E2E_TIMEOUT 900)
set(KDET_SANITIZER_LOG_DIR ${PROJECT_BINARY_DIR}/sanitizer-logs)
if(NOT KDET_ENABLE_ASAN AND NOT KDET_ENABLE_UBSAN AND NOT KDET_ENABLE_TSAN)
  function(kdet_sanitizer_skip_reason test out)
    set(${out} "" PARENT_SCOPE)
  endfunction()
  function(kdet_sanitizer_test_env test out)
    set(${out} "" PARENT_SCOPE)
  endfunction()
  return()
endif()

file(MAKE_DIRECTORY ${KDET_SANITIZER_LOG_DIR})
set(KDET_UNIT_TIMEOUT 900)
set(KDET_E2E_TIMEOUT 2700)
# Options shared by all tools. Compilers (and the fakes that stand for them) crash on purpose
# and kdet records the signal, so the sanitizers leave SIGSEGV and friends alone instead of
# turning them into a report and exit code. Exit 86: a sanitizer's exit is never mistaken for
# one of kdet's own codes.
set(_common "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:exitcode=86")
set(_names "")
if(KDET_ENABLE_ASAN)
  list(APPEND _names ASan)
endif()
if(KDET_ENABLE_UBSAN)
  list(APPEND _names UBSan)
endif()
if(KDET_ENABLE_TSAN)
  list(APPEND _names TSan)
endif()
list(JOIN _names "+" KDET_SANITIZER_NAME)

# kdet_sanitizer_env_for(TAG OUT): the options with reports logged under TAG.
function(kdet_sanitizer_env_for tag out)
  set(log ${KDET_SANITIZER_LOG_DIR}/${tag})
  # KDET_SANITIZER lets an e2e script leave out a check the sanitizer itself defeats.
  set(env "KDET_SANITIZER=${KDET_SANITIZER_NAME}")
  if(KDET_ENABLE_ASAN)
    # verify_asan_link_order=0: the time factor preloads libfaketime into sanitized workers.
    list(APPEND env "ASAN_OPTIONS=${_common}:log_path=${log}.asan:verify_asan_link_order=0:detect_leaks=1"
      "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp:print_suppressions=0")
  endif()
  if(KDET_ENABLE_UBSAN)
    list(APPEND env "UBSAN_OPTIONS=${_common}:log_path=${log}.ubsan:print_stacktrace=1:halt_on_error=1")
  endif()
  if(KDET_ENABLE_TSAN)
    list(APPEND env "TSAN_OPTIONS=${_common}:log_path=${log}.tsan:second_deadlock_stack=1")
  endif()
  set(${out} "${env}" PARENT_SCOPE)
endfunction()
kdet_sanitizer_env_for(unit KDET_SANITIZER_ENV)

# Tests that cannot run sanitized, each with its reason (printed when the test is skipped).
# Keep this list short: a test belongs here only when the sanitizer itself cannot coexist
# with what the test checks, never because the test fails.
set(KDET_ASAN_SKIPS
  # ASan's allocator keeps its heap at a fixed address, so ASLR no longer moves heap blocks and
  # the heap-order fake gives one output where the test expects ASLR to vary it (seen: exit 0).
  "e2e.run_fakes=ASan's allocator places the heap at a fixed address, so ASLR cannot vary the heap-order fake"
  # The same heap-order fake, through explain: its conclusions are about heap addresses.
  "e2e.explain_fakes=its heap-order fake follows heap addresses, which ASan's allocator keeps at a fixed place across processes"
  # Its assertions are peak-RSS bounds; ASan's shadow memory and quarantine add tens of MiB to
  # every process whatever kdet does. The plain phase checks the bounds.
  "e2e.memory_bounds=asserts peak RSS, which ASan's shadow memory and quarantine inflate (checked in the plain phase)"
  # Its library fake's mallocaddr mode follows heap addresses, which ASan's allocator fixes.
  "e2e.adversary_truth=ASan's allocator places the heap at a fixed address, so ASLR cannot vary the mallocaddr fake"
  # It runs kdet out of file descriptors. UBSan's vptr check first asks whether the object's
  # memory is readable by writing it to a pipe; with no descriptor left for the pipe it calls
  # any object's vptr invalid (seen: "member access within address ... which does not point to
  # an object of type 'Error'", "<memory cannot be printed>", in Error's constructor).
  "e2e.run_kdet_errors=it runs kdet out of file descriptors, and UBSan's vptr check needs one (a pipe) to read memory: it then reports every object's vptr invalid (checked in the plain phase)"
)
set(KDET_TSAN_SKIPS
  # python3 itself is not built with TSan, whose runtime must come first in a process; the
  # cache under concurrent writers is covered by e2e.cache_concurrency.
  "e2e.cache_python=loads the TSan-built libkdet_cache.so into python3, which lacks the TSan runtime"
)
function(kdet_sanitizer_skip_reason test out)
  set(reason "")
  set(lists "")
  if(KDET_ENABLE_ASAN)
    list(APPEND lists KDET_ASAN_SKIPS)
  endif()
  if(KDET_ENABLE_TSAN)
    list(APPEND lists KDET_TSAN_SKIPS)
  endif()
  foreach(l ${lists})
    foreach(entry ${${l}})
      string(FIND "${entry}" "=" eq)
      string(SUBSTRING "${entry}" 0 ${eq} name)
      math(EXPR start "${eq} + 1")
      string(SUBSTRING "${entry}" ${start} -1 why)
      if(name STREQUAL test)
        set(reason "${why}")
        file(APPEND ${KDET_SANITIZER_LOG_DIR}/../sanitizer-skips.txt "${test}: ${why}\n")
      endif()
    endforeach()
  endforeach()
  set(${out} "${reason}" PARENT_SCOPE)
endfunction()

# The Python cache test loads the sanitized libkdet_cache.so into an unsanitized python3:
# the ASan runtime must then be preloaded, and the interpreter's own leaks are not ours.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
  OUTPUT_VARIABLE KDET_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
function(kdet_sanitizer_test_env test out)
  kdet_sanitizer_env_for(${test} env)
  if(KDET_ENABLE_ASAN AND test STREQUAL "e2e.cache_python")
    string(REPLACE "detect_leaks=1" "detect_leaks=0" env "${env}")
    list(APPEND env "LD_PRELOAD=${KDET_LIBASAN}")
  endif()
  set(${out} "${env}" PARENT_SCOPE)
endfunction()
file(REMOVE ${PROJECT_BINARY_DIR}/sanitizer-skips.txt)
