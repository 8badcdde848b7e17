// The shared loop of the whole-accelerator regressions (see regression.h).
#include "tb/top/regression.h"

#include <algorithm>
#include <chrono>
#include <random>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/compiler/explicit_lowering.h"
#include "sim/golden/conv.h"
#include "tb/top/program_coverage.h"

namespace flycol::tb {
namespace {

struct Tally {
  int recorded = 0, scaled = 0, drawn = 0, run = 0, rejected = 0, aimed = 0, aim_draws = 0, failed = 0;
  Coverage coverage;
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string feature_list(const std::vector<Feature>& fs) {
  std::string t;
  for (const Feature f : fs) t += (t.empty() ? "" : " ") + std::string(feature_name(f));
  return t.empty() ? "-" : t;
}

class Loop {
public:
  Loop(const std::string& bench, const Args& args, const RegressionOptions& o, const Config& cfg, const RunCase& run)
      : bench_(bench), args_(args), o_(o), cfg_(cfg), run_(run) {}

  // Compiles and runs one case. Returns false if the compiler rejected it; counts the failure.
  bool run(const Case& c, const std::string& kind) {
    Program prog;
    try {
      prog = compile_case(c, cfg_);
    } catch (const InputError& e) {
      if (o_.verbose) fmt::print("  rejected ({}): {} ({})\n", kind, c.describe(), e.what());
      return false;
    }
    std::string why;
    std::vector<Feature> fs = features_of(c, prog);
    try {
      const ConvOperands ops = make_case_operands(c, cfg_);
      golden::ConvOptions g;
      g.zero_gating = cfg_.zero_gating;
      const std::vector<AccBits> want = golden::conv(ops, g);
      const ConvOperands run_ops = prog.layer == c.layer ? ops : lower_operands(ops, prog.layer);
      why = run_(c, prog, run_ops, want);
      for (const Feature f : outcome_features(ops, want)) fs.push_back(f);
    } catch (const std::exception& e) {
      why = fmt::format("exception: {}", e.what());
    }
    t_.coverage.add(fs);
    if (!why.empty()) {
      ++t_.failed;
      fmt::print("FAIL config={} {}\n  {}\n  plan: {}\n  features: {}\n  reproduce: {} --case {}\n", cfg_.name,
                 c.describe(), why, prog.plan.describe(), feature_list(fs), args_.reproduce(), quoted(c.describe()));
    } else if (o_.verbose) {
      fmt::print("  ok ({}) {}\n    features: {}\n", kind, c.describe(), feature_list(fs));
    }
    return true;
  }

  int finish(double wall) {
    const int min = int(o_.coverage_min);
    bool gate_failed = false;
    if (min > 0) {
      fmt::print("{}: program coverage: {}\n", bench_, t_.coverage.table());
      for (const Feature f : t_.coverage.below(min, cfg_.arithmetic)) {
        fmt::print("FAIL coverage: {} hit {} times, fewer than --coverage-min {}\n", feature_name(f),
                   t_.coverage.hits(f), min);
        gate_failed = true;
      }
    }
    const bool too_many_rejected = t_.drawn > 0 && double(t_.drawn - t_.rejected) < 0.9 * double(t_.drawn);
    if (too_many_rejected)
      fmt::print("FAIL rejections: the compiler rejected {} of {} random layers drawn (more than 10 %)\n", t_.rejected,
                 t_.drawn);
    const bool ok = t_.failed == 0 && !gate_failed && !too_many_rejected;
    fmt::print("{}: {} {}: {} layers run ({} recorded, {} of them as scaled copies; {} random of {} drawn, {} rejected "
               "by the compiler; {} aimed at coverage gaps, {} draws), {} failed; {:.1f} s wall\n",
               bench_, cfg_.name, ok ? "passed" : "FAILED", t_.run, t_.recorded, t_.scaled, t_.drawn - t_.rejected,
               t_.drawn, t_.rejected, t_.aimed, t_.aim_draws, t_.failed, wall);
    if (!ok) fmt::print("reproduce: {}\n", args_.reproduce());
    return ok ? 0 : 1;
  }

