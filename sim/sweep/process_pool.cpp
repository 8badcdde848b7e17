// fork/exec process pool with per-child timeouts and interrupt handling (process_pool.h). It
// polls instead of waiting on SIGCHLD: a few milliseconds of latency per point is nothing next to
// a simulation, and polling keeps signal handling down to one flag.
#include "sim/sweep/process_pool.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <thread>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

namespace flycol::sweep {

namespace {

// The one piece of global state: a signal handler can only talk to the program through it.
std::atomic<int> g_signal{0};
std::atomic<int> g_guards{0};

extern "C" void on_signal(int sig) { g_signal.store(sig); }

using Clock = std::chrono::steady_clock;

struct Running {
  std::size_t index;
  pid_t pid;
  Clock::time_point start, deadline;
};

pid_t spawn(const ProcessSpec& spec) {
  // Everything the child needs is prepared before fork: only async-signal-safe calls after it.
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0) setpgid(pid, pid);  // also in the child: whichever runs first wins the race
    return pid;
  }
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before prctl
  // (execv resets the parent's SIGINT/SIGTERM handlers to the default in the child.)
  const int in = open("/dev/null", O_RDONLY);
  if (in >= 0) dup2(in, 0);
  const int out = open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out >= 0) {
    dup2(out, 1);
    dup2(out, 2);
  }
  execv(argv[0], argv.data());
  const char msg[] = "flycol sweep: cannot execute the child program\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(127);
}

void kill_group(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
}

ProcessResult finish(int status, const Running& r) {
  ProcessResult res;
  res.started = true;
  res.seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
  return res;
}

}  // namespace

std::string ProcessResult::describe() const {
  if (!started) return "could not start: " + error;
  if (timed_out) return fmt::format("timed out after {:.0f} s and was killed", seconds);
  if (signal) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit {}", exit_code);
}

std::vector<ProcessResult> run_processes(const std::vector<ProcessSpec>& specs, int jobs,
                                         const std::function<void(std::size_t, const ProcessResult&)>& on_done) {
  std::vector<ProcessResult> results(specs.size());
  std::vector<Running> running;
  std::size_t next = 0;
  if (jobs < 1) jobs = 1;
  const auto stop_all = [&] {
    for (const auto& r : running) kill_group(r.pid);
    for (const auto& r : running) waitpid(r.pid, nullptr, 0);
    running.clear();
  };
  while (next < specs.size() || !running.empty()) {
    if (InterruptGuard::requested()) {
      stop_all();
      throw Interrupted();
    }
    while (next < specs.size() && int(running.size()) < jobs) {
      const ProcessSpec& s = specs[next];
      const auto now = Clock::now();
      const pid_t pid = spawn(s);
      if (pid < 0) {
        results[next].error = std::strerror(errno);
        if (on_done) on_done(next, results[next]);
      } else {
        running.push_back({next, pid, now,
                           now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s.timeout_s))});
      }
      ++next;
    }
    bool progressed = false;
    for (std::size_t i = 0; i < running.size();) {
      const Running r = running[i];
      int status = 0;
      const pid_t w = waitpid(r.pid, &status, WNOHANG);
      if (w == r.pid || (w < 0 && errno == ECHILD)) {
        ProcessResult res = w == r.pid ? finish(status, r) : ProcessResult{true, -1, 0, false, 0, "lost child"};
        running.erase(running.begin() + long(i));
        results[r.index] = res;
        if (on_done) on_done(r.index, res);
        progressed = true;
        continue;
      }
      if (Clock::now() >= r.deadline) {
        kill_group(r.pid);
        waitpid(r.pid, nullptr, 0);
        ProcessResult res;
        res.started = true;
        res.timed_out = true;
        res.seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
        running.erase(running.begin() + long(i));
        results[r.index] = res;
        if (on_done) on_done(r.index, res);
        progressed = true;
        continue;
      }
      ++i;
    }
    if (!progressed && !running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return results;
}

InterruptGuard::InterruptGuard() {
  if (g_guards.fetch_add(1) == 0) {
    g_signal.store(0);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
  }
}

InterruptGuard::~InterruptGuard() {
  if (g_guards.fetch_sub(1) == 1) {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    g_signal.store(0);
  }
}

bool InterruptGuard::requested() { return g_guards.load() > 0 && g_signal.load() != 0; }
int InterruptGuard::signal_number() { return g_signal.load(); }

std::string tail_lines(const std::string& path, int max_lines) {
  std::ifstream f(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);) {
    const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    if (!blank) lines.push_back(line);
    if (lines.size() > std::size_t(max_lines) * 4) lines.erase(lines.begin(), lines.end() - max_lines);
  }
  std::string out;
  const std::size_t from = lines.size() > std::size_t(max_lines) ? lines.size() - std::size_t(max_lines) : 0;
  for (std::size_t i = from; i < lines.size(); ++i) out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

}  // namespace flycol::sweep
