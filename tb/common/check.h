// The scoreboard side of a block testbench: a mismatch log that counts checks and failures and
// prints the first failures with the stimulus that led to them, a no-progress watchdog,
// expect_throw for refused inputs, and the closing summary line with the reproduce command.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "tb/common/args.h"

namespace flycol::tb {

// Counts checks and mismatches. The bench stamps the time (`at`) and leaves short notes of what it
// drove (`note`); the first mismatch prints the last notes as context, the first kMaxReported
// mismatches are printed, later ones only counted.
class MismatchLog {
public:
  static constexpr int kMaxReported = 20;
  static constexpr std::size_t kContext = 8;

  explicit MismatchLog(std::string view = "") : view_(std::move(view)) {}

  void at(std::uint64_t cycle) { cycle_ = cycle; }
  std::uint64_t cycle() const { return cycle_; }

  template <class... A>
  void note(fmt::format_string<A...> f, A&&... a) {
    if (notes_.size() == kContext) notes_.pop_front();
    notes_.push_back(fmt::format("  cycle {}: {}", cycle_, fmt::format(f, std::forward<A>(a)...)));
  }

  template <class... A>
  void fail(fmt::format_string<A...> f, A&&... a) {
    std::fflush(stdout);  // keep the order with Verilator's and SystemC's messages
    if (errors_ < kMaxReported) {
      if (errors_ == 0 && !notes_.empty()) {
        fmt::print(stderr, "context{} (last {} notes before the first mismatch):\n", tag(), notes_.size());
        for (const std::string& n : notes_) fmt::print(stderr, "{}\n", n);
      }
      fmt::print(stderr, "MISMATCH{} cycle {}: {}\n", tag(), cycle_, fmt::format(f, std::forward<A>(a)...));
    }
    ++errors_;
  }

  // One check of an integer or boolean value.
  template <class T>
  bool expect(const char* what, T got, T want) {
    ++checks_;
    if (got == want) return true;
    fail("{} = {:#x}, expected {:#x}", what, std::uint64_t(got), std::uint64_t(want));
    return false;
  }
  bool expect_true(bool ok, const std::string& what) {
    ++checks_;
    if (!ok) fail("{}", what);
    return ok;
  }

  std::uint64_t errors() const { return errors_; }
  std::uint64_t checks() const { return checks_; }
  bool ok() const { return errors_ == 0; }
  const std::string& view() const { return view_; }

private:
  std::string tag() const { return view_.empty() ? "" : " [" + view_ + "]"; }
  std::string view_;
  std::uint64_t cycle_ = 0, errors_ = 0, checks_ = 0;
  std::deque<std::string> notes_;
};

// Fails when `progress()` has not been called for `limit` consecutive `tick()`s: a handshake that
// never completes ends the run with a message instead of hanging until the CTest timeout.
class Watchdog {
public:
  explicit Watchdog(std::uint64_t limit) : limit_(limit) {}
  void progress() { idle_ = 0; }
  // Returns false (once) after logging the failure when the limit is reached.
  bool tick(MismatchLog& log, const char* waiting_for) {
    if (++idle_ < limit_) return true;
    if (idle_ == limit_) log.fail("watchdog: no progress for {} cycles while waiting for {}", limit_, waiting_for);
    return false;
  }
  bool expired() const { return idle_ >= limit_; }

private:
  std::uint64_t limit_, idle_ = 0;
};

// Holds a view in reset for `cycles` cycles (the bench's Drive with rst_n low, the rest default),
// stamping `log` with the bench's cycle count `cycle`, which it advances; `after_edge()` runs
// after each edge (a check that nothing fired during reset). A note says so.
template <class Drive, class View, class AfterEdge>
void hold_reset(View& v, MismatchLog& log, std::uint64_t& cycle, int cycles, AfterEdge&& after_edge) {
  Drive d;
  d.rst_n = false;
  for (int i = 0; i < cycles; ++i) {
    log.at(cycle);
    v.drive(d);
    v.edge(d);
    after_edge();
    ++cycle;
  }
  log.note("reset for {} cycles", cycles);
}
template <class Drive, class View>
void hold_reset(View& v, MismatchLog& log, std::uint64_t& cycle, int cycles) {
  hold_reset<Drive>(v, log, cycle, cycles, [] {});
}

// Whether `f()` throws an E (anything else escapes).
template <class E, class F>
bool throws(F&& f) {
  try {
    f();
  } catch (const E&) {
    return true;
  }
  return false;
}

// Runs `f`, which must throw an E (whose message contains `needle`, if given); anything else is a
// mismatch in `log`. Returns whether it threw as expected.
template <class E, class F>
bool expect_throw(MismatchLog& log, const std::string& what, F&& f, const char* needle = nullptr) {
  try {
    f();
  } catch (const E& e) {
    if (needle == nullptr || std::string(e.what()).find(needle) != std::string::npos) return log.expect_true(true, what);
    return log.expect_true(false, fmt::format("{}: threw '{}', expected a message with '{}'", what, e.what(), needle));
  }
  return log.expect_true(false, fmt::format("{}: did not throw", what));
}

// The closing line of a bench: PASS/FAIL, seed and `figures`, and on failure the command that
// repeats the run. Returns the process exit code.
inline int finish(const std::string& name, const Args& args, std::uint64_t errors, std::uint64_t checks,
                  const std::string& figures) {
  std::fflush(stderr);
  fmt::print("{}: {} - seed {}, {} checks, {} mismatches{}{}\n", name, errors ? "FAIL" : "PASS", args.seed, checks,
             errors, figures.empty() ? "" : ", ", figures);
  if (errors) fmt::print("reproduce: {}\n", args.reproduce());
  return errors ? 1 : 0;
}

}  // namespace flycol::tb
