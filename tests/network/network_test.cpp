// Network files, whole-network runs on the analytic model and their reports: the shipped networks
// parse with the expected work, bad files are InputErrors naming the key, totals are the sums of
// their layers, reports appear whole with the documented keys, and `flycol net` / `flycol run
// --model analytic` behave on the command line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <yaml-cpp/yaml.h>

#include "sim/common/input_error.h"
#include "sim/config/config_keys.h"
#include "sim/energy/energy.h"
#include "sim/network/network.h"
#include "sim/network/network_report.h"
#include "sim/network/network_run.h"
#include "sim/network/traffic.h"
#include "sim/report/doc_section.h"
#include "tests/common/test_util.h"

using namespace flycol;
namespace fs = std::filesystem;

using flycol::test::slurp;
using flycol::test::input_error_of;

namespace {

fs::path scratch() {
  const fs::path d = fs::temp_directory_path() / ("flycol_network_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

const char* kSmall = R"(name: small
title: three small layers
input: {C: 8, H: 20, W: 20}
paper:
  total_mb: {explicit: 2, feeder: 1}
  time_ms: {explicit: 1, feeder: 0.5}
  gflops: {explicit: 10, feeder: 20}
layers:
  - {name: a, C: 8, H: 20, W: 20, K: 16, k: 3, p: 1}
  - {name: pool, op: maxpool, C: 16, H: 20, W: 20, k: 2, s: 2, p: 0}
  - {name: b, C: 16, H: 10, W: 10, K: 24, k: 1}
  - {name: c, C: 24, H: 10, W: 10, K: 8, k: 3, s: 2, d: 2, p: 2}
  - {name: fc, op: fc, C: 200, K: 10}
)";

}  // namespace

TEST_CASE("the shipped networks parse with their layers and work", "[network]") {
  const std::vector<std::string> names = network_names();
  REQUIRE(names.size() >= 4);
  struct Want { const char* name; int array_layers; std::size_t layers; std::int64_t macs; };
  for (const Want w : {Want{"resnet50", 54, 73, 5038358528}, Want{"vgg16", 16, 22, 15470264320},
                       Want{"yolov3", 75, 105, 49885216768}, Want{"arnp", 18, 25, 5000527872}}) {
    INFO(w.name);
    const Network n = load_network(w.name);
    CHECK(n.name == w.name);
    CHECK(n.array_layers() == w.array_layers);
    CHECK(n.layers.size() == w.layers);
    CHECK(n.macs() == w.macs);
    CHECK(n.paper.total_mb.given);
    CHECK(n.paper.gflops.given);
    for (const NetworkLayer& l : n.layers) {
      if (!l.on_array) continue;
      CHECK(l.layer.name == l.name);
      if (l.op == "fc") CHECK((l.layer.h == 1 && l.layer.w == 1 && l.layer.kx == 1));
    }
  }
  // The ARNP reconstruction is the dilated benchmark: conv4/conv5 and the ARPN are atrous.
  const Network a = load_network("arnp");
  int dilated = 0;
  for (const NetworkLayer& l : a.layers) dilated += l.on_array && l.layer.dx > 1;
  CHECK(dilated == 9);
}

TEST_CASE("bad network files and names are InputErrors naming the key", "[network][reject]") {
  const InputError unknown = input_error_of([] { load_network("nosuch"); });
  CHECK(unknown.source() == "--network");
  CHECK(unknown.problem().find("resnet50") != std::string::npos);

  struct Bad { const char* text; const char* key; };
  for (const Bad b : {
           Bad{"name: x\nlayers:\n  - {name: a, op: dance, C: 1, H: 1, W: 1}\n", "layers[0].op"},
           Bad{"name: x\nlayers:\n  - {name: a, C: 1, H: 4, W: 4, k: 3}\n", "layers[0].K"},
           Bad{"name: x\nlayers:\n  - {name: a, op: fc, K: 4}\n", "layers[0].C"},
           Bad{"name: x\nlayers:\n  - {C: 1, H: 4, W: 4, K: 1, k: 1}\n", "layers[0].name"},
           Bad{"name: x\nlayers:\n  - {name: a, C: 1, H: 4, W: 4, K: 1, k: 1}\n  - {name: a, C: 1, H: 4, W: 4, K: 1, k: 1}\n",
               "layers[1].name"},
           Bad{"name: x\nlayers:\n  - {name: a, C: 1, H: 4, W: 4, K: 1, k: 1, stride2: 2}\n", "layers[0].stride2"},
           Bad{"name: x\nlayers:\n  - {name: p, op: maxpool, C: 1, H: 4, W: 4}\n", "layers"},
           Bad{"name: x\npaper: {total_mb: {explicit: 3}}\nlayers:\n  - {name: a, C: 1, H: 4, W: 4, K: 1, k: 1}\n",
               "paper.total_mb"},
           Bad{"name: x\nlayers: []\n", "layers"},
           Bad{"name: x\nextra: 1\nlayers:\n  - {name: a, C: 1, H: 4, W: 4, K: 1, k: 1}\n", "extra"},
       }) {
    INFO(b.text);
    const InputError e = input_error_of([&] { parse_network(b.text, "test.yaml"); });
    CHECK(e.source() == "test.yaml");
    CHECK(e.key() == b.key);
  }
  // Anchors and the other pathologies are stopped by the YAML guard.
  CHECK_THROWS_AS(parse_network("name: x\nlayers:\n  - &a {name: a, C: 1, H: 4, W: 4, K: 1, k: 1}\n  - *a\n", "t"),
                  InputError);
}

TEST_CASE("a network run's totals are the sums of its layers, for both lowerings", "[network]") {
  const Network n = parse_network(kSmall, "small.yaml");
  net::RunOptions opt;
  const net::NetworkRun r = net::run_network(n, default_config(), opt);
  CHECK(r.bandwidth_gbps == Approx(default_config().dram.bandwidth_gbps()));
  for (const net::LoweringRun* lr : {&r.feeder, &r.expl}) {
    REQUIRE(lr->layers.size() == 4);
    std::uint64_t cycles = 0, bytes = 0, macs = 0;
    for (const net::LayerRun& l : lr->layers) {
      cycles += l.stats.cycles;
      bytes += l.stats.dram.total();
      macs += std::uint64_t(l.layer.macs());
      CHECK(l.stats.cycles == l.analytic.cycles);
      CHECK(l.stats.dram.ofmap >= std::uint64_t(l.layer.ofmap_elems()) * 2);  // every output stored
    }
    CHECK(lr->total.stats.cycles == cycles);
    std::uint64_t bound = 0;
    for (const net::LayerRun& l : lr->layers) bound += l.bound_bytes;
    CHECK(lr->total.bound_bytes == bound);
    CHECK(lr->total.stats.dram.total() == bytes);
    CHECK(lr->total.macs == macs);
    CHECK(lr->total.energy.dram_j == Approx(double(bytes) * 120e-12));
  }
  // The explicit baseline moves the lowered 3x3 ifmaps: more bytes than the feeder.
  CHECK(r.expl.total.stats.dram.ifmap > r.feeder.total.stats.dram.ifmap);
  // A faster DRAM never makes the feeder slower.
  net::RunOptions fast = opt;
  fast.bandwidth_gbps = 64;
  CHECK(net::run_network(n, default_config(), fast).feeder.total.stats.cycles <= r.feeder.total.stats.cycles);
}

TEST_CASE("pooling layers run on the pooling unit, beside the strided baseline and the host", "[network][pool]") {
  // Every kind a network file lists, and one the pooling unit refuses (padding above 255), which
  // stays on the host with the reason.
  const char* kPools = R"(name: pools
title: pooling kinds
input: {C: 8, H: 20, W: 20}
layers:
  - {name: a, C: 8, H: 20, W: 20, K: 16, k: 3, p: 1}
  - {name: max, op: maxpool, C: 16, H: 20, W: 20, k: 3, s: 2, p: 1}
  - {name: avg, op: avgpool, C: 16, H: 10, W: 10, k: 2, s: 2}
  - {name: gap, op: globalavgpool, C: 16, H: 5, W: 5}
  - {name: wide, op: maxpool, C: 16, H: 20, W: 20, k: 3, p: 300, inputs: [a]}
)";
  const Config& cfg = default_config();
  const Network n = with_batch(parse_network(kPools, "pools.yaml"), 2);
  const net::NetworkRun r = net::run_network(n, cfg, {});
  REQUIRE(r.pools.size() == 4);
  CHECK(r.pool_total.layers == 4);
  CHECK(r.pool_total.on_chip == 3);
  const net::PoolRun& wide = r.pools[3];
  CHECK_FALSE(wide.on_chip);
  CHECK(wide.refused.find("255") != std::string::npos);
  // Each on-chip layer: pooling steps and no MAC, every output stored once, the host's round trip
  // the input and output tensors once at the DRAM bandwidth, the energy of the counted activity.
  const int ho[3] = {10, 5, 1}, hin[3] = {20, 10, 5};
  std::uint64_t cycles = 0, strided = 0, host = 0;
  for (int i = 0; i < 3; ++i) {
    const net::PoolRun& p = r.pools[std::size_t(i)];
    INFO(p.name);
    REQUIRE(p.on_chip);
    CHECK(p.shape.n == 2);
    CHECK(p.shape.ho() == ho[i]);
    CHECK(p.stats.mac_cycles == 0);
    CHECK(p.stats.pool_cycles > 0);
    CHECK(p.stats.dram.ofmap == 2u * 16u * std::uint64_t(ho[i] * ho[i]) * 2u);
    CHECK(p.stats.dram.ifmap >= 2u * 16u * std::uint64_t(hin[i] * hin[i]) * 2u);
    CHECK(p.host_bytes == 2u * 16u * std::uint64_t(hin[i] * hin[i] + ho[i] * ho[i]) * 2u);
    const double bytes_per_cycle = DramTiming::from(cfg).bytes_per_cycle;
    CHECK(double(p.host_cycles) >= double(p.host_bytes) / bytes_per_cycle);
    CHECK(double(p.host_cycles) < double(p.host_bytes) / bytes_per_cycle + 1);
    CHECK(p.energy.core_j == Approx(double(p.stats.pool_cycles) * energy::kPoolCycleShare * cfg.pes() *
                                    energy::mac_pj(cfg) * 1e-12));
    CHECK(p.free_cycles <= p.stats.cycles);
    cycles += p.stats.cycles;
    strided += p.strided.cycles;
    host += p.host_cycles;
  }
  // The strided unit reads a 3x3 stride-2 window's words again for every step: slower alone.
  CHECK(r.pools[0].strided_free_cycles > r.pools[0].free_cycles);
  CHECK(r.pools[0].strided.sram_reads[0] > r.pools[0].stats.sram_reads[0]);
  CHECK(r.pool_total.stats.cycles == cycles);
  CHECK(r.pool_total.strided.cycles == strided);
  CHECK(r.pool_total.host_cycles == host);
  // The array layers' totals are not changed by the pooling layers (the paper's Tables II/III).
  CHECK(r.feeder.layers.size() == 1);
  const std::string text = net::text_report(r);
  CHECK(text.find("pooling layers on chip") != std::string::npos);
  CHECK(text.find("on the host: ") != std::string::npos);
  const Json j = net::json_report(r);
  const YAML::Node y = YAML::Load(j.dump());
  CHECK(y["pooling"]["layers"].size() == 4);
  CHECK(y["pooling"]["layers"][0]["strided"]["speedup"].as<double>() ==
        Approx(double(r.pools[0].strided.cycles) / double(r.pools[0].stats.cycles)));
  CHECK(y["pooling"]["layers"][3]["on_chip"].as<bool>() == false);
  for (const char* key : {"cycles", "time_us", "dram_mb", "energy_uj", "strided_cycles", "strided_speedup",
                          "strided_speedup_free_dram", "host_time_us_lower_bound", "host_dram_mb",
                          "network_time_ms_with_pooling"})
    CHECK(y["pooling"]["total"][key].IsScalar());
}

