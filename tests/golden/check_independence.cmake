# Fails when a reference shares code with the arithmetic it checks (issue 14 item 7): the golden
# model (sim/golden) includes a base/numerics arithmetic header or links a hardware library, or
# the PE/array testbenches compute their expected values with the hardware's MACs. Run by the
# CTest `golden_independence`:
#   cmake -DROOT=<repository> -DGOLDEN_LINKS=<flycol_golden's link closure, comma-separated> -P check_independence.cmake
if(NOT ROOT)
  message(FATAL_ERROR "check_independence.cmake: set -DROOT=<repository root>")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/../common/scan_includes.cmake)
set(violations "")
# 1. sim/golden: no base/numerics header at all (its arithmetic is fp16_exact.h and int_exact.h).
file(GLOB files LIST_DIRECTORIES false "${ROOT}/sim/golden/*.h" "${ROOT}/sim/golden/*.cpp")
scan_includes(violations "${ROOT}" "base/numerics/" " (the golden model must not share the hardware's arithmetic)" ${files})
# 2. The golden library links no hardware model (flycol_hw_common, the parameter and token types
# the configuration parser fills, holds no arithmetic).
string(REPLACE "," ";" golden_links "${GOLDEN_LINKS}")
foreach(lib ${golden_links})
  if(lib MATCHES "^flycol_hw_" AND NOT lib STREQUAL "flycol_hw_common")
    string(APPEND violations "  flycol_golden links ${lib}\n")
  endif()
endforeach()
# 3. The PE and array benches take their MACs from the golden model, never from base/numerics.
foreach(tb tb/pe/pe_tb.cpp tb/array/array_tb.cpp)
  if(EXISTS "${ROOT}/${tb}")
    file(STRINGS "${ROOT}/${tb}" lines REGEX "(fp16|intmac)::(mac|fma|fma_hf|mac_row|mac_rows|mac_span|mul)[ \t]*\\(")
    foreach(line ${lines})
      string(STRIP "${line}" line)
      string(APPEND violations "  ${tb}: ${line} (a reference computed with the code under test)\n")
    endforeach()
  endif()
endforeach()

if(violations)
  message(FATAL_ERROR "independence of references: these share code with what they check:\n${violations}"
                      "Use sim/golden/fp16_exact.h and int_exact.h instead.")
endif()
message(STATUS "independence: sim/golden and the PE/array benches use none of the hardware's arithmetic")
