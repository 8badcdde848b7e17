// Text of the generated package files. Every number in them comes from the configuration (via
// the same field tables that generate the RTL packages), from flycol_top.sv (port names, groups,
// comments) or from the netlist Yosys wrote (port widths): nothing is typed twice.
#include "sim/export/package_text.h"

#include <cctype>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/common/text.h"
#include "sim/rtlgen/rtl_types.h"

namespace flycol::rtlexport {
namespace {

// The value of a cfg_t field of the configuration (the numbers the RTL is elaborated with).
std::uint64_t cfg_value(const Config& c, const std::string& field) {
  const auto& fields = rtl::config_fields();
  const auto values = rtl::config_values(c);
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == field) return values[i];
  throw std::logic_error("no cfg_t field '" + field + "'");
}

int clog2(std::uint64_t n) {
  int b = 0;
  while ((std::uint64_t(1) << b) < n) ++b;
  return b;
}

std::string port_ref(const TopPort& p) { return p.width > 1 ? p.name + "[*]" : p.name; }

std::string width_text(int w) { return w > 1 ? fmt::format("[{}:0]", w - 1) : ""; }

// A name usable inside a FuseSoC VLNV: letters, digits and '_'.
std::string vlnv_part(const std::string& s) {
  std::string out;
  for (char ch : s) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  return out;
}

std::string arithmetic_text(const Config& c) {
  switch (c.arithmetic) {
    case Arithmetic::fp16: return "IEEE binary16 FMA, FP16 accumulation";
    case Arithmetic::int8: return "int8 x int8, int32 accumulation";
    case Arithmetic::int16: return "int16 x int16, int32 accumulation";
  }
  return "";
}

struct SramInfo {
  const char* what;
  const char* instance;  // inside gen_buffers[b]
  const char* client;
  std::uint64_t depth, elems, elem_bits;
  int buffers;
};

std::vector<SramInfo> srams(const Config& c) {
  const std::uint64_t eb = cfg_value(c, "elem_bits"), ab = cfg_value(c, "acc_bits");
  return {
      {"ifmap", "u_ifmap", "LD DMA writes, data feeder reads", cfg_value(c, "ifmap_depth"), cfg_value(c, "bus_elems"), eb,
       c.ifmap.buffers},
      {"weights", "u_weight", "LD DMA writes, weight fetcher reads", cfg_value(c, "weight_depth"), cfg_value(c, "cols"),
       eb, c.weights.buffers},
      {"psums", "u_psum", "PS DMA loads and stores, partial-sums manager reads and writes", cfg_value(c, "psum_depth"),
       cfg_value(c, "rows"), ab, c.psums.buffers},
  };
}

}  // namespace

std::vector<TopPort> top_ports(std::string_view top_sv, const std::vector<NetlistPort>& elaborated) {
  std::vector<TopPort> ports;
  int state = 0;  // 0 before the module, 1 in the parameters, 2 in the ports
  std::string group = "Clock and reset";
  for (const auto& line : split_lines(top_sv)) {
    const std::string t = trim(line);
    if (state == 0) {
      if (t.rfind("module flycol_top", 0) == 0) state = 1;
      continue;
    }
    if (state == 1) {
      if (t == ") (") state = 2;
      continue;
    }
    if (t.rfind(");", 0) == 0) break;
    if (t.rfind("//", 0) == 0) {
      // A comment line opens a group; "(section 7.1)" refers to flycol's spec, not shipped.
      group = trim(t.substr(2));
      const std::size_t sec = group.find(" (section");
      if (sec != std::string::npos) group = trim(group.substr(0, sec));
      continue;
    }
    // "input  <type> <name>,  // <meaning>"
    const bool in = t.rfind("input ", 0) == 0, out = t.rfind("output ", 0) == 0;
    const std::size_t comment = t.find("//");
    if (!(in || out) || comment == std::string::npos) continue;
    std::string decl = trim(t.substr(0, comment));
    if (!decl.empty() && decl.back() == ',') decl = trim(decl.substr(0, decl.size() - 1));
    const std::size_t name_at = decl.find_last_of(" \t");
    if (name_at == std::string::npos) continue;
    TopPort p;
    p.input = in;
    p.name = decl.substr(name_at + 1);
    p.sv_type = trim(decl.substr(in ? 6 : 7, name_at - (in ? 6 : 7)));
    p.meaning = trim(t.substr(comment + 2));
    p.group = group;
    ports.push_back(p);
  }
  if (ports.size() != elaborated.size())
    throw std::runtime_error(fmt::format("flycol_top.sv declares {} ports, the netlist has {}", ports.size(),
                                         elaborated.size()));
  for (auto& p : ports) {
    bool found = false;
    for (const auto& e : elaborated)
      if (e.name == p.name) {
        if (e.input != p.input) throw std::runtime_error("port " + p.name + ": direction differs in the netlist");
        p.width = e.width;
        found = true;
      }
    if (!found) throw std::runtime_error("port " + p.name + " of flycol_top.sv is not in the netlist");
  }
  return ports;
}

