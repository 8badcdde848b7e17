// Helpers shared by the sweep tests: small hand-made results standing in for model runs (and the
// common test helpers of tests/common/test_util.h, in this namespace).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "sim/common/input_error.h"
#include "tests/common/test_util.h"
#include "sim/sweep/results.h"

namespace flycol::sweep::test {

using flycol::test::input_error_of;
using flycol::test::repo_path;
using flycol::test::ScratchDir;
using flycol::test::slurp;

inline PointResult fake_point(int index, const std::string& name, Status st, std::int64_t cycles) {
  PointResult p;
  p.index = index;
  p.name = name;
  p.values = {{"d", std::to_string(index)}, {"s", "1"}};
  p.own = {"d", "s"};
  p.status = st;
  if (st == Status::rejected) {
    p.message = "feeder.fifo_depth: = 1: too narrow";
    return p;
  }
  p.ran = true;
  p.stats.cycles = std::uint64_t(cycles);
  p.macs = 1000 * index;
  p.stats.mac_cycles = std::uint64_t(cycles / 2);
  p.utilization = 0.5;
  p.stats.feeder_stall = index;
  p.stats.sram_reads[0] = 10;
  p.stats.sram_reads[1] = 20;
  p.stats.sram_reads[2] = 5;
  p.stats.dram = {100, 200, 0, 50};
  p.has_lowered = true;
  p.lowered = {900, 200, 0, 50};  // total 1150
  p.has_check = true;
  p.bit_exact = st == Status::pass;
  p.mismatches = st == Status::pass ? 0 : 4;
  if (st == Status::fail) p.message = "not bit-exact";
  return p;
}

inline SweepResults fake_results(int n) {
  SweepResults r;
  r.sweep = "fake";
  r.file = "configs/sweeps/fake.yaml";
  r.file_hash = "0123456789abcdef";
  r.model = "sc";
  r.base_config = "fornt16";
  r.points_total = n;
  r.swept_keys = {"d", "s"};
  r.plots = {PlotSpec{"d", {"cycles", "dram"}, false, {}}};
  for (int i = 1; i <= n; ++i) r.points.push_back(fake_point(i, "d" + std::to_string(i), Status::pass, 1000 * i));
  return r;
}

}  // namespace flycol::sweep::test
