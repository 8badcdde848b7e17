// Runs child processes a few at a time with a wall-clock limit each, so that one crashing or
// hanging sweep point becomes a failed point with a message instead of a broken sweep. Sweeps
// need processes because SystemC elaborates only once per process.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace flycol::sweep {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is the executable path (no PATH search)
  std::string log_path;           // stdout and stderr of the child go here
  double timeout_s = 600;         // wall clock; the child's process group is killed after it
};

struct ProcessResult {
  bool started = false;
  int exit_code = -1;   // when it exited
  int signal = 0;       // when a signal ended it (not counting our timeout kill)
  bool timed_out = false;
  double seconds = 0;
  std::string error;    // could not start (fork failed)

  bool exited() const { return started && !timed_out && signal == 0 && exit_code >= 0; }
  std::string describe() const;  // "exit 0", "killed by signal 11 (Segmentation fault)", "timed out after 5 s"
};

// Thrown by run_processes when SIGINT/SIGTERM arrived (see InterruptGuard); running children have
// been killed and reaped by then.
struct Interrupted : std::exception {
  const char* what() const noexcept override { return "interrupted"; }
};

// Runs every spec, at most `jobs` at a time, in order of the list. `on_done(i, result)` is called
// in the calling thread as each finishes. Each child runs in its own process group (so a timeout
// kills whatever it started) and dies with the parent (PR_SET_PDEATHSIG).
std::vector<ProcessResult> run_processes(const std::vector<ProcessSpec>& specs, int jobs,
                                         const std::function<void(std::size_t, const ProcessResult&)>& on_done = {});

// While alive, SIGINT and SIGTERM set a flag instead of killing the process, so that a sweep can
// kill its children and remove its temporary directory; run_processes then throws Interrupted.
class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  static bool requested();
  static int signal_number();  // the signal that arrived (0: none)
};

// The last `max_lines` non-empty lines of a text file (for failure messages).
std::string tail_lines(const std::string& path, int max_lines);

}  // namespace flycol::sweep
