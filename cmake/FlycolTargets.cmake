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

# gcov instrumentation (FLYCOL_COVERAGE, scripts/coverage): -O1 rather than -O0 so that the SystemC
# regressions still run in minutes; -fno-inline keeps every header function's lines its own (and
# counted) instead of dissolving them into callers, and the pure abort() branches of assert() and
# exceptions are filtered out by gcovr, not here.
if(FLYCOL_COVERAGE)
  if(FLYCOL_SANITIZE)
    message(FATAL_ERROR "FLYCOL_COVERAGE and FLYCOL_SANITIZE together: use two build directories")
  endif()
  add_compile_options(--coverage -O1 -fno-inline -g)
  add_link_options(--coverage)
endif()

function(flycol_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wnon-virtual-dtor)
  if(FLYCOL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# flycol_arg_defaults(<prefix> <KEY> <value> ...): after cmake_parse_arguments(<prefix> ...),
# gives each keyword the caller left out its default, one value each (a macro, so it sets the
# caller's variables).
macro(flycol_arg_defaults prefix)
  set(_flycol_defaults ${ARGN})
  while(_flycol_defaults)
    list(POP_FRONT _flycol_defaults _flycol_key _flycol_value)
    if(NOT ${prefix}_${_flycol_key})
      set(${prefix}_${_flycol_key} ${_flycol_value})
    endif()
  endwhile()
endmacro()

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
# case>": tests that moved to another binary keep their CTest names) and carry the given label (one:
# catch_discover_tests passes PROPERTIES on as separate arguments, so a second label would be taken
# for a property name).
# With SLOW, the hidden test cases tagged [.slow] run as one more CTest test labelled `slow`.
function(flycol_catch_test name)
  cmake_parse_arguments(ARG "SLOW" "PREFIX" "SOURCES;DEPS;LABELS" ${ARGN})
  flycol_arg_defaults(ARG PREFIX ${name})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE flycol_catch_main ${ARG_DEPS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  # tests/common/test_util.h: repo_path() reads files of the source tree.
  target_compile_definitions(${name} PRIVATE FLYCOL_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
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
  flycol_arg_defaults(ARG LABELS sc TIMEOUT 600)
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} PkgConfig::SYSTEMC)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  flycol_target_warnings(${name})
  add_test(NAME ${name} COMMAND ${name} ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
  add_dependencies(flycol_sanitized_tests ${name})
endfunction()

# flycol_block_tb(<block> SOURCES ... DEPS ... [VIEWS core sc] [LONG_ARG arg] [TIMEOUT s]
#                 [LONG_TIMEOUT s]): the C++-core and SystemC views of the one testbench of a block
# (tb/<block>/, docs/dev/block_conventions.md). One executable <block>_tb; per view a CTest test
# <block>_tb_<view> running `<block>_tb --view <view>` (label sc) and, with LONG_ARG (e.g. --long),
# a <block>_tb_<view>_<long> adding that argument (labels sc;slow). The RTL view is built from the same
# sources by flycol_rtl_tb, which defines FLYCOL_VTOP.
function(flycol_block_tb block)
  cmake_parse_arguments(ARG "" "LONG_ARG;TIMEOUT;LONG_TIMEOUT" "SOURCES;DEPS;VIEWS" ${ARGN})
  if(NOT ARG_VIEWS)
    set(ARG_VIEWS core sc)
  endif()
  flycol_arg_defaults(ARG TIMEOUT 600 LONG_TIMEOUT 1800)
  set(exe ${block}_tb)
  string(REGEX REPLACE "^-+" "" long_suffix "${ARG_LONG_ARG}")
  add_executable(${exe} ${ARG_SOURCES})
  target_link_libraries(${exe} PRIVATE ${ARG_DEPS} fmt::fmt PkgConfig::SYSTEMC)
  target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR})
  flycol_target_warnings(${exe})
  add_dependencies(flycol_sanitized_tests ${exe})
  foreach(view ${ARG_VIEWS})
    add_test(NAME ${exe}_${view} COMMAND ${exe} --view ${view})
    set_tests_properties(${exe}_${view} PROPERTIES LABELS sc TIMEOUT ${ARG_TIMEOUT})
    if(ARG_LONG_ARG)
      add_test(NAME ${exe}_${view}_${long_suffix} COMMAND ${exe} --view ${view} ${ARG_LONG_ARG})
      set_tests_properties(${exe}_${view}_${long_suffix} PROPERTIES LABELS "sc;slow" TIMEOUT ${ARG_LONG_TIMEOUT})
    endif()
  endforeach()
