# Project-wide compile settings applied per target, so that third-party and Verilator-generated
# code keeps its own flags while flycol's own code is held to -Wall -Wextra (and -Werror in CI).

# Aggregate target of the tests the sanitizer job runs (unit tests and SystemC testbenches: no
# Verilated models, which would take most of CI's time to build twice).
if(NOT TARGET flycol_sanitized_tests)
  add_custom_target(flycol_sanitized_tests)
endif()

if(FLYCOL_SANITIZE)
  add_compile_options(-fsanitize=${FLYCOL_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${FLYCOL_SANITIZE})
  if(FLYCOL_SANITIZE MATCHES "address")
    # SystemC runs SC_THREADs on its own coroutine stacks without telling ASan (Debian's build has
    # no fiber annotations), so an exception thrown there (a testbench provoking SC_REPORT_ERROR)
    # leaves stale use-after-scope poison on the stack and a later frame reports a false
    # stack-use-after-scope. Heap, global and stack-buffer checks stay on.
    add_compile_options(-fno-sanitize-address-use-after-scope)
  endif()
endif()

function(flycol_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wnon-virtual-dtor)
  if(FLYCOL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# flycol_library(name SOURCES ... DEPS ...): a small static library with one job, its headers
# included as "<folder>/<header>.h" relative to the repository root.
function(flycol_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  flycol_target_warnings(${name})
endfunction()

# flycol_catch_test(name LABELS ... SOURCES ... DEPS ... [SLOW] [PREFIX p]): a Catch2 test binary
# whose test cases are registered one by one with CTest as "<name>:<test case>" (or "<p>:<test
# case>": tests that moved to another binary keep their CTest names) and carry the given labels.
# With SLOW, the hidden test cases tagged [.slow] run as one more CTest test labelled `slow`.
function(flycol_catch_test name)
  cmake_parse_arguments(ARG "SLOW" "PREFIX" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT ARG_PREFIX)
    set(ARG_PREFIX ${name})
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE flycol_catch_main ${ARG_DEPS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  flycol_target_warnings(${name})
  catch_discover_tests(${name} TEST_PREFIX "${ARG_PREFIX}:" PROPERTIES LABELS "${ARG_LABELS}"
                       DISCOVERY_TIMEOUT 60)
  add_dependencies(flycol_sanitized_tests ${name})
  if(ARG_SLOW)
    add_test(NAME ${name}:slow COMMAND ${name} "[slow]")
    set_tests_properties(${name}:slow PROPERTIES LABELS "slow")
  endif()
endfunction()

# flycol_sc_tb(name SOURCES ... DEPS ... [LABELS ...] [ARGS ...] [TIMEOUT s]): a SystemC testbench
# (its own sc_main) registered as one CTest test. Labels default to `sc`. A testbench exits
# non-zero on any SC_ERROR, mismatch or watchdog timeout.
function(flycol_sc_tb name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS;ARGS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS sc)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} PkgConfig::SYSTEMC)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  flycol_target_warnings(${name})
  add_test(NAME ${name} COMMAND ${name} ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
  add_dependencies(flycol_sanitized_tests ${name})
endfunction()
