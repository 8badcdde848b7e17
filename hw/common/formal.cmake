# Formal proofs of the RTL with Yosys 0.23's SAT-based k-induction (docs/verification.md, formal
# section). Included by hw/CMakeLists.txt for flycol_formal_proof(); run with `cmake -P` it is also
# the CTest driver that runs one generated Yosys script and judges its log.

# ---------------------------------------------------------------------------------------------
# Script mode: cmake -DYS=<script> -DLOG=<log> -DEXPECT=proof|broken|reach -P formal.cmake
if(CMAKE_SCRIPT_MODE_FILE)
  find_program(YOSYS yosys REQUIRED)
  execute_process(COMMAND ${YOSYS} -s ${YS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  file(WRITE ${LOG} "${out}${err}")
  # A probe whose harness wire is an alias that `connect -set` dropped leaves the wire free, and a
  # proof over free wires proves nothing (docs/verification.md, Yosys pitfalls): `check` in the
  # script names such a wire, and that is never a result either.
  if("${out}${err}" MATCHES "is used but has no driver")
    string(REGEX MATCH "[^\n]*is used but has no driver[^\n]*" line "${out}${err}")
    message(FATAL_ERROR "a harness wire has no driver (a dropped probe alias?), log ${LOG}:\n${line}")
  endif()
  # A crash or a parse error is never a result, whatever was expected.
  if(err MATCHES "ERROR:" AND NOT err MATCHES "Called with -verify and proof did fail|Called with -falsify")
    message(FATAL_ERROR "yosys failed (not a proof result), log ${LOG}:\n${err}")
  endif()
  if(EXPECT STREQUAL "proof")
    # -verify: yosys stops with an error on a base-case counterexample or when induction does not
    # close within the depth.
    if(NOT rc EQUAL 0 OR NOT out MATCHES "Induction step proven: SUCCESS!")
      message(FATAL_ERROR "proof FAILED (log ${LOG}):\n${out}${err}")
    endif()
    string(REGEX MATCH "Trying induction with length [0-9]+" len "${out}")
    message(STATUS "proved by k-induction (${len}); log ${LOG}")
  elseif(EXPECT STREQUAL "bounded")
    # BOUNDED proofs: every base case up to the depth holds (no induction step is tried).
    if(NOT rc EQUAL 0 OR out MATCHES "model found for base case" OR NOT out MATCHES "Base case for induction length ${DEPTH} proven")
      message(FATAL_ERROR "bounded proof FAILED (log ${LOG}):\n${out}${err}")
    endif()
    message(STATUS "proved for ${DEPTH} cycles from reset (bounded, no induction); log ${LOG}")
  elseif(EXPECT STREQUAL "broken")
    # The twin must fail with a real counterexample from reset (a base case), not because the
    # induction did not close or the tool broke.
    if(NOT out MATCHES "model found for base case: FAIL!")
      message(FATAL_ERROR "the injected bug was NOT caught (no base-case counterexample), log ${LOG}:\n${out}${err}")
    endif()
    message(STATUS "bug caught: counterexample from reset; log ${LOG}")
  elseif(EXPECT STREQUAL "reach")
    # -falsify on "reach signal stays 0": the proof must fail, i.e. a trace reaches it.
    if(NOT rc EQUAL 0 OR NOT out MATCHES "SAT proof finished - model found: FAIL!")
      message(FATAL_ERROR "reachability target NOT reached (vacuous harness?), log ${LOG}:\n${out}${err}")
    endif()
    message(STATUS "reachability target reached; log ${LOG}")
  else()
    message(FATAL_ERROR "formal.cmake: EXPECT must be proof, broken or reach, not '${EXPECT}'")
  endif()
  return()
endif()

# ---------------------------------------------------------------------------------------------
# flycol_formal_proof(<name> TOP <harness> SOURCES <sv...> [CONFIG <tag>] [PARAMS <P>=<V>...]
#                     DEPTH <n> [BOUNDED] [BUG <NAME> [BUG_DEPTH <n>]] [PROBES <wire>=<instance.signal>...]
#                     [REACH <signal> REACH_DEPTH <n>])
# CTests (label formal): formal_<name> proves every assert of the harness TOP by k-induction up
# to DEPTH (base case and step, Yosys `sat -tempinduct`); with BUG, formal_<name>_broken reads the
# RTL with FLYCOL_BUG_<NAME> defined and passes only on a counterexample from reset; with REACH,
# formal_<name>_reach checks that the harness's sticky signal <signal> can become 1 within
# REACH_DEPTH cycles (the environment assumptions do not make the proof vacuous).
# BOUNDED (where the induction step is out of the default run's reach) makes formal_<name> a
# bounded proof: every assertion holds in every trace of DEPTH cycles from reset (its twin too
# then runs base cases only).
# CONFIG reads flycol_pkg.sv and hw/common/cfg/<tag>_cfg_pkg.sv first. PROBES connects harness
# wires to signals inside the flattened block: the induction invariants need registers the ports
# do not show, and Yosys 0.23 reads no hierarchical references.
# The RTL is read as for synthesis (SYNTHESIS defined) plus FORMAL.
function(flycol_formal_proof name)
  cmake_parse_arguments(ARG "BOUNDED" "TOP;CONFIG;DEPTH;BUG;BUG_DEPTH;REACH;REACH_DEPTH" "SOURCES;PARAMS;PROBES" ${ARGN})
  set(files "")
  if(ARG_CONFIG)
    list(APPEND files ${PROJECT_SOURCE_DIR}/hw/common/flycol_pkg.sv
         ${PROJECT_SOURCE_DIR}/hw/common/cfg/${ARG_CONFIG}_cfg_pkg.sv)
  endif()
  list(APPEND files ${ARG_SOURCES})
  string(REPLACE ";" " " files_text "${files}")
  set(chparam "")
  foreach(p ${ARG_PARAMS})
    string(REPLACE "=" ";" kv ${p})
    list(GET kv 0 k)
    list(GET kv 1 v)
    string(APPEND chparam " -set ${k} ${v}")
  endforeach()
  if(chparam)
    set(chparam "chparam${chparam} ${ARG_TOP}\n")
  endif()
  set(connect "")
  foreach(p ${ARG_PROBES})
    string(REPLACE "=" ";" kv ${p})
    list(GET kv 0 w)
    list(GET kv 1 s)
    string(APPEND connect "connect -set ${w} ${s}\n")
  endforeach()
  # Flatten, then the probes (before any optimisation, which may remove a register a bug made
  # unused), then the async reset turned synchronous for the SAT model (reset is an input the
  # harness assumes low in the first cycle only).
  set(prep "${chparam}hierarchy -check -top ${ARG_TOP}\nproc\nflatten\n${connect}prep -top ${ARG_TOP}\nasync2sync\ndffunmap\nchformal -cover -remove\nopt_clean\ncheck\n")
  # Two-valued model (no x modelling: with it the induction step starts from states with x bits
  # and fails spuriously); registers without an initial value start free, the reset defines them.
  set(common "-set-assumes")
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/formal)
  set(driver ${PROJECT_SOURCE_DIR}/hw/common/formal.cmake)

  set(expect proof)
  set(baseonly "")
  if(ARG_BOUNDED)
    set(expect bounded)
    set(baseonly " -tempinduct-baseonly")
  endif()
  # One read command for the three scripts (the twin adds its FLYCOL_BUG_ define to it).
  set(read "read_verilog -formal -sv -DSYNTHESIS -I${FLYCOL_RTL_INCLUDE_DIR}")
  file(WRITE ${dir}/${name}.ys
       "${read} ${files_text}\n${prep}"
       "sat -tempinduct${baseonly} -prove-asserts ${common} -maxsteps ${ARG_DEPTH} -verify\n")
  add_test(NAME formal_${name}
           COMMAND ${CMAKE_COMMAND} -DYS=${dir}/${name}.ys -DLOG=${dir}/${name}.log -DEXPECT=${expect}
                   -DDEPTH=${ARG_DEPTH} -P ${driver})
  set_tests_properties(formal_${name} PROPERTIES LABELS "formal" TIMEOUT 300)

  if(ARG_BUG)
    # k-induction cannot close on a real bug, so the run goes on until the base case finds it:
    # BUG_DEPTH (default DEPTH) bounds the cycles from reset that the bug needs to show.
    if(NOT ARG_BUG_DEPTH)
      set(ARG_BUG_DEPTH ${ARG_DEPTH})
    endif()
    file(WRITE ${dir}/${name}_broken.ys
         "${read} -DFLYCOL_BUG_${ARG_BUG} ${files_text}\n${prep}"
         "sat -tempinduct${baseonly} -prove-asserts ${common} -maxsteps ${ARG_BUG_DEPTH} -show-inputs\n")
    add_test(NAME formal_${name}_broken
             COMMAND ${CMAKE_COMMAND} -DYS=${dir}/${name}_broken.ys -DLOG=${dir}/${name}_broken.log
                     -DEXPECT=broken -P ${driver})
    set_tests_properties(formal_${name}_broken PROPERTIES LABELS "formal" TIMEOUT 300)
  endif()

  if(ARG_REACH)
    # "<signal> stays 0 for REACH_DEPTH cycles" must be falsified by a trace from reset.
    file(WRITE ${dir}/${name}_reach.ys
         "${read} ${files_text}\n${prep}"
         "sat -seq ${ARG_REACH_DEPTH} -prove ${ARG_REACH} 0 ${common} -show ${ARG_REACH} -falsify\n")
    add_test(NAME formal_${name}_reach
             COMMAND ${CMAKE_COMMAND} -DYS=${dir}/${name}_reach.ys -DLOG=${dir}/${name}_reach.log
                     -DEXPECT=reach -P ${driver})
    set_tests_properties(formal_${name}_reach PROPERTIES LABELS "formal" TIMEOUT 300)
  endif()
endfunction()

# ---------------------------------------------------------------------------------------------
# The proofs (docs/verification.md, formal section). Registered in any build, RTL or not: they
# need only Yosys.
set(_hw ${PROJECT_SOURCE_DIR}/hw)
find_program(FLYCOL_YOSYS yosys)
if(NOT FLYCOL_YOSYS)
  message(STATUS "yosys not found: the formal proofs (label formal) are not registered")
  return()
endif()

# The runner itself: a proof that reads an undriven wire (what a dropped probe alias leaves) must
# fail however the SAT run ends; here the "proof" would otherwise succeed.
set(_undriven_dir ${CMAKE_CURRENT_BINARY_DIR}/formal)
file(WRITE ${_undriven_dir}/runner_undriven.sv
     "module runner_undriven(input logic clk, input logic a);\n  logic w;\n"
     "  always_ff @(posedge clk) assert (w == a);\nendmodule\n")
file(WRITE ${_undriven_dir}/runner_undriven.ys
     "read_verilog -formal -sv ${_undriven_dir}/runner_undriven.sv\nprep -top runner_undriven\ncheck\n"
     "sat -tempinduct -prove-asserts -maxsteps 2 -verify\n")
add_test(NAME formal_runner_rejects_undriven
         COMMAND ${CMAKE_COMMAND} -DYS=${_undriven_dir}/runner_undriven.ys
                 -DLOG=${_undriven_dir}/runner_undriven.log -DEXPECT=proof -P ${CMAKE_CURRENT_LIST_FILE})
set_tests_properties(formal_runner_rejects_undriven PROPERTIES LABELS "formal"
                     PASS_REGULAR_EXPRESSION "a harness wire has no driver")

# FIFO: the lane FIFO of small and fornt16 (4 entries of a group: 34 and 50 bits) and a depth
# that is not a power of two (the head pointer's wrap), each with its broken twin and
# reachability check; the 32-entry chunk queue of the DMA is proved too, without the twin (its
# counterexample needs 34 cycles, which takes minutes; the twin on the other shapes shows the
# same code fails).
set(_fifo_src ${_hw}/common/fifo.sv ${_hw}/common/fifo_formal.sv)
set(_fifo_probes p_mem=u_dut.mem_q p_head=u_dut.head_q)
foreach(shape 34x4 50x4 8x5)
  string(REPLACE "x" ";" wd ${shape})
  list(GET wd 0 w)
  list(GET wd 1 d)
  flycol_formal_proof(fifo_${shape} TOP fifo_formal SOURCES ${_fifo_src}
                      PARAMS Width=${w} Depth=${d} DEPTH 2 BUG FIFO_FULL BUG_DEPTH 10
                      PROBES ${_fifo_probes} REACH reach_all REACH_DEPTH 16)
endforeach()
flycol_formal_proof(fifo_6x32 TOP fifo_formal SOURCES ${_fifo_src} PARAMS Width=6 Depth=32 DEPTH 2
                    PROBES ${_fifo_probes})

# Memory arbiter: no Cfg (the port and the 2*QD order FIFO come from flycol_pkg), so small and
# fornt16 give the same proof; it is run once.
flycol_formal_proof(mem_arbiter TOP mem_arbiter_formal CONFIG small
                    SOURCES ${_hw}/common/fifo.sv ${_hw}/dma/mem_arbiter.sv ${_hw}/dma/mem_arbiter_formal.sv
                    DEPTH 2 BUG ARB_ORDER BUG_DEPTH 6
                    PROBES p_mem=u_dut.u_order_fifo.mem_q p_head=u_dut.u_order_fifo.head_q
                           p_count=u_dut.u_order_fifo.count_q p_last=u_dut.last_q
                    REACH reach_all REACH_DEPTH 8)


# Index counters of the feeder, on small and fornt16: addresses inside the buffer and the tile,
# counters in range (loop counts limited to 1..3 by the harness's assumptions). Full k-induction
# (length 1): the harness keeps the row start as partial sums from the outermost loop inwards,
# each bounded by its level's latched maximum, so that no step needs a bound of a four-term sum
# (docs/verification.md); the proofs take about 18 s (small) and 51 s (fornt16) of CPU. The
# twin's counterexample comes at cycle 4 (its run also tries the steps, which fail on the bug).
foreach(cfg small fornt16)
  set(ic u_dut)
  flycol_formal_proof(index_counters_${cfg} TOP index_counters_formal CONFIG ${cfg}
                      SOURCES ${_hw}/feeder/index_counters.sv ${_hw}/feeder/index_counters_formal.sv
                      DEPTH 1 BUG IC_BOUND BUG_DEPTH 5
                      PROBES p_ky=${ic}.ky_q p_c=${ic}.c_q p_cx=${ic}.cx_q p_cy=${ic}.cy_q p_g=${ic}.g_q
                             p_n_kg=${ic}.n_kg_q p_n_cy=${ic}.n_cy_q p_n_cx=${ic}.n_cx_q p_n_c=${ic}.n_c_q
                             p_n_ky=${ic}.n_ky_q p_region=${ic}.region_q p_joff=${ic}.joff_q
                             p_kyoff=${ic}.kyoff_q p_coff=${ic}.coff_q p_cxoff=${ic}.cxoff_q
                             p_cyoff=${ic}.cyoff_q p_step_cx=${ic}.step_cx_q p_step_cy=${ic}.step_cy_q
                             p_step_c=${ic}.step_c_q p_step_ky=${ic}.step_ky_q
                             p_last_j=${ic}.last_j p_ky_last=${ic}.ky_last p_c_last=${ic}.c_last
                             p_cx_last=${ic}.cx_last p_cy_last=${ic}.cy_last
                             p_kxc=${ic}.kxc_q p_n_kxc=${ic}.n_kxc_q p_kxcoff=${ic}.kxcoff_q
                             p_step_kxc=${ic}.step_kxc_q p_region_kxc=${ic}.region_kxc_q
                             p_kxc_last=${ic}.kxc_last p_pack_w=${ic}.pack_w_q p_pack_r=${ic}.pack_r_q
                             p_pack_jump=${ic}.pack_jump_q p_ox=${ic}.ox_q
                      REACH reach_all REACH_DEPTH 16)
  # With the kernel-column chunk loop (issue 17) the 1-induction step costs far more: small 249 s
  # and fornt16 623 s of CPU (25 min wall each with the 2 cores at load 10; 16 s and 47 s
  # before). Both proofs are therefore labelled slow (small's was the default run's longest test,
  # 201 s of 791 s on a fast machine, 11 minutes on the CI's); their broken twins and reachability
  # checks stay in the default run.
  set_tests_properties(formal_index_counters_${cfg} PROPERTIES TIMEOUT 1800 LABELS "formal;slow")
endforeach()

# DMA load path (stream_loader, one copy in each of the LD and PS engines): reads, responses and
# bytes. Its geometry is the engine's: ElemBits/WordElems/MaxDepth 16/4/256 is LD and PS of
# small, 16/16/1024 LD and PS of fornt16. Compositional: stream_loader_fifo_formal.sv, a formal
# model of the FIFO cell (a shift register with fifo.sv's ports and timing, which the fifo proofs
# above establish), is read instead of hw/common/fifo.sv, so the harness's per-entry ghost tags
# keep the induction step local (with fifo.sv's ring buffer it did not finish in 5 minutes).
# formal_stream_loader_<cfg> is the full k-induction proof, labelled slow: 5 and 5.5 minutes of CPU
# on the loaded CI machine (small, fornt16), which the CI job's 90 minutes no longer hold. Their
# twins and reachability checks stay in the default run.
set(_sl u_dut)
set(_sl_src ${_hw}/dma/stream_loader.sv ${_hw}/dma/stream_loader_fifo_formal.sv ${_hw}/dma/stream_loader_formal.sv)
set(_sl_probes p_cq_mem=${_sl}.u_chunk_queue.mem_q p_cq_count=${_sl}.cq_count p_rq_count=${_sl}.rq_count
               p_rq_pop=${_sl}.rq_pop p_cq_pop=${_sl}.cq_pop p_cq_push=${_sl}.cq_push
               p_cq_rdata=${_sl}.cq_rdata p_cq_wdata=${_sl}.cq_wdata)
foreach(shape small:4:256 fornt16:16:1024)
  string(REPLACE ":" ";" f ${shape})
  list(GET f 0 cfg)
  list(GET f 1 we)
  list(GET f 2 md)
  flycol_formal_proof(stream_loader_${cfg} TOP stream_loader_formal CONFIG ${cfg} SOURCES ${_sl_src}
                      PARAMS ElemBits=16 WordElems=${we} MaxDepth=${md}
                      DEPTH 2 BUG DMA_RSP BUG_DEPTH 6 PROBES ${_sl_probes}
                      REACH reach_all REACH_DEPTH 10)
  set_tests_properties(formal_stream_loader_${cfg} PROPERTIES TIMEOUT 1800)
  set_tests_properties(formal_stream_loader_${cfg} PROPERTIES LABELS "formal;slow")
endforeach()

# Feed lane (section 9.2): no element lost, duplicated or reordered between the masked elements
# of the words the lane is given and its pops; after a flush every owed element is offered. The
# twin's stall is one element short: a word needing one more cycle for its last element lets it
# go (dropped). small is proved by k-induction (length 1). fornt16 is BOUNDED to 2 cycles: its
# induction step did not finish in 5 minutes (the count invariant relates 16-bit popcounts of the
# masks to the lane's k and fill), and 3 cycles from reset take 66 s of CPU.
set(_fl u_dut)
set(_fl_probes p_fill=${_fl}.fill_q p_rd_idx=${_fl}.rd_idx_q p_regs=${_fl}.regs_q
               p_taken=${_fl}.taken_q p_mem=${_fl}.u_fifo.mem_q p_head=${_fl}.u_fifo.head_q
               p_count=${_fl}.u_fifo.count_q)
set(_fl_src ${_hw}/common/fifo.sv ${_hw}/feeder/feed_lane.sv ${_hw}/feeder/feed_lane_formal.sv)
flycol_formal_proof(feed_lane_small TOP feed_lane_formal CONFIG small SOURCES ${_fl_src}
                    DEPTH 2 BUG FEED_STALL BUG_DEPTH 6 PROBES ${_fl_probes}
                    REACH reach_all REACH_DEPTH 12)
flycol_formal_proof(feed_lane_fornt16 TOP feed_lane_formal CONFIG fornt16 SOURCES ${_fl_src}
                    DEPTH 2 BOUNDED BUG FEED_STALL BUG_DEPTH 3 PROBES ${_fl_probes}
                    REACH reach_all REACH_DEPTH 9)