TEST_CASE("a convolution and the pooling of its output run fused beside the two separate runs", "[network][pool]") {
  // a -> max: fused. b is read by max2 and by c: not fused (its output leaves the chip anyway).
  // max2 -> avg: the producer is a pooling layer. The separate runs stay what the totals count.
  const char* kPairs = R"(name: pairs
title: fusion pairs
input: {C: 8, H: 20, W: 20}
layers:
  - {name: a, C: 8, H: 20, W: 20, K: 16, k: 3, p: 1}
  - {name: max, op: maxpool, C: 16, H: 20, W: 20, k: 3, s: 2, p: 1}
  - {name: b, C: 16, H: 10, W: 10, K: 24, k: 3, p: 1}
  - {name: max2, op: maxpool, C: 24, H: 10, W: 10, k: 2, s: 2}
  - {name: c, C: 24, H: 10, W: 10, K: 8, k: 1, inputs: [b]}
  - {name: avg, op: avgpool, C: 24, H: 5, W: 5, k: 2, s: 1, inputs: [max2]}
)";
  const Config& cfg = default_config();
  const Network n = with_batch(parse_network(kPairs, "pairs.yaml"), 2);
  const net::NetworkRun r = net::run_network(n, cfg, {});
  REQUIRE(r.fusions.size() == 3);
  CHECK(r.fused_total.pairs == 3);
  CHECK(r.fused_total.fused == 1);
  const net::FusedRun& f = r.fusions[0];
  REQUIRE(f.fused);
  CHECK(f.conv == "a");
  CHECK(f.pool == "max");
  CHECK(r.fusions[1].refused.find("c also reads b's output") != std::string::npos);
  CHECK(r.fusions[2].refused.find("not of a convolution") != std::string::npos);
  // The fused program writes only the pooled tensor (2 x 16 x 10 x 10 FP16) and reads no partial
  // sum back; the separate runs write a's output, read it back and write the pooled one.
  CHECK(f.stats.dram.ofmap == 2u * 16u * 10u * 10u * 2u);
  CHECK(f.stats.dram.psums_in == 0);
  CHECK(f.stats.mac_cycles > 0);
  CHECK(f.stats.pool_cycles == r.pools[0].stats.pool_cycles);
  CHECK(f.unfused.cycles == r.feeder.layers[0].stats.cycles + r.pools[0].stats.cycles);
  CHECK(f.unfused.dram.total() == r.feeder.layers[0].stats.dram.total() + r.pools[0].stats.dram.total());
  CHECK(f.unfused.dram.ofmap == 2u * 16u * 20u * 20u * 2u + 2u * 16u * 10u * 10u * 2u);
  CHECK(f.stats.dram.total() < f.unfused.dram.total());
  CHECK(f.free_cycles <= f.stats.cycles);
  // The totals of the array layers are the separate runs (three convolutions).
  CHECK(r.feeder.layers.size() == 3);
  const std::string text = net::text_report(r);
  CHECK(text.find("fused convolution + pooling") != std::string::npos);
  CHECK(text.find("not fused: c also reads b's output") != std::string::npos);
  const YAML::Node y = YAML::Load(net::json_report(r).dump());
  REQUIRE(y["fusion"]["pairs"].size() == 3);
  CHECK(y["fusion"]["pairs"][0]["saved_dram_mb"].as<double>() ==
        Approx(double(f.unfused.dram.total() - f.stats.dram.total()) * 1e-6));
  CHECK(y["fusion"]["pairs"][1]["fused"].as<bool>() == false);
  for (const char* key : {"pairs", "fused", "cycles", "time_us", "dram_mb", "energy_uj", "unfused_cycles",
                          "unfused_dram_mb", "speedup", "saved_dram_mb", "saved_energy_uj"})
    CHECK(y["fusion"]["total"][key].IsScalar());

  // An integer configuration has no pair to fuse: the accumulator is wider than the element.
  const net::NetworkRun ri = net::run_network(n, load_config_by_name_or_path("int8"), {});
  REQUIRE(ri.fusions.size() == 3);
  CHECK(ri.fused_total.fused == 0);
  CHECK(ri.fusions[0].refused.find("no requantizer") != std::string::npos);
}

