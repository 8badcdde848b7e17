// The process pool: exit codes, crashes, timeouts, the jobs limit, and interrupts, with /bin/sh
// children standing in for sweep points.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fstream>

#include "sim/sweep/process_pool.h"
#include "sweep_test_util.h"

using namespace flycol::sweep;
using flycol::sweep::test::ScratchDir;

namespace {
ProcessSpec sh(const std::string& script, const std::string& log, double timeout = 30) {
  return {{"/bin/sh", "-c", script}, log, timeout};
}
}  // namespace

TEST_CASE("children report exit codes, signals and timeouts, with their output in the log", "[sweep]") {
  ScratchDir dir("pool");
  const std::vector<ProcessSpec> specs = {
      sh("echo hello; exit 0", dir / "0.log"),
      sh("echo bad >&2; exit 3", dir / "1.log"),
      sh("echo dying; kill -SEGV $$", dir / "2.log"),
      sh("echo stuck; sleep 30", dir / "3.log", 0.5),
      {{"/nonexistent/flycol"}, dir / "4.log", 5},
  };
  std::vector<std::size_t> order;
  const auto t0 = std::chrono::steady_clock::now();
  const auto res = run_processes(specs, 3, [&](std::size_t i, const ProcessResult&) { order.push_back(i); });
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(secs < 10);
  CHECK(order.size() == specs.size());
  CHECK(res[0].exited());
  CHECK(res[0].exit_code == 0);
  CHECK(tail_lines(dir / "0.log", 5) == "hello");
  CHECK(res[1].exit_code == 3);
  CHECK(tail_lines(dir / "1.log", 5) == "bad");
  CHECK(res[2].signal == SIGSEGV);
  CHECK_THAT(res[2].describe(), Catch::Contains("signal 11"));
  CHECK(res[3].timed_out);
  CHECK_THAT(res[3].describe(), Catch::Contains("timed out"));
  CHECK(tail_lines(dir / "3.log", 5) == "stuck");
  CHECK(res[4].exit_code == 127);
  CHECK_THAT(tail_lines(dir / "4.log", 5), Catch::Contains("cannot execute"));
}

TEST_CASE("at most `jobs` children run at a time", "[sweep]") {
  ScratchDir dir("jobs");
  // Each child records the number of siblings alive when it starts, through marker files.
  std::vector<ProcessSpec> specs;
  const std::string d = dir.path.string();
  for (int i = 0; i < 6; ++i)
    specs.push_back(sh("touch " + d + "/run." + std::to_string(i) + "; ls " + d + " | grep -c '^run\\.' > " + d +
                           "/count." + std::to_string(i) + "; sleep 0.2; rm " + d + "/run." + std::to_string(i),
                       dir / ("log" + std::to_string(i))));
  run_processes(specs, 2);
  for (int i = 0; i < 6; ++i) {
    std::ifstream f(dir / ("count." + std::to_string(i)));
    int n = 0;
    f >> n;
    CHECK(n >= 1);
    CHECK(n <= 2);
  }
}

TEST_CASE("an interrupt kills the running children and stops the pool", "[sweep]") {
  ScratchDir dir("interrupt");
  const InterruptGuard guard;
  const std::vector<ProcessSpec> specs = {sh("sleep 30", dir / "a"), sh("exit 0", dir / "b"), sh("sleep 30", dir / "c"),
                                          sh("sleep 30", dir / "d")};
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(run_processes(specs, 3,
                                [](std::size_t i, const ProcessResult&) {
                                  if (i == 1) std::raise(SIGINT);
                                }),
                  Interrupted);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 10);
  CHECK(InterruptGuard::signal_number() == SIGINT);
}
