// The Verilog-2005 netlist of an exported package: the Yosys script that elaborates the exported
// SystemVerilog (word level: proc and opt, no technology mapping), the run of Yosys, and the
// tidying of its output (stable, prefixed module names; a header saying what the file is).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace flycol::rtlexport {

// The Yosys script, with paths relative to the package root (where it is run): reads `sv_files`
// (packages first), elaborates flycol_top, and writes `out_v`: with the hierarchy of the sources,
// or, with `flatten`, as the one module flycol_top (instance paths become signal name prefixes).
std::string yosys_script(const std::vector<std::string>& sv_files, const std::vector<std::string>& include_dirs,
                         const std::string& out_v, bool flatten);

// Runs `yosys -q -l <log> -s <script>` in `package_root`. Throws std::runtime_error with the
// log's error lines when Yosys is missing or fails.
void run_yosys(const std::string& yosys, const std::string& package_root, const std::string& script,
               const std::string& log_path);

// Gives every module but `top` a plain name with the prefix: Yosys names the specializations of
// parameterized modules "$paramod$<hash>\<module>", which are escaped identifiers that change
// with the parameters. A module with one specialization becomes <prefix><module>, one with
// several <prefix><module>_<n> (n from 0, in order of appearance). Instantiations follow.
std::string rename_modules(const std::string& netlist, const std::string& top, const std::string& prefix);

// The module names declared in a Yosys netlist, in order.
std::vector<std::string> netlist_modules(const std::string& netlist);

struct NetlistPort {
  std::string name;
  bool input = true;
  int width = 1;
};
// The ports of `module` in a Yosys-written netlist, in declaration order.
std::vector<NetlistPort> netlist_ports(const std::string& netlist, const std::string& module);

// "Yosys 0.23 (git sha1 ...)" from the netlist's first comment; empty if absent.
std::string yosys_version(const std::string& netlist);

}  // namespace flycol::rtlexport