TEST_CASE("a batch runs every array layer on N images and is not compared with the paper", "[network]") {
  const Network n = parse_network(kSmall, "small.yaml");
  REQUIRE(n.paper.total_mb.given);
  const Network b = with_batch(n, 6);
  CHECK(b.name == "small-batch6");
  CHECK(b.title.find("batch 6") != std::string::npos);
  CHECK_FALSE(b.paper.total_mb.given);
  CHECK_FALSE(b.paper.time_ms.given);
  CHECK(b.macs() == 6 * n.macs());
  for (const NetworkLayer& l : b.layers)
    if (l.on_array) CHECK(l.layer.n == 6);
  CHECK(with_batch(n, 1).name == "small");  // one image: the network unchanged
  CHECK(input_error_of([&] { with_batch(n, 0); }).source() == "--batch");
  CHECK(input_error_of([&] { with_batch(n, 65); }).source() == "--batch");

  // Every output of every image is stored, and the feeder's packing across images (1x1 and fully
  // connected layers) makes a batch of 6 cheaper per image than one image on the array's rows.
  net::RunOptions opt;
  const net::NetworkRun one = net::run_network(n, default_config(), opt);
  const net::NetworkRun six = net::run_network(b, default_config(), opt);
  REQUIRE(six.feeder.layers.size() == one.feeder.layers.size());
  for (std::size_t i = 0; i < six.feeder.layers.size(); ++i) {
    const net::LayerRun& l = six.feeder.layers[i];
    INFO(l.name);
    CHECK(l.stats.dram.ofmap >= std::uint64_t(l.layer.ofmap_elems()) * 2);
    CHECK(l.stats.cycles == l.analytic.cycles);
    CHECK(l.stats.cycles <= 6 * one.feeder.layers[i].stats.cycles);
  }
  CHECK(six.feeder.total.macs == 6 * one.feeder.total.macs);
  CHECK(six.feeder.total.stats.cycles < 6 * one.feeder.total.stats.cycles);
}

