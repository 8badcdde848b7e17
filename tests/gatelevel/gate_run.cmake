# CTest driver of the gate-level runs (cmake -P; tests/gatelevel/README.md), one MODE per test:
#   export   flycol export --config CONFIG [--flatten] --out DIR/package, then the testbench's
#            width header (gate_gen header) and the Icarus compile of netlist + gate_tb.v to
#            DIR/gate.vvp (the fixture of the layer runs; prints the compile time); with UNRESET,
#            also DIR/gate_unreset.vvp from a copy of the netlist with one register not reset
#   layer    gate_gen gen (the layer's files in WORK), vvp DIR/gate.vvp there, gate_gen compare:
#            passes only if the run completed and the dumped DRAM equals the golden image; with
#            EXPECT_FAIL (a regex), only if the compare fails (exit 1) with a report matching it
# Variables: MODE, FLYCOL, GEN (gate_gen), IVERILOG, VVP, TB (gate_tb.v), CONFIG, DIR, FLATTEN (ON/OFF),
# WORK, GEN_ARGS (;-list for gate_gen gen), PLUSARGS (;-list for vvp), EXPECT_FAIL, UNRESET,
# VVP_FILE (in DIR; default gate.vvp).
cmake_minimum_required(VERSION 3.25)

function(fail)
  string(JOIN "" msg ${ARGN})
  message(FATAL_ERROR "gate_run ${MODE}: ${msg}")
endfunction()

# run(<what> <dir> <command...>): runs it in <dir>, prints its output and the seconds it took,
# fails the test on a nonzero exit.
function(run what dir)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP t1 "%s")
  math(EXPR s "${t1} - ${t0}")
  message("${out}[${what}: exit ${rc}, ${s} s]")
  if(NOT rc EQUAL 0)
    fail("${what} failed (exit ${rc})")
  endif()
endfunction()

if(MODE STREQUAL "export")
  file(REMOVE_RECURSE ${DIR})
  file(MAKE_DIRECTORY ${DIR})
  set(flatten "")
  if(FLATTEN)
    set(flatten --flatten)
  endif()
  run("flycol export" ${DIR} ${FLYCOL} export --config ${CONFIG} --out ${DIR}/package ${flatten})
  run("gate_gen header" ${DIR} ${GEN} header --config ${CONFIG} ${DIR}/gate_params.vh)
  # The netlist is Verilog-2005; so is the testbench.
  run("iverilog compile" ${DIR} ${IVERILOG} -g2005 -Wall -I ${DIR} -o ${DIR}/gate.vvp ${DIR}/package/netlist/flycol_top.v ${TB})
  if(UNRESET)
    # The same netlist with one control register left out of reset: the element count of the
    # first FIFO module (flycol_fifo_0, the weight FIFO in flycol_top). In a 2-state simulation
    # that starts from zeros it would pass; from X it must fail (test gatelevel_small_fail_unreset).
    file(READ ${DIR}/package/netlist/flycol_top.v text)
    string(FIND "${text}" "module flycol_fifo_0(" start)
    if(start LESS 0)
      fail("no module flycol_fifo_0 in the netlist")
    endif()
    string(SUBSTRING "${text}" 0 ${start} head)
    string(SUBSTRING "${text}" ${start} -1 rest)
    string(FIND "${rest}" "endmodule" end)
    string(SUBSTRING "${rest}" 0 ${end} body)
    string(SUBSTRING "${rest}" ${end} -1 tail)
    string(REGEX REPLACE "if \\(!rst_ni\\) count_q <= [0-9]+'h0;\n +else count_q <= count_d;" "count_q <= count_d;" cut "${body}")
    if(cut STREQUAL body)
      fail("flycol_fifo_0 has no reset branch of count_q to remove: update gate_run.cmake")
    endif()
    file(WRITE ${DIR}/unreset/flycol_top.v "${head}${cut}${tail}")
    run("iverilog compile (unreset)" ${DIR} ${IVERILOG} -g2005 -I ${DIR} -o ${DIR}/gate_unreset.vvp ${DIR}/unreset/flycol_top.v ${TB})
  endif()

elseif(MODE STREQUAL "layer")
  if(NOT EXISTS ${DIR}/gate.vvp)
    fail("${DIR}/gate.vvp missing: the export fixture did not run")
  endif()
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  run("gate_gen gen" ${WORK} ${GEN} gen --config ${CONFIG} --out ${WORK} ${GEN_ARGS})
  if(NOT VVP_FILE)
    set(VVP_FILE gate.vvp)
  endif()
  string(JOIN " " plusargs ${PLUSARGS})
  file(WRITE ${WORK}/vvp_args.txt "${DIR}/${VVP_FILE} ${plusargs}\n")  # what ran, for measure.sh
  run("vvp" ${WORK} ${VVP} -n ${DIR}/${VVP_FILE} ${PLUSARGS})
  if(NOT EXPECT_FAIL)
    run("gate_gen compare" ${WORK} ${GEN} compare ${WORK})
  else()
    execute_process(COMMAND ${GEN} compare ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    message("${out}[gate_gen compare: exit ${rc}, must be 1 with a report matching '${EXPECT_FAIL}']")
    if(NOT rc EQUAL 1 OR NOT out MATCHES "${EXPECT_FAIL}")
      fail("the broken run was not reported as expected")
    endif()
  endif()

else()
  fail("unknown MODE '${MODE}'")
endif()
