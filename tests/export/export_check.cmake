# CTest driver of the `flycol export` checks (cmake -P), one MODE per test:
#   export    flycol export --config CONFIG --out DIR succeeds and writes a manifest
#   manifest  every file of DIR is in manifest.json with its size and SHA-256 (CMake's own), and
#             nothing else is
#   lint      verilator --lint-only -Wall from the filelist alone, run in DIR: no message at all
#   synth     Yosys reads the sources (the SRAM model as a blackbox) and synthesizes them to generic
#             gates with the hierarchy kept; check -assert; no warning; the six SRAM banks instantiated
#   iverilog  the netlist compiles with iverilog -g2005 and the smoke testbench passes under vvp
#   vnetlist  Verilator turns the netlist into C++ (--cc)
#   bad       flycol export with a bad CONFIG exits 2 with a message and leaves no DIR
#   nonempty  a non-empty DIR is refused (exit 2) with and without --force, and kept as it was
#   force     --force over an earlier export (a copy of SRC with a stray file) replaces it, and the
#             new manifest equals SRC's: the export is reproducible
# Variables: MODE, FLYCOL, CONFIG, DIR, SRC, TOOL (the program a mode runs), WORK (scratch).
cmake_minimum_required(VERSION 3.25)

function(fail)
  string(JOIN "" msg ${ARGN})
  message(FATAL_ERROR "export_check ${MODE} ${CONFIG}: ${msg}")
endfunction()

