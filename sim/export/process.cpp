// fork/exec of one child at a time. Everything the child needs is prepared before fork, so the
// child only makes async-signal-safe calls (chdir, open, dup2, execv).
#include "sim/export/process.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

namespace flycol::rtlexport {
namespace {

bool is_executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_program(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return is_executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

std::string ProcessOutcome::describe() const {
  if (!started) return "could not start: " + error;
  if (signal) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", exit_code);
}

ProcessOutcome run_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_path) {
  ProcessOutcome res;
  if (argv.empty()) {
    res.error = "no program";
    return res;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    res.error = fmt::format("cannot open the log '{}': {}", log_path, std::strerror(errno));
    return res;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    res.error = std::strerror(errno);
    ::close(log);
    return res;
  }
  if (pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    if (::chdir(cwd.c_str()) != 0) _exit(126);
    ::execv(args[0], args.data());
    const char msg[] = "flycol export: cannot execute the program\n";
    (void)!::write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  ::close(log);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      res.error = std::strerror(errno);
      return res;
    }
  }
  res.started = true;
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
  return res;
}

}  // namespace flycol::rtlexport