endfunction()

# flycol_check_layers(): the layers link one way (base/ < hw/ < sim/). Called once at the end of
# configuration: a library of base/ may link no flycol library of hw/ or sim/, a block library of
# hw/ (flycol_hw_*) none of sim/. Testbench executables in hw/ folders may link anything.
function(_flycol_dir_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    _flycol_dir_targets(${sub} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(flycol_check_layers)
  _flycol_dir_targets(${PROJECT_SOURCE_DIR}/base base_targets)
  _flycol_dir_targets(${PROJECT_SOURCE_DIR}/hw hw_targets)
  _flycol_dir_targets(${PROJECT_SOURCE_DIR}/sim sim_targets)
  # sim/rtlsim is configured from hw/ (it needs the RTL sources), but it is a sim library.
  if(TARGET flycol_rtlsim)
    list(REMOVE_ITEM hw_targets flycol_rtlsim)
    list(APPEND sim_targets flycol_rtlsim)
  endif()
  set(hw_libs "")
  foreach(t ${hw_targets})
    if(t MATCHES "^flycol_hw_")
      list(APPEND hw_libs ${t})
    endif()
  endforeach()
  set(errors "")
  foreach(pair "base_targets;hw_targets" "base_targets;sim_targets" "hw_libs;sim_targets")
    list(GET pair 0 lower)
    list(GET pair 1 upper)
    foreach(t ${${lower}})
      get_target_property(type ${t} TYPE)
      if(NOT type MATCHES "LIBRARY")
        continue()
      endif()
      get_target_property(deps ${t} LINK_LIBRARIES)
      foreach(d ${deps})
        if(d IN_LIST ${upper})
          string(APPEND errors "  ${t} links ${d}\n")
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(errors)
    message(FATAL_ERROR "flycol layering: a library links a layer above its own (base/ < hw/ < sim/):\n${errors}")
  endif()
endfunction()

# flycol_mark_verilator_coverage(): in a build whose Verilated models count coverage
# (FLYCOL_VERILATOR_EXTRA_ARGS with --coverage*, scripts/coverage --rtl), each target that links a
# Verilated library directly (block testbenches, sim/rtlsim, sim/rtlblocks) is compiled with
# FLYCOL_VERILATOR_COVERAGE, so that it writes the model's counters when it tears the model down
# (sim/rtlsim/verilator_coverage.h). Verilator's own VM_COVERAGE is private to the Verilated
# library; a global define would change every compile command and lose the ccache hits of the
# rest of the build. Called once at the end of configuration.
function(flycol_mark_verilator_coverage)
  if(NOT FLYCOL_VERILATOR_EXTRA_ARGS MATCHES "--coverage")
    return()
  endif()
  _flycol_dir_targets(${PROJECT_SOURCE_DIR} targets)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
      continue()
    endif()
    get_target_property(deps ${t} LINK_LIBRARIES)
    if(NOT deps)
      continue()
    endif()
    foreach(d ${deps})
      if(TARGET ${d})
        get_target_property(cov ${d} VERILATOR_COVERAGE)
        if(cov)
          target_compile_definitions(${t} PRIVATE FLYCOL_VERILATOR_COVERAGE=1)
          break()
        endif()
      endif()
    endforeach()
  endforeach()
endfunction()
