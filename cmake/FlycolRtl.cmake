# RTL build helpers: configuration packages generated from YAML, and Verilated testbenches.
#
# flycol_rtl_cfg_pkg(<tag> <config>) generates ${PROJECT_BINARY_DIR}/rtl/<tag>/flycol_cfg_pkg.sv
# from a configuration name or file and sets FLYCOL_CFG_PKG_<tag> to its path.
#
# flycol_rtl_tb(<name> TOP <module> SOURCES <sv...> TB <cpp...> CONFIGS <tag...> [DEPS <libs>]
#               [LABELS <labels>] [ARGS <args>] [VERILATOR_ARGS <args>] [TIMEOUT s])
# Verilates <module> once per configuration tag (prefix V<module>_<tag>) and builds one test
# executable per tag, <name>_<tag>, compiled with
#   FLYCOL_VTOP=V<module>_<tag>, FLYCOL_VTOP_HEADER="V<module>_<tag>.h", FLYCOL_RTL_CONFIG="<tag>"
# so that one testbench source serves every configuration. Each executable is a CTest test with
# the labels (default `rtl`). Verilation uses --assert and -Wall; the generated code is compiled
# without flycol's warning flags (it is not ours).

find_package(verilator 5.006 REQUIRED HINTS /usr/share/verilator $ENV{VERILATOR_ROOT})

set(FLYCOL_RTL_PKG ${PROJECT_SOURCE_DIR}/hw/common/flycol_pkg.sv)

function(flycol_rtl_cfg_pkg tag config)
  set(out ${PROJECT_BINARY_DIR}/rtl/${tag}/flycol_cfg_pkg.sv)
  set(dep "")
  if(EXISTS ${config})
    set(dep ${config})
  elseif(EXISTS ${PROJECT_SOURCE_DIR}/configs/${config}.yaml)
    set(dep ${PROJECT_SOURCE_DIR}/configs/${config}.yaml)
  endif()
  add_custom_command(OUTPUT ${out}
                     COMMAND flycol_rtlgen --config ${config} --cfg-pkg ${out}
                     DEPENDS flycol_rtlgen ${dep}
                     COMMENT "Generating the RTL configuration package for ${tag}")
  if(NOT TARGET flycol_rtl_cfg_${tag})
    add_custom_target(flycol_rtl_cfg_${tag} DEPENDS ${out})
  endif()
  set(FLYCOL_CFG_PKG_${tag} ${out} PARENT_SCOPE)
endfunction()

# flycol_verilated_lib(<lib> <top module> <tag> SOURCES <sv...> [VERILATOR_ARGS ...]): a static
# library holding the Verilated model V<top>_<tag> (its headers are public). Kept apart from
# flycol's own targets so the generated C++ keeps Verilator's flags, not ours.
function(flycol_verilated_lib lib top tag)
  cmake_parse_arguments(ARG "" "" "SOURCES;VERILATOR_ARGS" ${ARGN})
  add_library(${lib} STATIC)
  add_dependencies(${lib} flycol_rtl_cfg_${tag})
  verilate(${lib} PREFIX V${top}_${tag} TOP_MODULE ${top}
           SOURCES ${FLYCOL_RTL_PKG} ${FLYCOL_CFG_PKG_${tag}} ${ARG_SOURCES}
           VERILATOR_ARGS --assert -Wall -Wno-fatal --x-assign unique --x-initial unique ${ARG_VERILATOR_ARGS}
           OPT_FAST -O2)
  set_target_properties(${lib} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

function(flycol_rtl_tb name)
  cmake_parse_arguments(ARG "" "TOP;TIMEOUT" "SOURCES;TB;CONFIGS;DEPS;LABELS;ARGS;VERILATOR_ARGS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS rtl)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 900)
  endif()
  foreach(tag ${ARG_CONFIGS})
    if(NOT DEFINED FLYCOL_CFG_PKG_${tag})
      message(FATAL_ERROR "flycol_rtl_tb(${name}): no configuration package for '${tag}' (call flycol_rtl_cfg_pkg first)")
    endif()
    set(exe ${name}_${tag})
    flycol_verilated_lib(${exe}_rtl ${ARG_TOP} ${tag} SOURCES ${ARG_SOURCES} VERILATOR_ARGS ${ARG_VERILATOR_ARGS})
    add_executable(${exe} ${ARG_TB})
    target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(${exe} PRIVATE FLYCOL_VTOP=V${ARG_TOP}_${tag}
                               FLYCOL_VTOP_HEADER="V${ARG_TOP}_${tag}.h" FLYCOL_RTL_CONFIG="${tag}")
    target_link_libraries(${exe} PRIVATE ${exe}_rtl ${ARG_DEPS})
    flycol_target_warnings(${exe})
    add_test(NAME ${exe} COMMAND ${exe} ${ARG_ARGS})
    set_tests_properties(${exe} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
  endforeach()
endfunction()