// A network with every case of host_subsamples_input(): the network's input and a host op's output
// read only by 1x1 stride-2 layers (subsampled), an array layer's output (not: that would need a
// strided store), a host tensor also read by a 3x3 layer, and one read with two different strides.
namespace {
const char* kStrided = R"(name: strided
input: {C: 8, H: 16, W: 16}
layers:
  - {name: in_s2, C: 8, H: 16, W: 16, K: 16, k: 1, s: 2}
  - {name: a, C: 16, H: 8, W: 8, K: 16, k: 3, p: 1}
  - {name: from_array, C: 16, H: 8, W: 8, K: 16, k: 1, s: 2}
  - {name: sum, op: add, C: 16, H: 8, W: 8, inputs: [a, in_s2]}
  - {name: c, C: 16, H: 8, W: 8, K: 24, k: 1, s: 2, inputs: [sum]}
  - {name: d, C: 16, H: 8, W: 8, K: 8, k: 1, s: 2, inputs: [sum]}
  - {name: r, op: relu, C: 16, H: 8, W: 8, inputs: [a]}
  - {name: beside_3x3, C: 16, H: 8, W: 8, K: 16, k: 1, s: 2, inputs: [r]}
  - {name: the_3x3, C: 16, H: 8, W: 8, K: 16, k: 3, p: 1, inputs: [r]}
  - {name: r2, op: relu, C: 16, H: 8, W: 8, inputs: [a]}
  - {name: s2, C: 16, H: 8, W: 8, K: 16, k: 1, s: 2, inputs: [r2]}
  - {name: sy2, C: 16, H: 8, W: 8, K: 16, k: 1, sy: 2, sx: 1, inputs: [r2]}
)";

}  // namespace

