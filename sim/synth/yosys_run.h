// Running Yosys: filling the script template (hw/synth/synth.ys.in) and running the yosys binary
// on it as a child process with its output in a log file and a time limit.
#pragma once

#include <map>
#include <string>

namespace flycol::synth {

// Replaces every @KEY@ of `text` by values.at(KEY). Throws std::invalid_argument naming a field
// the template has but `values` lacks.
std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values);

struct ProcessResult {
  int exit_code = -1;   // -1: killed (time limit) or not started
  bool timed_out = false;
  double seconds = 0;
};

// Runs `yosys -q -l <log> -s <script>` (working directory `dir`). The log gets Yosys's whole output.
ProcessResult run_yosys(const std::string& yosys, const std::string& script, const std::string& log,
                        const std::string& dir, int timeout_s);

// `yosys -V`, e.g. "Yosys 0.23 (git sha1 7ce5011c24b)"; empty if it cannot be run.
std::string yosys_version(const std::string& yosys);

// The last `lines` lines of a text file (for error messages).
std::string tail_of_file(const std::string& path, int lines);

}  // namespace flycol::synth
