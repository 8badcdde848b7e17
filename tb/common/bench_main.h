// The main() of a block testbench, written once: --seed and the bench's count option (RUNs,
// streams, cycles) with its --long preset; --view core|sc|all in the core/SystemC build of a block
// with both views; --config and the hardware parameters it gives in the RTL build of a configured
// block. Each view runs under its own MismatchLog with an escaping exception turned into a
// mismatch, and the counts add up into the closing PASS/FAIL line with the reproduce command.
// It brings check.h (MismatchLog, Watchdog, expect_throw) and random.h (Rand) with it.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "tb/common/args.h"
#include "tb/common/check.h"
#include "tb/common/random.h"

#ifdef FLYCOL_RTL_CONFIG
#include "hw/common/hw_params.h"
#include "sim/config/config.h"
#include "sim/config/config_keys.h"
#endif

namespace flycol::tb {

// A bench's count option: `--<name> N` (default `normal`, `long_run` with --long, or with the flag
// `long_flag` names) and what it counts.
struct CountOption {
  const char* name;
  std::uint64_t normal, long_run;
  const char* what;
  const char* long_flag = "long";
};

// Which build of a bench this is: the RTL build (FLYCOL_VTOP defined) or the core/SystemC one.
#ifdef FLYCOL_VTOP
inline constexpr bool kRtlBuild = true;
#else
inline constexpr bool kRtlBuild = false;
#endif

class BenchMain {
public:
  // `block` names the bench: `<block>_tb`, or `<block>_rtl_tb` in the RTL build. With `views`, the
  // core/SystemC build takes --view core|sc|all (the SystemC build of a common cell has one view).
  BenchMain(const std::string& block, CountOption count, bool views = true)
      : name_(block + (kRtlBuild ? "_rtl_tb" : "_tb")), args_(name_), count_opt_(count), count_(count.normal),
        views_(views && !kRtlBuild) {
    args_.count(count.name, &count_, fmt::format("{} (default {})", count.what, count.normal))
        .flag(count.long_flag, &long_, fmt::format("{} {}", count.long_run, count.what));
    if (views_) args_.text("view", &view_, "core, sc or all (default)");
#ifdef FLYCOL_RTL_CONFIG
    config_file_ = FLYCOL_RTL_CONFIG_FILE;
    args_.text("config", &config_file_, "configuration file the RTL was Verilated for");
#endif
  }

  // More options of the bench, declared before parse().
  Args& args() { return args_; }

  // Reads the command line (and in the RTL build of a configured block the configuration); on an
  // error prints it and returns false, and main returns 2.
  bool parse(int argc, char** argv) {
    if (!args_.parse(argc, argv)) return false;
    if (long_) count_ = count_opt_.long_run;
    if (views_ && view_ != "core" && view_ != "sc" && view_ != "all") {
      fmt::print(stderr, "{}: --view {}: expected core, sc or all\n", name_, view_);
      args_.usage();
      return false;
    }
#ifdef FLYCOL_RTL_CONFIG
    try {
      config_ = load_config_by_name_or_path(config_file_);
      params_ = hardware_params(config_);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: {}\n", name_, e.what());
      return false;
    }
#endif
    return true;
  }

  std::uint64_t seed() const { return args_.seed; }
  // The independent seed of stimulus stream `i` (tb::sub_seed of the run's seed).
  std::uint64_t seed(std::uint64_t i) const { return sub_seed(args_.seed, i); }
  std::uint64_t count() const { return count_; }
  bool long_run() const { return long_; }
  // Whether the core (C++ model) and the SystemC views run in this build and with this --view.
  bool core() const { return !kRtlBuild && view_ != "sc"; }
  bool sc() const { return !kRtlBuild && views_ && view_ != "core"; }
  const std::string& name() const { return name_; }

#ifdef FLYCOL_RTL_CONFIG
  // The configuration of --config, its hardware parameters, and the name of the RTL view's log.
  const Config& config() const { return config_; }
  const hw::HwParams& params() const { return params_; }
  static std::string rtl_view() { return fmt::format("rtl {}", FLYCOL_RTL_CONFIG); }
#endif

  // The first line: the bench, its build (the configuration or the --view), `what`, the seed.
  template <class... A>
  void announce(fmt::format_string<A...> what, A&&... a) const {
    fmt::print("{}: {}, seed {}\n", title(), fmt::format(what, std::forward<A>(a)...), args_.seed);
  }

  // Runs `body(MismatchLog&)` as the view `label`; an exception out of it is a mismatch. The log's
  // counts are added to the bench's.
  template <class F>
  void run(const std::string& label, F&& body) {
    MismatchLog log(label);
    try {
      body(log);
    } catch (const std::exception& e) {
      log.fail("exception: {}", e.what());
    }
    errors_ += log.errors();
    checks_ += log.checks();
  }

  // A failure outside any view (a coverage goal not reached).
  void fail(const std::string& why) {
    fmt::print(stderr, "{}: {}\n", name_, why);
    ++errors_;
  }
  std::uint64_t errors() const { return errors_; }

  // The closing PASS/FAIL line with `figures`; returns the exit code.
  int finish(const std::string& figures) const { return tb::finish(title(), args_, errors_, checks_, figures); }

private:
  std::string title() const {
#ifdef FLYCOL_RTL_CONFIG
    return fmt::format("{} [{}]", name_, FLYCOL_RTL_CONFIG);
#else
    return views_ ? fmt::format("{} (view {})", name_, view_) : name_;
#endif
  }

  std::string name_;
  Args args_;
  CountOption count_opt_;
  std::uint64_t count_;
  bool long_ = false, views_;
  std::string view_ = "all";
  std::uint64_t errors_ = 0, checks_ = 0;
#ifdef FLYCOL_RTL_CONFIG
  std::string config_file_;
  Config config_;
  hw::HwParams params_;
#endif
};

}  // namespace flycol::tb