std::vector<std::pair<std::string, int>> opcodes(std::string_view flycol_pkg_sv) {
  // The enum's lines: "    OpLoadIfmap = 3'd0,".
  std::vector<std::pair<std::string, int>> ops;
  for (const auto& line : split_lines(flycol_pkg_sv)) {
    const std::string t = trim(line);
    const std::size_t eq = t.find(" = "), d = t.find("'d");
    if (t.rfind("Op", 0) != 0 || eq == std::string::npos || d == std::string::npos || d < eq) continue;
    std::size_t end = d + 2;
    while (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end]))) ++end;
    if (end == d + 2) continue;
    ops.emplace_back(t.substr(0, eq), std::stoi(t.substr(d + 2, end - d - 2)));
  }
  return ops;
}

std::string clock_period_ns(const Config& c) { return fmt::format("{:.3f}", 1000.0 / c.clock_mhz); }

std::string filelist_text(const PackageInfo& p) {
  std::string s = fmt::format(
      "// flycol_top, configuration '{}' (flycol {}): the SystemVerilog sources in dependency order,\n"
      "// packages first, relative to this file's directory. From there: verilator -f {} ...; from\n"
      "// elsewhere: verilator -F <dir>/{} ... (the same list is in {}).\n",
      p.config.name, p.version, kFilelist, kFilelist, kCoreFile);
  for (const auto& d : p.include_dirs) s += "+incdir+" + d + "\n";  // flycol_assert.svh, `included by every module
  for (const auto& f : p.sv_files) s += f + "\n";
  return s;
}

std::string fusesoc_core_text(const PackageInfo& p) {
  std::string s = "CAPI=2:\n";
  s += fmt::format(
      "# flycol_top for configuration '{}', exported by flycol {} (flycol export). The rtl fileset\n"
      "# is the list of {}, in the same order.\n"
      "#   fusesoc --cores-root . run --target lint {}\n"
      "#   fusesoc --cores-root . run --target sim {}\n",
      p.config.name, p.version, kFilelist, "flycol:accel:flycol_top_" + vlnv_part(p.config.name),
      "flycol:accel:flycol_top_" + vlnv_part(p.config.name));
  s += fmt::format("name: flycol:accel:flycol_top_{}:{}\n", vlnv_part(p.config.name), p.version);
  s += fmt::format("description: \"GeMM convolution accelerator with on-the-fly im2col, configuration {} ({} x {} {})\"\n\n",
                   p.config.name, p.config.array.rows, p.config.array.cols, arithmetic_info(p.config.arithmetic).name);
  s += "filesets:\n  rtl:\n    files:\n";
  for (const auto& f : p.sv_files) s += "      - " + f + "\n";
  // FuseSoC passes an include file's directory as +incdir and does not compile the file itself.
  for (const auto& f : p.headers) s += "      - " + f + ": {is_include_file: true}\n";
  s += "    file_type: systemVerilogSource\n";
  s += fmt::format("  netlist:\n    files:\n      - {}\n    file_type: verilogSource-2005\n", kNetlist);
  s += fmt::format("  smoke_tb:\n    files:\n      - {}\n    file_type: verilogSource-2005\n", kSmokeTb);
  s += fmt::format("  constraints:\n    files:\n      - {}\n    file_type: SDC\n\n", kSdc);
  s += "targets:\n"
       "  default:\n"
       "    filesets: [rtl]\n"
       "    toplevel: flycol_top\n"
       "  lint:\n"
       "    description: Verilator lint of the SystemVerilog (-Wall)\n"
       "    filesets: [rtl]\n"
       "    toplevel: flycol_top\n"
       "    default_tool: verilator\n"
       "    tools:\n"
       "      verilator:\n"
       "        mode: lint-only\n"
       "        verilator_options: [-Wall]\n"
       "  sim:\n"
       "    description: reset smoke test of the Verilog-2005 netlist with Icarus Verilog\n"
       "    filesets: [netlist, smoke_tb]\n"
       "    toplevel: flycol_top_smoke_tb\n"
       "    default_tool: icarus\n"
       "    tools:\n"
       "      icarus:\n"
       "        iverilog_options: [-g2005]\n";
  return s;
}

