// Template filling and the Yosys child process (yosys_run.h). POSIX fork/exec so that the child
// can be killed when it runs past its time limit.
#include "sim/synth/yosys_run.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace flycol::synth {

std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  std::size_t pos = 0;
  for (;;) {
    const auto a = text.find('@', pos);
    if (a == std::string::npos) break;
    const auto b = text.find('@', a + 1);
    if (b == std::string::npos) break;
    const std::string key = text.substr(a + 1, b - a - 1);
    const bool is_key = !key.empty() && key.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == std::string::npos;
    if (!is_key) {  // a lone '@' in the text: keep it and go on from the second one
      out += text.substr(pos, b - pos);
      pos = b;
      continue;
    }
    const auto it = values.find(key);
    if (it == values.end()) throw std::invalid_argument("script template field @" + key + "@ has no value");
    out += text.substr(pos, a - pos) + it->second;
    pos = b + 1;
  }
  return out + text.substr(pos);
}

ProcessResult run_yosys(const std::string& yosys, const std::string& script, const std::string& log,
                        const std::string& dir, int timeout_s) {
  ProcessResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return r;
  if (pid == 0) {
    // Child: own process group (so a time-out kills Yosys and ABC), output to the log.
    ::setpgid(0, 0);
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    const int fd = ::open((log + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    std::vector<std::string> args = {yosys, "-q", "-l", log, "-s", script};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(yosys.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (timeout_s > 0 && s > timeout_s) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      r.seconds = s;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string yosys_version(const std::string& yosys) {
  const std::string cmd = "'" + yosys + "' -V 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {};
  char buf[256];
  std::string out;
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string tail_of_file(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (int(last.size()) > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += "    " + l + "\n";
  return out;
}

}  // namespace flycol::synth
