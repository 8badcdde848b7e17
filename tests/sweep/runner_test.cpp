// The sweep runner end to end with a fake `flycol run` (tests/sweep/fake_flycol_run.sh): passing,
// rejected, crashing, hanging, check-failing and erroring points each end up as one result with
// its message, the sweep itself completes, and the report directory holds everything.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/sweep/baseline.h"
#include "sim/sweep/runner.h"
#include "sweep_test_util.h"

using namespace flycol;
using namespace flycol::sweep;
using namespace flycol::sweep::test;

namespace {

// K picks the fake's behaviour: 8 pass, 13 crash, 14 hang, 15 wrong results, 16 exit 2.
const char* kSweep = R"(
name: fake
config: small
timeout_s: 2
fixed: {H: 8, W: 8, K: 8, k: 3, p: same}
product: {C: [1, 2, 3]}
points:
  - {name: crash, C: 4, K: 13}
  - {name: hang, C: 5, K: 14}
  - {name: wrong, C: 6, K: 15}
  - {name: error, C: 7, K: 16}
  - {name: too_wide, C: 8, k: 7, feeder.fifo_depth: 2}
plots:
  - {x: C, y: [cycles]}
)";

SweepSpec write_spec(const ScratchDir& dir, const std::string& text) {
  std::filesystem::create_directories(dir.path / "sweeps");
  const std::string file = dir / "sweeps/fake.yaml";
  std::ofstream(file) << text;
  return load_sweep_file(file);
}

RunOptions options(const ScratchDir& dir) {
  RunOptions o;
  o.jobs = 3;
  o.flycol_exe = FLYCOL_TEST_FAKE_RUN;
  o.report_dir = dir / "report";
  return o;
}

const PointResult& point(const SweepResults& r, const std::string& name) {
  for (const auto& p : r.points)
    if (p.name == name) return p;
  FAIL("no point " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("every point becomes one result; crashes and hangs fail that point only", "[sweep]") {
  ScratchDir dir("runner");
  const SweepSpec spec = write_spec(dir, kSweep);
  std::vector<std::string> lines;
  RunOptions o = options(dir);
  o.print = [&](const std::string& l) { lines.push_back(l); };
  const SweepResults r = run_sweep(spec, o);
  REQUIRE(r.points.size() == 8);
  for (const char* n : {"C1", "C2", "C3"}) {
    const PointResult& p = point(r, n);
    CHECK(p.status == Status::pass);
    CHECK(p.ran);
    CHECK(p.stats.cycles == 1000u * unsigned(n[1] - '0'));
    CHECK(p.stats.feeder_stall == 7);
    CHECK(p.stats.dram.total() == 3500);
    CHECK(p.has_lowered);
    CHECK(p.bit_exact);
  }
  CHECK(point(r, "crash").status == Status::fail);
  CHECK_THAT(point(r, "crash").message, Catch::Contains("signal 11") && Catch::Contains("about to crash"));
  CHECK(point(r, "hang").status == Status::fail);
  CHECK_THAT(point(r, "hang").message, Catch::Contains("timed out after 2 s") && Catch::Contains("hanging"));
  CHECK(point(r, "wrong").status == Status::fail);
  CHECK(point(r, "wrong").ran);
  CHECK_THAT(point(r, "wrong").message, Catch::Contains("3 mismatches") && Catch::Contains("n=0,k=1,y=0,x=2"));
  CHECK(point(r, "error").status == Status::fail);
  CHECK_THAT(point(r, "error").message, Catch::Contains("exit 2") && Catch::Contains("something is wrong"));
  CHECK(point(r, "too_wide").status == Status::rejected);
  CHECK_THAT(point(r, "too_wide").message, Catch::Contains("feeder.fifo_depth"));
  CHECK_FALSE(r.all_passed());
  CHECK(r.summary().failed == 4);
  CHECK(r.summary().rejected == 1);
  CHECK(lines.size() == 8);

  // The report directory: tables, plots, and each point's child report and log.
  const std::string rep = dir / "report";
  for (const char* f : {"sweep.json", "sweep.csv", "sweep.md", "plots/cycles_vs_C.svg", "points/C1.json",
                        "logs/crash.log", "configs/C1.yaml"}) {
    INFO(f);
    CHECK(std::filesystem::exists(rep + "/" + f));
  }
  CHECK(load_results(rep + "/sweep.json").points.size() == 8);
}

TEST_CASE("shards, --point, merging and blessing work together", "[sweep]") {
  ScratchDir dir("shards");
  const SweepSpec spec = write_spec(dir, R"(
name: fake
config: small
fixed: {H: 8, W: 8, K: 8, k: 3}
product: {C: [1..5]}
)");
  std::vector<std::string> shard_dirs;
  for (int i = 1; i <= 2; ++i) {
    RunOptions o = options(dir);
    o.shard = Shard{i, 2};
    o.report_dir = dir / fmt::format("shard{}", i);
    shard_dirs.push_back(o.report_dir);
    const SweepResults r = run_sweep(spec, o);
    CHECK(r.points.size() == (i == 1 ? 3u : 2u));
    CHECK(r.shard == fmt::format("{}/2", i));
  }
  // --bless needs the whole sweep; a merge of every shard is one.
  RunOptions partial = options(dir);
  partial.shard = Shard{1, 2};
  partial.bless = true;
  CHECK(input_error_of([&] { run_sweep(spec, partial); }).source() == "--bless");

  MergeOptions mo;
  mo.report_dir = dir / "merged";
  mo.bless = true;
  const SweepResults m = merge_sweep_reports(shard_dirs, mo);
  CHECK(m.points.size() == 5);
  const std::string bfile = baseline_path(spec.file, "fake", "sc");
  REQUIRE(std::filesystem::exists(bfile));
  CHECK(std::filesystem::exists(dir / "merged/points/C5.json"));
  CHECK(std::filesystem::exists(dir / "merged/logs/C2.log"));

  // One point checked against the blessed baseline, as a CTest test runs it.
  RunOptions one = options(dir);
  one.report_dir.clear();
  one.only = {"C4"};
  one.check_baseline = true;
  const SweepResults r = run_sweep(spec, one);
  REQUIRE(r.points.size() == 1);
  CHECK(r.points[0].baseline.kind == BaselineVerdict::ok);
  CHECK(r.all_passed());
  CHECK(summary_lines(r).back() == "verdict: PASS");

  one.only = {"C9"};
  CHECK_THAT(input_error_of([&] { run_sweep(spec, one); }).problem(), Catch::Contains("no such point"));
}

TEST_CASE("a sweep whose points are all rejected reports SKIPPED", "[sweep]") {
  ScratchDir dir("skip");
  const SweepSpec spec = write_spec(dir, R"(
config: small
fixed: {C: 2, H: 8, W: 8, K: 8}
product: {k: [9], feeder.fifo_depth: [1]}
)");
  RunOptions o = options(dir);
  o.report_dir.clear();
  const SweepResults r = run_sweep(spec, o);
  REQUIRE(r.points.size() == 1);
  CHECK(r.points[0].status == Status::rejected);
  CHECK_THAT(summary_lines(r).back(), Catch::StartsWith("verdict: SKIPPED"));
}
