// Running an external tool (Yosys) from `flycol export`: found on PATH, run in a given directory
// with its output in a log file, waited for.
#pragma once

#include <string>
#include <vector>

namespace flycol::rtlexport {

// The executable `program` names, as a shell would find it: a name containing '/' is taken as
// is, any other is looked up in $PATH. Empty if there is no such executable.
std::string find_program(const std::string& program);

struct ProcessOutcome {
  bool started = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  std::string error;   // why it did not start
  bool ok() const { return started && signal == 0 && exit_code == 0; }
  std::string describe() const;
};

// Runs argv (argv[0] a path, see find_program) in `cwd`, stdin from /dev/null, stdout and
// stderr appended to `log_path`, and waits for it.
ProcessOutcome run_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_path);

}  // namespace flycol::rtlexport
