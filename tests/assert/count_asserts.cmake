# CTest driver (cmake -P): every RTL module (hw/**/*.sv holding a `module`, except the formal
# harnesses hw/**/*_formal.sv, which state their own properties for Yosys) includes
# flycol_assert.svh and has an assertion section using its macros; prints the count per file
# (assertions, covers) as the table of docs/verification.md. Fails naming any file without one.
# Variables: ROOT (the repository).
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE files RELATIVE ${ROOT} ${ROOT}/hw/*.sv)
list(FILTER files EXCLUDE REGEX "_formal\\.sv$")
list(SORT files)
set(missing "")
set(total_a 0)
set(total_c 0)
set(n 0)
message("| file | assertions | covers |")
message("|---|---|---|")
foreach(f ${files})
  file(READ ${ROOT}/${f} text)
  if(NOT text MATCHES "\nmodule ")
    continue()  # a package (flycol_pkg, the configuration packages)
  endif()
  string(REGEX MATCHALL "`FLYCOL_(ASSERT|ASSUME)[A-Z_]*\\(" a "${text}")
  string(REGEX MATCHALL "`FLYCOL_COVER\\(" c "${text}")
  list(LENGTH a na)
  list(LENGTH c nc)
  math(EXPR total_a "${total_a} + ${na}")
  math(EXPR total_c "${total_c} + ${nc}")
  math(EXPR n "${n} + 1")
  message("| `${f}` | ${na} | ${nc} |")
  if(na EQUAL 0 OR NOT text MATCHES "`include \"flycol_assert.svh\""
     OR NOT text MATCHES "// ---- Assertions \\(hw/common/flycol_assert.svh\\) ----")
    list(APPEND missing ${f})
  endif()
endforeach()
message("| ${n} modules | ${total_a} | ${total_c} |")
if(missing)
  string(JOIN "\n  " list ${missing})
  message(FATAL_ERROR "RTL modules without an assertion section (`include \"flycol_assert.svh\", the "
                      "'// ---- Assertions (hw/common/flycol_assert.svh) ----' line and at least one "
                      "FLYCOL_ASSERT* macro; docs/dev/rtl_conventions.md):\n  ${list}")
endif()