std::string sdc_text(const PackageInfo& p) {
  std::vector<std::string> inputs, outputs;
  for (const auto& port : p.ports) {
    if (port.name == "clk_i") continue;
    (port.input ? inputs : outputs).push_back(port_ref(port));
  }
  std::string s = fmt::format(
      "# Timing constraints TEMPLATE for flycol_top, configuration '{}' (flycol {}, flycol export).\n"
      "# The clock period comes from the configuration (clock.mhz = {}). Everything marked\n"
      "# PLACEHOLDER depends on the design around the accelerator: set it before signing off timing.\n"
      "\n"
      "# ---- Clock -------------------------------------------------------------------------------\n"
      "set flycol_clock_period {}   ;# ns = 1000 / clock.mhz\n"
      "create_clock -name clk_i -period $flycol_clock_period [get_ports clk_i]\n"
      "# PLACEHOLDER: jitter and skew margin.\n"
      "set_clock_uncertainty [expr {{0.05 * $flycol_clock_period}}] [get_clocks clk_i]\n"
      "\n"
      "# ---- I/O delays ----------------------------------------------------------------------------\n"
      "# PLACEHOLDER: the share of the period used outside the accelerator before an input arrives\n"
      "# and after an output leaves. Every port is synchronous to clk_i. cmd_ready_o depends on\n"
      "# cmd_i (the opcode) in the same cycle: that path must fit input delay + logic + output delay.\n"
      "set flycol_input_delay  [expr {{0.40 * $flycol_clock_period}}]\n"
      "set flycol_output_delay [expr {{0.40 * $flycol_clock_period}}]\n"
      "\n"
      "# rst_ni resets every flip-flop asynchronously (active low). Its release must be synchronous to\n"
      "# clk_i (a reset synchronizer outside the accelerator); the input delay below makes the\n"
      "# recovery and removal checks meaningful.\n"
      "set_input_delay $flycol_input_delay -clock clk_i [get_ports {{{}}}]\n"
      "set_output_delay $flycol_output_delay -clock clk_i [get_ports {{{}}}]\n"
      "\n"
      "# ---- Environment ---------------------------------------------------------------------------\n"
      "# PLACEHOLDER: driving cell and load of the library in use, for example\n"
      "#   set_driving_cell -lib_cell <BUFFER> [get_ports {{{}}}]\n"
      "#   set_load <capacitance> [all_outputs]\n",
      p.config.name, p.version, p.config.clock_mhz, clock_period_ns(p.config), join(inputs, " "), join(outputs, " "),
      join(inputs, " "));
  return s;
}

