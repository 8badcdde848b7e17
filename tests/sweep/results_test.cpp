// Sweep results with fake points: the JSON round trip that --merge relies on, merging shards, the
// baseline guard (tolerance, missing points, status changes, blessing), and the report renderings.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/config/yaml_guard.h"
#include "sim/sweep/baseline.h"
#include "sim/sweep/report.h"
#include "sim/sweep/runner.h"
#include "sweep_test_util.h"
#include "tests/common/test_util.h"

using namespace flycol;
using namespace flycol::sweep;
using namespace flycol::sweep::test;

using flycol::test::slurp;

namespace {

SweepResults round_trip(const SweepResults& r) {
  return results_from_yaml(load_yaml(to_json(r).dump(), "mem.json"), "mem.json");
}

SweepResults shard_of(const SweepResults& all, int index, int count) {
  SweepResults s = all;
  s.points.clear();
  s.shard = fmt::format("{}/{}", index, count);
  for (const auto& p : all.points)
    if (Shard{index, count}.holds(p.index)) s.points.push_back(p);
  return s;
}

}  // namespace

TEST_CASE("sweep results survive the JSON round trip that --merge reads", "[sweep]") {
  SweepResults r = fake_results(4);
  r.points[1] = fake_point(2, "d2", Status::rejected, 0);
  r.points[2] = fake_point(3, "d3", Status::fail, 3000);
  r.points[2].message = "line one\nline \"two\", with | and ,";
  r.points[3].baseline = {BaselineVerdict::changed, 3900, 2.5641, "cycles 3900 -> 4000"};
  r.plots[0].where = {{"s", "1"}};
  const SweepResults b = round_trip(r);
  CHECK(b.sweep == r.sweep);
  CHECK(b.file_hash == r.file_hash);
  CHECK(b.points_total == 4);
  CHECK(b.swept_keys == r.swept_keys);
  REQUIRE(b.plots.size() == 1);
  CHECK(b.plots[0].y == r.plots[0].y);
  CHECK(b.plots[0].where == r.plots[0].where);
  REQUIRE(b.points.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    const PointResult &x = r.points[i], &y = b.points[i];
    INFO(x.name);
    CHECK(y.index == x.index);
    CHECK(y.name == x.name);
    CHECK(y.values == x.values);
    CHECK(y.own == x.own);
    CHECK(y.status == x.status);
    CHECK(y.message == x.message);
    CHECK(y.ran == x.ran);
    CHECK(y.stats.cycles == x.stats.cycles);
    CHECK(y.utilization == x.utilization);
    CHECK(y.stats.feeder_stall == x.stats.feeder_stall);
    CHECK(y.stats.sram_reads[1] == x.stats.sram_reads[1]);
    CHECK(y.stats.dram.total() == x.stats.dram.total());
    CHECK(y.has_lowered == x.has_lowered);
    CHECK(y.lowered.ifmap == x.lowered.ifmap);
    CHECK(y.has_check == x.has_check);
    CHECK(y.bit_exact == x.bit_exact);
    CHECK(y.baseline.kind == x.baseline.kind);
    CHECK(y.baseline.cycles == x.baseline.cycles);
    CHECK(y.baseline.change_percent == Approx(x.baseline.change_percent));
  }
}

TEST_CASE("merging shards gives the whole sweep in point order; gaps, overlaps and foreign shards are errors", "[sweep]") {
  const SweepResults all = fake_results(7);
  const SweepResults m = merge_results({shard_of(all, 3, 3), shard_of(all, 1, 3), shard_of(all, 2, 3)}, {"c", "a", "b"});
  REQUIRE(m.points.size() == 7);
  for (int i = 0; i < 7; ++i) CHECK(m.points[std::size_t(i)].index == i + 1);
  CHECK(m.shard == "merged from 3 reports");

  InputError e = input_error_of([&] { merge_results({shard_of(all, 1, 3), shard_of(all, 3, 3)}, {"a", "c"}); });
  CHECK_THAT(e.problem(), Catch::Contains("5 of the 7 points") && Catch::Contains("#2, 5"));
  e = input_error_of([&] { merge_results({shard_of(all, 1, 2), shard_of(all, 1, 2), shard_of(all, 2, 2)}, {"a", "b", "c"}); });
  CHECK(e.source() == "b");
  CHECK_THAT(e.problem(), Catch::Contains("is also in a"));
  SweepResults other = shard_of(all, 2, 2);
  other.file_hash = "ffffffffffffffff";
  e = input_error_of([&] { merge_results({shard_of(all, 1, 2), other}, {"a", "b"}); });
  CHECK(e.key() == "file_hash");
  other = shard_of(all, 2, 2);
  other.model = "analytic";
  e = input_error_of([&] { merge_results({shard_of(all, 1, 2), other}, {"a", "b"}); });
  CHECK(e.key() == "model");
}

