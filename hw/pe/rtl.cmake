# RTL of the PE arithmetic (fp16_fma.sv, int_mac.sv) and their testbenches (tb/fp16_fma/, tb/int_mac/).
# Included by hw/pe/CMakeLists.txt. The units take no configuration, so they are Verilated once,
# through multi-lane test wrappers that make the 10M-vector and exhaustive runs fast.

flycol_rtl_sources(${CMAKE_CURRENT_LIST_DIR}/fp16_fma.sv ${CMAKE_CURRENT_LIST_DIR}/int_mac.sv)

find_package(Threads REQUIRED)

# flycol_pe_arith_tb(<name> TOP <wrapper> TB <cpp> SOURCES <sv...>): Verilates <wrapper> into
# <name>_rtl (lint warnings are fatal: these files must stay `verilator -Wall` clean) and builds the
# testbench <cpp> against it. The reference of both is base/numerics (checked against exact
# references in tests/numerics); the units have no C++ core of their own.
function(flycol_pe_arith_tb name)
  cmake_parse_arguments(ARG "" "TOP;TB" "SOURCES" ${ARGN})
  add_library(${name}_rtl STATIC)
  verilate(${name}_rtl PREFIX V${ARG_TOP} TOP_MODULE ${ARG_TOP} SOURCES ${ARG_SOURCES}
           VERILATOR_ARGS --assert -Wall -I${FLYCOL_RTL_INCLUDE_DIR} ${FLYCOL_VERILATOR_EXTRA_ARGS} ${FLYCOL_VERILATED_CXX_OPT})
  flycol_share_verilator_runtime(${name}_rtl)
  # Verilator's own headers do not pass -Wextra (verilated_types.h has an unused parameter), so
  # the testbench sees them, and the generated headers, as system headers.
  get_target_property(vl_includes ${name}_rtl INTERFACE_INCLUDE_DIRECTORIES)
  set_target_properties(${name}_rtl PROPERTIES POSITION_INDEPENDENT_CODE ON
                        INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${vl_includes}")
  add_executable(${name} ${ARG_TB})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE ${name}_rtl flycol_numerics fmt::fmt Threads::Threads)
  flycol_target_warnings(${name})
endfunction()

if(FLYCOL_BUILD_RTL)
flycol_pe_arith_tb(fp16_fma_rtl_tb TOP fp16_fma_lanes TB ${PROJECT_SOURCE_DIR}/tb/fp16_fma/fp16_fma_tb.cpp
                   SOURCES ${CMAKE_CURRENT_LIST_DIR}/fp16_fma.sv ${PROJECT_SOURCE_DIR}/tb/fp16_fma/fp16_fma_lanes.sv)
add_test(NAME fp16_fma_rtl_tb COMMAND fp16_fma_rtl_tb)
set_tests_properties(fp16_fma_rtl_tb PROPERTIES LABELS "rtl" TIMEOUT 120)
# All 2^32 products through the FMA (c = -0) against fp16::mul, on every hardware thread.
add_test(NAME fp16_fma_rtl_tb_exhaustive_mul COMMAND fp16_fma_rtl_tb --exhaustive-mul)
set_tests_properties(fp16_fma_rtl_tb_exhaustive_mul PROPERTIES LABELS "rtl;slow" TIMEOUT 3600)

flycol_pe_arith_tb(int_mac_rtl_tb TOP int_mac_lanes TB ${PROJECT_SOURCE_DIR}/tb/int_mac/int_mac_tb.cpp
                   SOURCES ${CMAKE_CURRENT_LIST_DIR}/int_mac.sv ${PROJECT_SOURCE_DIR}/tb/int_mac/int_mac_lanes.sv)
add_test(NAME int_mac_rtl_tb COMMAND int_mac_rtl_tb)
set_tests_properties(int_mac_rtl_tb PROPERTIES LABELS "rtl" TIMEOUT 120)
endif()
