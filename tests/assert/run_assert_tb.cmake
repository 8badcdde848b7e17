# CTest driver (cmake -P) of tests/assert: Verilates assert_fires_tb.sv with the project's RTL and
# assertion flags (--binary), breaking the rule BREAK (or none), runs it, and checks the outcome:
# with BREAK the run must fail and print "Assertion failed in <NAME>"; without, it must pass.
# Variables: VERILATOR, SOURCES (|-separated, packages first), INCDIR, WORK, BREAK, NAME.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" sources "${SOURCES}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(defs "")
if(BREAK)
  set(defs -DFLYCOL_BREAK_${BREAK})
endif()
execute_process(
  COMMAND ${VERILATOR} --binary --timing --assert -Wall -Wno-fatal -I${INCDIR} ${defs} --top-module assert_fires_tb
          -Mdir ${WORK}/obj -o tb ${sources}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "verilator --binary failed (exit ${rc}):\n${out}")
endif()
execute_process(COMMAND ${WORK}/obj/tb RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(BREAK)
  if(rc EQUAL 0)
    message(FATAL_ERROR "breaking ${BREAK} did not fail the run")
  endif()
  string(FIND "${out}" "Assertion failed in ${NAME}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "breaking ${BREAK} failed the run but not with the assertion ${NAME}")
  endif()
  message("breaking ${BREAK}: the run fails (exit ${rc}) naming ${NAME}")
elseif(NOT rc EQUAL 0 OR out MATCHES "Assertion failed")
  message(FATAL_ERROR "the legal run failed (exit ${rc})")
endif()