TEST_CASE("strided 1x1 layers read a host-written input subsampled only when every reader reads it so",
          "[network]") {
  const Network n = parse_network(kStrided, "strided.yaml");
  std::map<std::string, bool> want = {{"in_s2", true},       {"a", false},          {"from_array", false},
                                      {"c", true},           {"d", true},           {"beside_3x3", false},
                                      {"the_3x3", false},    {"s2", false},         {"sy2", false}};
  for (std::size_t i = 0; i < n.layers.size(); ++i) {
    if (!n.layers[i].on_array) {
      CHECK_FALSE(host_subsamples_input(n, i));
      continue;
    }
    INFO(n.layers[i].name);
    REQUIRE(want.count(n.layers[i].name));
    CHECK(host_subsamples_input(n, i) == want[n.layers[i].name]);
  }
  CHECK(input_producer(n, 0, 0) == -1);
  CHECK(input_producer(n, 1, 0) == 0);
  CHECK(input_producer(n, 3, 1) == 0);
  const Layer dense = subsampled_layer(n.layers[4].layer);
  CHECK(dense.h == 4);
  CHECK(dense.w == 4);
  CHECK(dense.sy == 1);
  CHECK(dense.sx == 1);
  CHECK(dense.macs() == n.layers[4].layer.macs());

  // Both lowerings run the dense layer: the ifmap bytes of `c` are whole reads of the subsampled
  // 16 x 4 x 4 tensor (less than one read of the 16 x 8 x 8 one), and the reports say so.
  const net::NetworkRun r = net::run_network(n, default_config(), net::RunOptions{});
  for (const net::LoweringRun* lr : {&r.feeder, &r.expl}) {
    INFO(lr->lowering);
    const net::LayerRun& c = lr->layers[3];
    REQUIRE(c.name == "c");
    CHECK(c.host_subsampled);
    CHECK(std::int64_t(c.view.h) * c.view.w == 16);
    CHECK(c.stats.dram.ifmap % (16 * 4 * 4 * 2) == 0);
    CHECK(c.stats.dram.ifmap < 16 * 8 * 8 * 2);
    CHECK(c.compulsory_bytes == std::uint64_t(16 * 4 * 4 * 2 + 24 * 16 * 2 + 24 * 4 * 4 * 2));
    CHECK_FALSE(lr->layers[2].host_subsampled);
  }
  CHECK(net::csv_report(r).find(",input_subsampled_by_host\n") != std::string::npos);
  CHECK(net::text_report(r).find("(input subsampled by the host)") != std::string::npos);
}