# run(<result var> <output var> <command...>) in DIR, with stdout and stderr together.
function(run result output)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${RUN_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  set(${result} ${rc} PARENT_SCOPE)
  set(${output} "${out}" PARENT_SCOPE)
endfunction()

# The filelist's entries (lines that are not comments).
function(filelist out)
  file(STRINGS ${DIR}/flycol_top.f lines)
  set(files "")
  foreach(l ${lines})
    if(NOT l MATCHES "^//" AND NOT l MATCHES "^\\+incdir\\+" AND NOT l STREQUAL "")
      list(APPEND files ${l})
    endif()
  endforeach()
  set(${out} ${files} PARENT_SCOPE)
endfunction()

set(RUN_DIR ${DIR})
if(WORK)
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
endif()

if(MODE STREQUAL "export")
  file(REMOVE_RECURSE ${DIR})
  get_filename_component(RUN_DIR ${DIR} DIRECTORY)
  file(MAKE_DIRECTORY ${RUN_DIR})
  run(rc out ${FLYCOL} export --config ${CONFIG} --out ${DIR})
  message("${out}")
  if(NOT rc EQUAL 0 OR NOT EXISTS ${DIR}/manifest.json)
    fail("exit ${rc}, expected 0 and ${DIR}/manifest.json")
  endif()

elseif(MODE STREQUAL "manifest")
  file(READ ${DIR}/manifest.json json)
  string(JSON n LENGTH "${json}" files)
  if(n LESS 10)
    fail("only ${n} files listed")
  endif()
  math(EXPR last "${n} - 1")
  set(listed "")
  foreach(i RANGE ${last})
    string(JSON path GET "${json}" files ${i} path)
    string(JSON sha GET "${json}" files ${i} sha256)
    string(JSON bytes GET "${json}" files ${i} bytes)
    if(NOT EXISTS ${DIR}/${path})
      fail("${path} is listed but missing")
    endif()
    file(SHA256 ${DIR}/${path} actual)
    file(SIZE ${DIR}/${path} size)
    if(NOT actual STREQUAL sha OR NOT size EQUAL bytes)
      fail("${path}: manifest says ${sha} (${bytes} bytes), the file is ${actual} (${size} bytes)")
    endif()
    list(APPEND listed ${path})
  endforeach()
  file(GLOB_RECURSE present RELATIVE ${DIR} ${DIR}/*)
  list(REMOVE_ITEM present manifest.json)
  list(SORT present)
  list(SORT listed)
  if(NOT present STREQUAL listed)
    fail("files present and files listed differ:\n  present: ${present}\n  listed:  ${listed}")
  endif()
  message("manifest: ${n} files, all sizes and SHA-256 digests match")

elseif(MODE STREQUAL "lint")
  run(rc out ${TOOL} --lint-only -Wall -f flycol_top.f --top-module flycol_top)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "")
    fail("verilator --lint-only -Wall -f flycol_top.f: exit ${rc}\n${out}")
  endif()
  message("verilator --lint-only -Wall -f flycol_top.f: clean")

elseif(MODE STREQUAL "synth")
  # As an ASIC flow would with SRAM macros: the SRAM model is read as a blackbox (its ports only),
  # everything else is synthesized to generic gates with the hierarchy kept.
  filelist(files)
  set(logic ${files})
  list(FILTER logic EXCLUDE REGEX "/sram_bank\\.sv$")
  list(LENGTH files n_files)
  list(LENGTH logic n_logic)
  math(EXPR n_logic "${n_logic} + 1")
  if(NOT n_files EQUAL n_logic)
    fail("the filelist does not list rtl/common/sram_bank.sv exactly once")
  endif()
  string(JOIN " " logic_text ${logic})
  file(WRITE ${WORK}/synth.ys
       "read_verilog -sv -Irtl/common ${logic_text}\n"
       "read_verilog -sv -Irtl/common -lib rtl/common/sram_bank.sv\n"
       "hierarchy -check -top flycol_top\n"
       "synth -top flycol_top\n"
       "check -assert\n"
       "stat\n")
  run(rc out ${TOOL} -q -l ${WORK}/synth.log -s ${WORK}/synth.ys)
  if(NOT rc EQUAL 0)
    file(READ ${WORK}/synth.log log)
    fail("yosys synth: exit ${rc}\n${out}\n${log}")
  endif()
  file(READ ${WORK}/synth.log log)
  if(log MATCHES "[Ww]arning")
    fail("yosys synth warned; see ${WORK}/synth.log")
  endif()
  # The six SRAM banks are the only blackboxes, every one instantiated.
  if(NOT log MATCHES "=== design hierarchy ===[^=]*\n +sram_bank +6\n")
    fail("the synthesized hierarchy does not hold the six SRAM banks as macros; see ${WORK}/synth.log")
  endif()
  file(STRINGS ${WORK}/synth.log cells REGEX "Number of cells")
  list(GET cells -1 total)
  string(STRIP "${total}" total)
  message("yosys synth (generic gates, SRAM banks as blackboxes), check -assert: passed (flycol_top: ${total})")

elseif(MODE STREQUAL "iverilog")
  run(rc out ${TOOL} -g2005 -o ${WORK}/smoke.vvp netlist/flycol_top.v tb/flycol_top_smoke_tb.v)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "")
    fail("iverilog -g2005: exit ${rc}\n${out}")
  endif()
  run(rc out ${VVP} -n ${WORK}/smoke.vvp)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "flycol_top_smoke_tb: PASS")
    fail("vvp of the smoke testbench: exit ${rc}\n${out}")
  endif()
  message("iverilog -g2005 compiles the netlist; ${out}")

elseif(MODE STREQUAL "vnetlist")
  # The netlist is Yosys's, not ours: its lint warnings (widths, unused bits, flattened
  # combinational vectors) are not errors; anything Verilator cannot compile is.
  run(rc out ${TOOL} --cc -Wno-fatal -Wno-lint -Wno-style -Wno-UNOPTFLAT --Mdir ${WORK}/obj
      --top-module flycol_top netlist/flycol_top.v)
  if(NOT rc EQUAL 0)
    fail("verilator --cc netlist/flycol_top.v: exit ${rc}\n${out}")
  endif()
  message("verilator --cc netlist/flycol_top.v: passed\n${out}")

elseif(MODE STREQUAL "bad")
  file(REMOVE_RECURSE ${DIR})
  set(RUN_DIR ${WORK})
  run(rc out ${FLYCOL} export --config ${CONFIG} --out ${DIR})
  if(NOT rc EQUAL 2 OR NOT out MATCHES "error" OR EXISTS ${DIR})
    fail("exit ${rc} (expected 2), directory left: ${DIR}\n${out}")
  endif()
  file(GLOB left ${WORK}/* ${WORK}/.*)
  if(left)
    fail("left behind: ${left}")
  endif()
  message("refused with exit 2, nothing written:\n${out}")

elseif(MODE STREQUAL "nonempty")
  file(REMOVE_RECURSE ${DIR})
  file(WRITE ${DIR}/mine.txt "keep me")
  set(RUN_DIR ${WORK})
  foreach(force "" --force)
    run(rc out ${FLYCOL} export --config ${CONFIG} --out ${DIR} ${force})
    file(READ ${DIR}/mine.txt kept)
    file(GLOB content RELATIVE ${DIR} ${DIR}/*)
    if(NOT rc EQUAL 2 OR NOT out MATCHES "--force" OR NOT kept STREQUAL "keep me" OR NOT content STREQUAL "mine.txt")
      fail("with '${force}': exit ${rc} (expected 2, a message naming --force, the directory as it was)\n${out}")
    endif()
  endforeach()
  message("refused with and without --force, directory kept:\n${out}")

elseif(MODE STREQUAL "force")
  file(REMOVE_RECURSE ${DIR})
  file(COPY ${SRC}/ DESTINATION ${DIR})
  file(WRITE ${DIR}/stray.txt "from before")
  set(RUN_DIR ${WORK})
  run(rc out ${FLYCOL} export --config ${CONFIG} --out ${DIR})
  if(NOT rc EQUAL 2 OR NOT EXISTS ${DIR}/stray.txt)
    fail("without --force: exit ${rc}, expected 2 and the directory kept\n${out}")
  endif()
  run(rc out ${FLYCOL} export --config ${CONFIG} --out ${DIR} --force)
  if(NOT rc EQUAL 0 OR EXISTS ${DIR}/stray.txt)
    fail("with --force: exit ${rc}, expected 0 and the old content gone\n${out}")
  endif()
  file(READ ${SRC}/manifest.json before)
  file(READ ${DIR}/manifest.json after)
  if(NOT before STREQUAL after)
    fail("the same export twice gave different manifests:\n${SRC}/manifest.json\n${DIR}/manifest.json")
  endif()
  message("--force replaced the earlier export; the manifest is identical (reproducible)")

else()
  fail("unknown MODE")
endif()