TEST_CASE("the baseline guard fails points whose cycles moved beyond the tolerance, showing both numbers", "[sweep]") {
  SweepResults r = fake_results(6);
  r.tolerance_percent = 1.0;
  r.points[4] = fake_point(5, "d5", Status::rejected, 0);
  r.points[5] = fake_point(6, "d6", Status::rejected, 0);
  Baseline b;
  b.file = "base.json";
  b.sweep = "fake";
  b.points["d1"] = {false, 1000};           // unchanged
  b.points["d2"] = {false, 1990};           // +0.5 %: within
  b.points["d3"] = {false, 2900};           // +3.4 %: slower
  b.points["d4"] = {false, 4100};           // -2.4 %: faster is a change too
  b.points["d5"] = {true, 0};               // rejected then and now
  b.points["d6"] = {false, 777};            // ran then, rejected now
  compare_to_baseline(r, &b);
  CHECK(r.points[0].baseline.kind == BaselineVerdict::ok);
  CHECK(r.points[1].baseline.kind == BaselineVerdict::ok);
  CHECK(r.points[2].baseline.kind == BaselineVerdict::changed);
  CHECK_THAT(r.points[2].baseline.message, Catch::Contains("2900 -> 3000") && Catch::Contains("slower") &&
                                               Catch::Contains("1 % tolerance"));
  CHECK(r.points[3].baseline.kind == BaselineVerdict::changed);
  CHECK_THAT(r.points[3].baseline.message, Catch::Contains("4100 -> 4000") && Catch::Contains("faster"));
  CHECK(r.points[4].baseline.kind == BaselineVerdict::ok);
  CHECK(r.points[5].baseline.kind == BaselineVerdict::status_changed);
  CHECK_THAT(r.points[5].baseline.message, Catch::Contains("777") && Catch::Contains("now rejected"));

  // Shown but not checked: the sweep passes; checked: it fails.
  CHECK(r.all_passed());
  r.baseline_checked = true;
  CHECK_FALSE(r.all_passed());
  CHECK(r.summary().baseline_failures == 3);

  b.points.erase("d1");
  compare_to_baseline(r, &b);
  CHECK(r.points[0].baseline.kind == BaselineVerdict::missing);
  compare_to_baseline(r, nullptr);
  for (const auto& p : r.points) CHECK(p.baseline.kind == BaselineVerdict::missing);
}

TEST_CASE("blessing writes a baseline that reads back, and refuses partial or failing results", "[sweep]") {
  SweepResults r = fake_results(3);
  r.points[1] = fake_point(2, "d2", Status::rejected, 0);
  const Baseline b = parse_baseline(baseline_text(r), "b.json");
  CHECK(b.sweep == "fake");
  CHECK(b.model == "sc");
  REQUIRE(b.points.size() == 3);
  CHECK(b.points.at("d1").cycles == 1000);
  CHECK(b.points.at("d2").rejected);
  CHECK(b.points.at("d3").cycles == 3000);
  compare_to_baseline(r, &b);
  for (const auto& p : r.points) CHECK(p.baseline.kind == BaselineVerdict::ok);

  SweepResults partial = shard_of(r, 1, 2);
  CHECK_THAT(input_error_of([&] { baseline_text(partial); }).problem(), Catch::Contains("2 of the 3 points"));
  r.points[2] = fake_point(3, "d3", Status::fail, 3000);
  CHECK_THAT(input_error_of([&] { baseline_text(r); }).problem(), Catch::Contains("point d3 failed"));

  CHECK(baseline_path("configs/sweeps/dilation.yaml", "dilation", "sc") == "configs/sweeps/baselines/dilation.json");
  CHECK(baseline_path("configs/sweeps/dilation.yaml", "dilation", "both") == "configs/sweeps/baselines/dilation.json");
  CHECK(baseline_path("configs/sweeps/dilation.yaml", "dilation", "analytic") ==
        "configs/sweeps/baselines/dilation.analytic.json");
}