std::string smoke_tb_text(const PackageInfo& p) {
  std::string decls, conns;
  for (std::size_t i = 0; i < p.ports.size(); ++i) {
    const TopPort& port = p.ports[i];
    const std::string w = width_text(port.width);
    const std::string sig = "s_" + port.name;
    if (port.input) {
      const std::string init = port.name == "mem_req_ready_i" ? "1'b1"
                               : port.width == 1               ? "1'b0"
                                                               : fmt::format("{{{}{{1'b0}}}}", port.width);
      decls += fmt::format("  reg {}{}{} = {};\n", w, w.empty() ? "" : " ", sig, init);
    } else {
      decls += fmt::format("  wire {}{}{};\n", w, w.empty() ? "" : " ", sig);
    }
    conns += fmt::format("    .{}({}){}\n", port.name, sig, i + 1 < p.ports.size() ? "," : "");
  }
  return fmt::format(
      "// flycol_top_smoke_tb: reset smoke test of flycol_top, configuration '{}' (flycol {},\n"
      "// flycol export). Verilog-2005: runs on the netlist ({}) or on the SystemVerilog sources.\n"
      "// After reset, with no command offered, the accelerator must be idle, ready for a command,\n"
      "// silent on the memory port and with every done counter at zero. It prints PASS or FAIL.\n"
      "//   iverilog -g2005 -o smoke.vvp {} {} && vvp smoke.vvp\n"
      "// The design has no delays: the clock period here is arbitrary.\n"
      "module flycol_top_smoke_tb;\n"
      "  // Outputs the test does not look at are connected all the same.\n"
      "  /* verilator lint_off UNUSEDSIGNAL */\n"
      "{}"
      "  /* verilator lint_on UNUSEDSIGNAL */\n"
      "  integer errors;\n"
      "\n"
      "  flycol_top dut (\n"
      "{}"
      "  );\n"
      "\n"
      "  // Stimulus with blocking assignments, away from the rising edge (plain testbench style).\n"
      "  /* verilator lint_off BLKSEQ */\n"
      "  always #5 s_clk_i = ~s_clk_i;\n"
      "\n"
      "  task expect_bit(input value, input expected, input [8*24-1:0] name);\n"
      "    if (value !== expected) begin\n"
      "      $display(\"flycol_top_smoke_tb: %0s is %b, expected %b\", name, value, expected);\n"
      "      errors = errors + 1;\n"
      "    end\n"
      "  endtask\n"
      "\n"
      "  initial begin\n"
      "    errors = 0;\n"
      "    repeat (3) @(posedge s_clk_i);\n"
      "    @(negedge s_clk_i);\n"
      "    s_rst_ni = 1'b1;\n"
      "    repeat (4) @(posedge s_clk_i);\n"
      "    @(negedge s_clk_i);\n"
      "    expect_bit(s_idle_o, 1'b1, \"idle_o\");\n"
      "    expect_bit(s_cmd_ready_o, 1'b1, \"cmd_ready_o\");\n"
      "    expect_bit(s_mem_req_valid_o, 1'b0, \"mem_req_valid_o\");\n"
      "    expect_bit(s_run_active_o, 1'b0, \"run_active_o\");\n"
      "    expect_bit(|s_done_count_o, 1'b0, \"|done_count_o\");\n"
      "    if (errors == 0) $display(\"flycol_top_smoke_tb: PASS\");\n"
      "    else $display(\"flycol_top_smoke_tb: FAIL (%0d errors)\", errors);\n"
      "    $finish;\n"
      "  end\n"
      "  /* verilator lint_on BLKSEQ */\n"
      "\n"
      "endmodule\n",
      p.config.name, p.version, kNetlist, kNetlist, kSmokeTb, decls, conns);
}

