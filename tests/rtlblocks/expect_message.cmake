# CTest driver (cmake -P): runs PROGRAM with ARGS (a ;-list) and passes if its output (stdout and
# stderr) matches EXPECT and not FAIL_IF, whatever its exit status: a Verilated model's $error ends
# the process (Verilator aborts on the first error), so an expected assertion cannot be told by the
# exit code. Used by fused_store_rtl_violate_* (tb/top/fused_store_tb.cpp --violate).
execute_process(COMMAND ${PROGRAM} ${ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "expected output matching '${EXPECT}' (exit ${rc})")
endif()
if(DEFINED FAIL_IF AND out MATCHES "${FAIL_IF}")
  message(FATAL_ERROR "output matches '${FAIL_IF}' (exit ${rc})")
endif()