  Tally& tally() { return t_; }

private:
  std::string bench_;
  const Args& args_;
  const RegressionOptions& o_;
  const Config& cfg_;
  const RunCase& run_;
  Tally t_;
};

}  // namespace

void RegressionOptions::declare(Args& args) {
  layers.declare(args);
  args.text("regressions", &regressions, "file of recorded cases to run first")
      .count("coverage-min", &coverage_min, "fail unless every program feature was hit this often (0: no gate)")
      .text("case", &one_case, "run only this case (a line as a FAIL message prints it)")
      .flag("verbose", &verbose, "a line a layer")
      .flag("beyond-limits", &beyond_limits,
            "also draw kernels past the feeder's pattern limit (rejected: shows the 90 % gate)");
}

int run_regression(const std::string& bench, const Args& args, const RegressionOptions& o, const Config& cfg,
                   const std::vector<Case>& recorded, const RunCase& run) {
  const auto t0 = std::chrono::steady_clock::now();
  Loop loop(bench, args, o, cfg, run);
  Tally& t = loop.tally();
  auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

  if (!o.one_case.empty()) {
    Case c;
    if (!parse_case(o.one_case, c)) {
      fmt::print(stderr, "{}: --case: not a case line: {}\n", bench, o.one_case);
      return 2;
    }
    if (!loop.run(c, "case")) {
      fmt::print("FAIL the compiler rejects --case {}\n", c.describe());
      return 1;
    }
    ++t.run;
    return loop.finish(wall());
  }

  // Recorded cases: every seed that ever failed, and hand-picked corners. They ran once, so a
  // rejection now is a failure. Above the size cap a scaled copy with the same features runs.
  for (const Case& rc : recorded) {
    Case c = rc;
    if (o.size_cap > 0 && c.layer.macs() > std::int64_t(o.size_cap)) {
      Case s;
      if (scaled_copy(c, cfg, std::int64_t(o.size_cap), s)) {
        fmt::print("  recorded case above {} MACs runs scaled: {}\n    as {}\n", o.size_cap, c.describe(), s.describe());
        c = s;
        ++t.scaled;
      } else {
        fmt::print("  recorded case above {} MACs has no scaled copy with its features; it runs whole: {}\n",
                   o.size_cap, c.describe());
      }
    }
    ++t.recorded;
    if (!loop.run(c, "recorded")) {
      ++t.failed;
      fmt::print("FAIL the compiler now rejects a recorded case: config={} {}\n", cfg.name, c.describe());
      continue;
    }
    ++t.run;
  }

  std::mt19937_64 rng(args.seed);
  const std::int64_t max_macs = std::int64_t(o.layers.max_macs);
  for (std::uint64_t i = 0; i < o.layers.layers; ++i) {
    ++t.drawn;
    if (loop.run(random_case(rng, cfg, max_macs, o.beyond_limits), "random")) ++t.run;
    else ++t.rejected;
  }

  // Close the coverage gaps the random draws left: cases aimed at each feature below the minimum,
  // until it is reached or the draws for it run out.
  const int min = int(o.coverage_min);
  for (const Feature f : t.coverage.below(min, cfg.arithmetic)) {
    for (int draws = 0; draws < 60 && t.coverage.hits(f) < min; ++draws) {
      Case c = random_case(rng, cfg, max_macs);
      aim_case(f, c, cfg, rng, max_macs);
      ++t.aim_draws;
      std::vector<Feature> fs;
      if (!case_features(c, cfg, fs)) continue;                        // rejected by the compiler
      if (std::find(fs.begin(), fs.end(), f) == fs.end()) continue;  // the compiler chose otherwise
      if (loop.run(c, std::string("aimed at ") + feature_name(f))) {
        ++t.run;
        ++t.aimed;
      }
    }
  }
  return loop.finish(wall());
}

}  // namespace flycol::tb