std::string readme_text(const PackageInfo& p) {
  const Config& c = p.config;
  std::string s;
  s += fmt::format("# flycol_top, configuration `{}`\n\n", c.name);
  s += fmt::format(
      "The RTL of the flycol convolution accelerator (a GeMM-based accelerator whose data feeder does\n"
      "im2col on the fly, after Fornt et al.) for the configuration `{}`: a {} x {} array of\n"
      "output-stationary PEs ({}), clocked at {} MHz. Written by `flycol export` of flycol {}.\n"
      "Every file is listed with its SHA-256 in `{}`.\n\n",
      c.name, c.array.rows, c.array.cols, arithmetic_text(c), c.clock_mhz, p.version, kManifest);

  s += "## Contents\n\n| path | what |\n|---|---|\n";
  s += "| `rtl/` | the SystemVerilog sources (Verilator 5 and Yosys 0.23 `read_verilog -sv` read them), one module per file |\n";
  s += fmt::format("| `rtl/common/flycol_pkg.sv` | the command format (`command_t`, opcodes, field widths) |\n");
  s += fmt::format("| `{}` | this configuration as the typed parameter `flycol_cfg_pkg::Cfg` every module takes |\n",
                   p.sv_files.size() > 1 ? p.sv_files[1] : "");
  s += fmt::format("| `{}` | the sources in dependency order, packages first, paths relative to this directory |\n", kFilelist);
  s += fmt::format("| `{}` | FuseSoC core (CAPI 2): the same fileset; targets `lint` (Verilator on the sources), `sim` (the smoke test on the netlist with Icarus Verilog) |\n", kCoreFile);
  s += fmt::format("| `{}` | the elaborated design as one Verilog-2005 file, written by {} (word level, not technology mapped; {}) |\n",
                   kNetlist, p.yosys_version.empty() ? "Yosys" : p.yosys_version,
                   p.flattened ? "flattened: the one module `flycol_top`" : "the hierarchy of the sources");
  s += fmt::format("| `{}` | the Yosys script that wrote it |\n", kYosysScript);
  s += fmt::format("| `{}` | timing constraints template: the clock from the configuration, I/O delays as placeholders |\n", kSdc);
  s += fmt::format("| `{}` | reset smoke test (Verilog-2005) for the netlist or the sources |\n", kSmokeTb);
  s += fmt::format("| `{}` | the configuration as flycol reads it (`flycol export --config {}` writes this package again) |\n", kConfigYaml, kConfigYaml);
  s += fmt::format("| `{}` | flycol version, configuration, tools, and every file's size and SHA-256 |\n\n", kManifest);

  s += "## Using it\n\n```sh\n";
  s += fmt::format("verilator --lint-only -Wall -f {} --top-module flycol_top   # from this directory\n", kFilelist);
  // Synthesis with the SRAM banks as blackboxes, as with macros (the SRAM model as flip-flops
  // would take Yosys many minutes and is not what any flow builds).
  std::string logic, sram;
  for (const auto& x : p.sv_files) {
    if (x.size() >= 12 && x.compare(x.size() - 12, 12, "sram_bank.sv") == 0) sram = x;
    else logic += (logic.empty() ? "" : " ") + x;
  }
  std::string incdirs;
  for (const auto& d : p.include_dirs) incdirs += " -I" + d;
  s += fmt::format("yosys -p 'read_verilog -sv{} {}; read_verilog -sv{} -lib {}; synth -top flycol_top'"
                   "   # SRAM banks as blackboxes\n",
                   incdirs, logic, incdirs, sram);
  s += fmt::format("iverilog -g2005 -o smoke.vvp {} {} && vvp smoke.vvp\n", kNetlist, kSmokeTb);
  s += "```\n\n";
  s += "* **ASIC**: synthesize from the filelist (or the netlist if the tool reads no SystemVerilog), replace\n"
       "  the six SRAM banks with compiled macros (below), start from the SDC template. The simulation\n"
       "  assertions (the macros of `rtl/common/flycol_assert.svh`, included through `+incdir+rtl/common`)\n"
       "  expand to nothing when `SYNTHESIS` is defined, as synthesis tools do.\n"
       "* **FPGA**: the SRAM model (`rtl/common/sram_bank.sv`) infers block RAM as it is (one read or write\n"
       "  per cycle, registered read data, element write enables).\n"
       "* **Simulation**: the sources need a SystemVerilog simulator (Verilator 5, commercial tools);\n"
       "  `netlist/flycol_top.v` runs in any Verilog-2005 simulator.";
  s += p.flattened
           ? " It is flattened (`flycol export --flatten`): the one\n"
             "  module `flycol_top`, whose internal signals carry their instance path in their (escaped) names,\n"
             "  e.g. `\\u_array.gen_pe_row[0].gen_pe_col[0].u_pe.acc_q`. Without `--flatten` the export keeps the hierarchy of the sources.\n\n"
           : " Parameterized modules in the netlist\n"
             "  are renamed `flycol_<module>` (or `flycol_<module>_<n>` for several specializations), so\n"
             "  they do not clash with modules of the surrounding design; the hierarchy and instance names are\n"
             "  those of the sources. `flycol export --flatten` writes it as the one module `flycol_top`.\n\n";

  s += "## Configuration\n\n";
  s += "The values every module receives as `flycol_cfg_pkg::Cfg` (`cfg_t`):\n\n| field | value | meaning |\n|---|---|---|\n";
  const auto& fields = rtl::config_fields();
  const auto values = rtl::config_values(c);
  for (std::size_t i = 0; i < fields.size(); ++i)
    s += fmt::format("| `{}` | {} | {} |\n", fields[i].name, values[i], fields[i].comment);
  s += fmt::format("\nThe whole configuration (`{}`; SRAM capacities are per buffer; the DRAM values describe the\n"
                   "memory flycol's models assume behind the memory port, not hardware of this package):\n\n```yaml\n{}```\n\n",
                   kConfigYaml, to_yaml(c));

  s += "## Top-level ports\n\n";
  s += "Every port is synchronous to the rising edge of `clk_i`. Buses are flat vectors; element i of\n"
       "a multi-element port is at `[i*W +: W]`.\n\n";
  std::string group;
  for (const auto& port : p.ports) {
    if (port.group != group) {
      group = port.group;
      s += fmt::format("{}**{}**\n\n| port | dir | width | meaning |\n|---|---|---|---|\n", group == p.ports[0].group ? "" : "\n",
                       group);
    }
    s += fmt::format("| `{}` | {} | {} | {} |\n", port.name, port.input ? "in" : "out", port.width, port.meaning);
  }
  s += "\n";

  s += "## Reset and clock\n\n";
  s += fmt::format(
      "`rst_ni` resets every flip-flop asynchronously when low; release it synchronously to `clk_i`. The\n"
      "SRAM contents and read registers are not reset (as in a macro); nothing reads them before writing.\n"
      "After reset the accelerator is idle and all completion counters are zero. Target clock:\n"
      "{} MHz ({} ns), the `clock.mhz` of the configuration.\n\n",
      c.clock_mhz, clock_period_ns(c));

  s += "## Command interface\n\n";
  s += "The host (flycol's layer compiler) sends a stream of commands; each names one of three engines:\n"
       "LD (loads of ifmap and weights), EX (RUN: the computation of a tile) and PS (partial-sum loads\n"
       "and stores).\n\n"
       "* **Handshake**: `cmd_valid_i`/`cmd_ready_o`; a command is taken at a rising edge where both are\n"
       "  high. `cmd_ready_o` is high when the queue of the engine that `cmd_i.op` names has room, so it\n"
       "  depends combinationally on `cmd_i` (not on `cmd_valid_i`).\n"
       "* **Ordering**: each engine runs its commands in order. A command starts only when\n"
       "  `ld_done >= wait_ld`, `ex_done >= wait_ex` and `ps_done >= wait_ps`, where the `*_done`\n"
       "  counters (`done_count_o`, slices 0, 1, 2) count the commands each engine completed; the\n"
       "  compiler sets each threshold to the 1-based ordinal of the last command of that engine it\n"
       "  depends on. A wait on a later command would deadlock.\n"
       "* **End of a program**: every command taken and `idle_o` high.\n\n";
  s += fmt::format("`cmd_i` is `flycol_pkg::command_t`, a packed struct of {} bits, the first field in the most\n"
                   "significant bits:\n\n| field | bits | meaning |\n|---|---|---|\n",
                   rtl::command_bits());
  int pos = rtl::command_bits();
  for (const auto& f : rtl::command_fields()) {
    const int hi = pos - 1, lo = pos - f.bits;
    pos = lo;
    s += fmt::format("| `{}` | {} | {} |\n", f.name, hi == lo ? fmt::format("[{}]", hi) : fmt::format("[{}:{}]", hi, lo),
                     f.comment);
  }
  s += "\nOpcodes (`op`): ";
  const auto ops = opcodes(p.flycol_pkg_sv);
  for (std::size_t i = 0; i < ops.size(); ++i)
    s += fmt::format("{}`{}` = {}", i ? ", " : "", ops[i].first, ops[i].second);
  s += ". LOAD_IFMAP and LOAD_WEIGHTS run on LD, RUN on EX, LOAD_PSUMS and STORE_PSUMS on PS.\n"
       "The fields of DMA commands describe a strided 3-D transfer between DRAM and an SRAM buffer\n"
       "with inserted zero padding; those of RUN a tile of contexts (flycol's\n"
       "`docs/microarchitecture.md`, sections 5, 7 and 8; `hw/common/command.h` packs them).\n\n";

  s += "## Memory port\n\n";
  s += "One port to DRAM (or an interconnect), shared by the two DMA engines behind a round-robin arbiter.\n\n"
       "* **Requests** (accelerator to memory): `mem_req_valid_o`/`mem_req_ready_i`; a request is taken at\n"
       "  a rising edge where both are high. `mem_req_write_o` 1 write, 0 read; `mem_req_addr_o` byte\n"
       "  address; `mem_req_bytes_o` 1 to 32 bytes. A request never crosses a 32-byte boundary; its data\n"
       "  sits on the byte lanes of its address (`addr % 32`; byte lane j at `[8j +: 8]`), like an AXI\n"
       "  narrow transfer with byte strobes covering `bytes` lanes from `addr % 32`.\n"
       "* **Responses** (reads only, memory to accelerator): `mem_rsp_valid_i` with `mem_rsp_rdata_i`\n"
       "  (the requested bytes on their lanes), in request order. Responses cannot be refused: each DMA\n"
       "  engine reserves room before it issues a read (up to 32 reads in flight per engine).\n"
       "* `mem_req_ready_i`, `mem_rsp_valid_i` and `mem_rsp_rdata_i` must not depend on `mem_req_*_o` in\n"
       "  the same cycle (Moore outputs of the memory side); a response may come one cycle after its\n"
       "  request at the earliest.\n"
       "* Writes get no response. The memory must apply requests in the order it accepts them: a\n"
       "  STORE_PSUMS completes in the cycle its last write is accepted, and a later LOAD_PSUMS may\n"
       "  read the same bytes at once.\n\n";

  s += "## Status outputs\n\n"
       "`idle_o` (all queues empty, all engines idle), `done_count_o` (completed commands of LD, EX, PS,\n"
       "32 bits each), and three statistics outputs that a flow may leave unconnected: `run_active_o`,\n"
       "`cycle_kind_o` (the class of the cycle: MAC step or the reason for a stall) and `gated_cnt_o`\n"
       "(PE multiplications skipped by zero gating in the previous cycle).\n\n";

  s += "## SRAM macros\n\n";
  s += "The accelerator has six single-port SRAM banks, two buffers of each of three memories, all\n"
       "instances of `rtl/common/sram_bank.sv` (in the netlist: the modules `flycol_sram_bank*`). The file\n"
       "is a behavioural model with the interface of a macro; for an ASIC, keep the module as a wrapper\n"
       "and replace its storage array `mem_q` with a compiled single-port macro of the size below. The\n"
       "header of `sram_bank.sv` maps its ports to the macro pins.\n\n"
       "| memory | instances | words (depth) | word bits | address bits | write-mask granule | clients |\n"
       "|---|---|---|---|---|---|---|\n";
  for (const auto& m : srams(c)) {
    s += fmt::format("| {} | `gen_buffers[0].{}`, `gen_buffers[1].{}` | {} | {} ({} x {}) | {} | {} bits | {} |\n", m.what,
                     m.instance, m.instance, m.depth, m.elems * m.elem_bits, m.elems, m.elem_bits,
                     clog2(std::max<std::uint64_t>(m.depth, 2)), m.elem_bits, m.client);
  }
  s += "\nWrapper ports (per bank): `req_i` access this cycle, `we_i` 1 write / 0 read, `addr_i` word\n"
       "address, `wdata_i` write word, `wmask_i` one enable per element (repeat each bit over the\n"
       "element's bits for a bit-masked macro), `rdata_o` the word of the last read. Required timing:\n"
       "one access per cycle, read data valid in the cycle after the read and **held until the next\n"
       "read**; a macro whose output changes on writes or idle cycles keeps the wrapper's hold register\n"
       "(`rdata_q`), loaded in the cycle after each read.";
  bool single = false;
  for (const auto& m : srams(c)) single |= m.buffers == 1;
  if (single)
    s += " With `buffers: 1` in the configuration, `gen_buffers[1]` of that memory is never accessed:\n"
         "it may be left out or tied off.";
  s += "\n\n";

  s += "## How this package was checked\n\n";
  s += "flycol's tests export the reference configuration (fornt16) and a small 4 x 4 one and check\n"
       "that the sources lint clean with `verilator --lint-only -Wall` from the filelist alone, that\n"
       "Yosys synthesizes them, that the netlist compiles with `iverilog -g2005` and Verilator and passes\n"
       "the smoke test, that the manifest's hashes match, and (small configuration) that a Verilated\n"
       "netlist gives the same outputs on every pin in every cycle, the same DRAM contents and the same\n"
       "cycle counts as the Verilated sources on random convolution layers.\n";
  return s;
}

}  // namespace flycol::rtlexport