TEST_CASE("bad run options are InputErrors naming the option", "[network][reject]") {
  const Network n = parse_network(kSmall, "small.yaml");
  for (double bw : {-1.0, 1e9}) {
    net::RunOptions o;
    o.bandwidth_gbps = bw;
    const InputError e = input_error_of([&] { net::run_network(n, default_config(), o); });
    CHECK(e.source() == "--bandwidth");
  }
  net::RunOptions o;
  o.model = "rtl";
  CHECK(input_error_of([&] { net::run_network(n, default_config(), o); }).source() == "--model");
}

TEST_CASE("reports are written whole with the documented keys", "[network][report]") {
  const Network n = parse_network(kSmall, "small.yaml");
  const net::NetworkRun r = net::run_network(n, default_config(), {});
  const fs::path dir = scratch() / "reports";
  const std::vector<std::string> files = net::write_reports(r, dir.string());
  REQUIRE(files.size() == 5);
  for (const std::string& f : files) CHECK(fs::file_size(f) > 100);
  const YAML::Node j = YAML::LoadFile((dir / "small.json").string());
  for (const char* key : {"dram_mb", "dram_mb_explicit", "time_ms", "gflops", "stall_pct", "avg_gbps", "max_gbps"})
    CHECK(j["total"][key].IsScalar());
  CHECK(j["layers"].size() == 4);
  CHECK(j["layers"][0]["feeder"]["plan"]["order"].IsScalar());
  CHECK(j["total"]["dram_mb"].as<double>() == Approx(double(r.feeder.total.stats.dram.total()) * 1e-6));
  // The lower bound (added keys): no program moves less, per layer and in total, either lowering.
  CHECK(j["total"]["lower_bound_mb"].as<double>() == Approx(double(r.feeder.total.bound_bytes) * 1e-6));
  CHECK(j["total"]["lower_bound_mb"].as<double>() > 0);
  for (const char* lw : {"feeder", "explicit"}) {
    CHECK(j[lw]["lower_bound_mb"].as<double>() <= j[lw]["dram_mb"].as<double>());
    for (std::size_t i = 0; i < 4; ++i)
      CHECK(j["layers"][i][lw]["lower_bound_mb"].as<double>() <= j["layers"][i][lw]["dram_mb"].as<double>());
  }
  // Utilization with an unlimited DRAM (added keys): a layer's is its MACs over its free cycles; the
  // total's MAC-weighted one is the layers' weighted by their MACs, computed here independently.
  for (const auto* lr : {&r.feeder, &r.expl}) {
    const YAML::Node t = j[lr->lowering == "feeder" ? "feeder" : "explicit"];
    double weighted = 0, macs = 0;
    for (std::size_t i = 0; i < lr->layers.size(); ++i) {
      const net::LayerRun& l = lr->layers[i];
      const double m = double(l.layer.macs()) * l.groups;
      const double u = 100.0 * m / (double(l.free_cycles) * default_config().pes());
      CHECK(j["layers"][i][lr->lowering == "feeder" ? "feeder" : "explicit"]["utilization_free_dram_pct"].as<double>() ==
            Approx(u));
      weighted += m * u;
      macs += m;
    }
    CHECK(t["mac_weighted_utilization_free_dram_pct"].as<double>() == Approx(weighted / macs));
    CHECK(t["utilization_free_dram_pct"].as<double>() ==
          Approx(100.0 * double(lr->total.macs) / (double(lr->total.free_cycles) * default_config().pes())));
    CHECK(t["utilization_free_dram_pct"].as<double>() >= t["utilization_pct"].as<double>());
  }
  const std::string csv = slurp(dir / "small.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 2 * 4);
  CHECK(csv.substr(0, csv.find('\n')).find(",lower_bound_mb") != std::string::npos);
  CHECK(slurp(dir / "small_bytes_per_op.svg").find("</svg>") != std::string::npos);
  CHECK(slurp(dir / "small_bandwidth.svg").find("</svg>") != std::string::npos);
  const std::string text = net::text_report(r);
  CHECK(text.find("average GFLOP/s") != std::string::npos);
  CHECK(text.find("energy mJ") != std::string::npos);
  CHECK(text.find("lower bound MB") != std::string::npos);
  CHECK(text.find("MAC-weighted over layers") != std::string::npos);
}

TEST_CASE("the generated section of a Markdown file is replaced, the rest kept", "[network][report]") {
  const fs::path f = scratch() / "doc.md";
  {
    std::ofstream o(f);
    o << "# Title\nprose before\n<!-- BEGIN GENERATED -->\nold tables\n<!-- END GENERATED -->\nprose after\n";
  }
  const Network n = parse_network(kSmall, "small.yaml");
  const net::NetworkRun r = net::run_network(n, default_config(), {});
  update_doc_section(f.string(), net::markdown_tables({r}));
  const std::string t = slurp(f);
  CHECK(t.find("prose before") != std::string::npos);
  CHECK(t.find("prose after") != std::string::npos);
  CHECK(t.find("old tables") == std::string::npos);
  CHECK(t.find("Table II") != std::string::npos);
  CHECK(t.find("lower bound MB") != std::string::npos);
  CHECK(t.find("| **total** |") != std::string::npos);
  const fs::path g = scratch() / "nomarkers.md";
  std::ofstream(g) << "no markers\n";
  CHECK(input_error_of([&] { update_doc_section(g.string(), "x"); }).source() == g.string());
}

TEST_CASE("peak bandwidth is the busiest window", "[network]") {
  // 1000 bytes over cycles 0..100, then 8000 bytes over 100..200: at 1 Hz "cycles", 1e-9 GB/s units.
  const std::vector<analytic::TrafficSpan> spans = {{0, 100, 1000}, {100, 200, 8000}};
  CHECK(net::busiest_window_gbps(spans, 100, 1e9) == Approx(80.0));
  CHECK(net::busiest_window_gbps(spans, 400, 1e9) == Approx(45.0));  // shorter than the window: the average
  const std::vector<double> b = net::bucket_bytes(spans, 50);
  REQUIRE(b.size() == 4);
  CHECK(b[0] == Approx(500));
  CHECK(b[3] == Approx(4000));
}

TEST_CASE("the energy estimate reproduces the reference power at peak", "[network][energy]") {
  energy::Activity a;
  a.mac_steps = 555'000'000;             // one second at 555 MHz, every cycle a MAC step
  a.sram_words[1] = a.mac_steps;         // one weight word per step
  a.sram_words[0] = a.mac_steps * 2 / 3;  // two ifmap words per three steps
  const energy::Estimate e = energy::estimate(default_config(), a);
  CHECK(e.core_j + e.sram_j == Approx(0.258).epsilon(0.002));
  CHECK(e.dram_j == 0);
}

#ifdef FLYCOL_BIN
namespace {
using Cmd = test::FlycolRun;
Cmd run_flycol(const std::string& args) { return test::run_flycol_in(scratch(), args); }
}  // namespace

TEST_CASE("flycol net runs a network and rejects bad options", "[network][cli]") {
  const fs::path rep = scratch() / "net";
  const Cmd r = run_flycol("net --network resnet50 --report " + rep.string());
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("average GFLOP/s") != std::string::npos);
  CHECK(fs::exists(rep / "resnet50.json"));
  CHECK(fs::exists(rep / "resnet50_bandwidth.svg"));
  test::check_usage_error(scratch(), "net --network nosuch", {"--network", "resnet50"});
  test::check_usage_error(scratch(), "net --network arnp --bandwidth 0", {"--bandwidth"});
  test::check_usage_error(scratch(), "net --network arnp --model rtl", {"analytic, sc or both"});
  test::check_usage_error(scratch(), "net --network arnp --check", {"--check", "--model sc or both"});
  test::check_usage_error(scratch(), "net --network arnp --batch 0", {"--batch", "1..64"});
  test::check_usage_error(scratch(), "net --network arnp --batch 65", {"--batch", "1..64"});
  test::check_usage_error(scratch(), "net --network all --batch 2 --update-doc x.md", {"--batch", "--update-doc"});
  const Cmd b = run_flycol("net --network arnp --batch 4 --report " + rep.string());
  INFO(b.out << b.err);
  CHECK(b.code == 0);
  CHECK(b.out.find("batch 4") != std::string::npos);
  CHECK(fs::exists(rep / "arnp-batch4.json"));
}

TEST_CASE("run --model analytic reports the keys of run --model sc", "[network][cli]") {
  const fs::path d = scratch();
  const std::string layer = "--layer C=8,H=12,W=20,K=20,k=3,s=1,p=1 ";
  REQUIRE(run_flycol("run --model sc " + layer + "--report " + (d / "sc.json").string()).code == 0);
  const Cmd a = run_flycol("run --model analytic " + layer + "--report " + (d / "an.json").string());
  REQUIRE(a.code == 0);
  const YAML::Node sc = YAML::LoadFile((d / "sc.json").string());
  const YAML::Node an = YAML::LoadFile((d / "an.json").string());
  for (const auto& kv : sc) CHECK(an[kv.first.as<std::string>()].IsDefined());
  CHECK(an["model"].as<std::string>() == "analytic");
  CHECK(an["dram_bytes"]["total"].as<std::uint64_t>() == sc["dram_bytes"]["total"].as<std::uint64_t>());
  const double err = an["cycles"].as<double>() / sc["cycles"].as<double>() - 1;
  CHECK(std::fabs(err) < 0.02);
}
#endif

// libsystemc's own main() refers to sc_main; Catch2 provides main() and SystemC runs as a library.
extern "C" int sc_main(int, char*[]) { return 2; }