TEST_CASE("apply_baseline: a missing file counts only when checked; --bless writes it", "[sweep]") {
  ScratchDir dir("bless");
  const std::string file = dir / "baselines/fake.json";
  SweepResults r = fake_results(2);
  apply_baseline(r, file, false, false);
  CHECK(r.baseline_file.empty());
  CHECK(r.points[0].baseline.kind == BaselineVerdict::none);
  CHECK(r.all_passed());
  apply_baseline(r, file, true, false);
  CHECK(r.points[0].baseline.kind == BaselineVerdict::missing);
  CHECK_FALSE(r.all_passed());
  const auto lines = apply_baseline(r, file, true, true);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::Contains("new file"));
  CHECK(std::filesystem::exists(file));
  apply_baseline(r, file, true, false);
  CHECK(r.all_passed());
  r.points[1].stats.cycles = 2500;
  apply_baseline(r, file, true, false);
  CHECK_FALSE(r.all_passed());
  const auto s = summary_lines(r);
  CHECK_THAT(s[0], Catch::StartsWith("BASELINE d2: cycles 2000 -> 2500"));
  CHECK(s.back() == "verdict: FAIL");
  // A baseline of another sweep is refused rather than compared.
  r.sweep = "other";
  CHECK(input_error_of([&] { apply_baseline(r, file, true, false); }).key() == "sweep");
}

TEST_CASE("reports: CSV rows line up with the header, Markdown lists rejections and failures, plots render", "[sweep]") {
  SweepResults r = fake_results(5);
  r.points[1] = fake_point(2, "d2", Status::rejected, 0);
  r.points[2] = fake_point(3, "d3", Status::fail, 3000);
  const std::string csv = csv_table(r);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  const auto commas = std::count(line.begin(), line.end(), ',');
  for (int rows = 0; std::getline(in, line); ++rows) {
    INFO(line);
    CHECK(std::count(line.begin(), line.end(), ',') == commas);
  }
  const std::string md = markdown_table(r);
  CHECK_THAT(md, Catch::Contains("| d1 | 1 | 1 | pass | 1000 |"));
  CHECK_THAT(md, Catch::Contains("| d2 | 2 | 1 | rejected | - |"));
  CHECK_THAT(md, Catch::Contains("**FAIL**"));
  const auto plots = render_plots(r);
  REQUIRE(plots.size() == 2);
  CHECK(plots[0].file == "plots/cycles_vs_d.svg");
  CHECK(plots[1].file == "plots/dram_vs_d.svg");
  CHECK_THAT(plots[1].svg, Catch::Contains("on-the-fly") && Catch::Contains("explicit"));
  const std::string page = markdown_report(r, plots);
  CHECK_THAT(page, Catch::Contains("## Rejected points") && Catch::Contains("feeder.fifo_depth"));
  CHECK_THAT(page, Catch::Contains("## Failures") && Catch::Contains("not bit-exact"));
  CHECK_THAT(page, Catch::Contains("![fake: cycles against dilation d](plots/cycles_vs_d.svg)"));
}

TEST_CASE("a report directory appears whole or not at all, and never replaces unrelated files", "[sweep]") {
  ScratchDir dir("staging");
  const std::string dest = dir / "out/report";
  {
    StagingDir s(dest);
    write_report_files(fake_results(2), s.path());
    CHECK_FALSE(std::filesystem::exists(dest));
  }  // destroyed without commit: nothing left
  CHECK_FALSE(std::filesystem::exists(dest));
  CHECK(std::distance(std::filesystem::directory_iterator(dir / "out"), std::filesystem::directory_iterator()) == 0);
  {
    StagingDir s(dest);
    write_report_files(fake_results(2), s.path());
    s.commit();
  }
  CHECK(std::filesystem::exists(dest + "/sweep.json"));
  CHECK(load_results(dest + "/sweep.json").points.size() == 2);
  {  // an earlier report is replaced
    StagingDir s(dest);
    write_report_files(fake_results(3), s.path());
    s.commit();
  }
  CHECK(load_results(dest + "/sweep.json").points.size() == 3);
  CHECK(std::distance(std::filesystem::directory_iterator(dir / "out"), std::filesystem::directory_iterator()) == 1);
  // A directory that is not a sweep report is left alone.
  const std::string other = dir / "precious";
  std::filesystem::create_directories(other);
  std::ofstream(other + "/notes.txt") << "keep";
  // Refused up front, before any point runs.
  const InputError e = input_error_of([&] { StagingDir s(other); });
  CHECK(e.source() == "--report");
  CHECK_THAT(e.problem(), Catch::Contains("not a sweep report"));
  CHECK(slurp(other + "/notes.txt") == "keep");
}
