// Random and recorded whole-accelerator test cases (see layer_cases.h).
#include "tb/top/layer_cases.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/workload/random_layer.h"

namespace flycol::tb {

std::string Case::describe() const {
    return fmt::format("layer={} order={} tiles={},{},{},{} data={} dram={} zeros={}", layer.spec(), opt.order,
                       opt.tile_c, opt.tile_kg, opt.tile_h, opt.tile_w, data_seed, dram_seed, zeros);
}

DramTiming timing_for(const Config& cfg, std::uint64_t dram_seed) {
  DramTiming t = DramTiming::from(cfg);
  if (dram_seed == 0) return t;
  std::mt19937_64 rng(dram_seed);
  t.bytes_per_cycle = std::uniform_real_distribution<double>(1.0, 40.0)(rng);
  t.latency_cycles = std::uniform_int_distribution<int>(1, 200)(rng);
  t.random_seed = dram_seed;
  t.not_ready_prob = std::uniform_real_distribution<double>(0.0, 0.5)(rng);
  t.extra_latency_max = std::uniform_int_distribution<int>(0, 64)(rng);
  return t;
}

Case random_case(std::mt19937_64& rng, const Config& cfg, std::int64_t max_macs) {
  RandomLayerLimits lim;
  lim.max_macs = max_macs;
  Case c;
  c.layer = random_layer(rng, lim);
  auto coin = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  c.opt.order = coin(0.25) ? "spill" : "output_stationary";
  if (coin(0.3)) {
    // Forced small tiles: channel slices with preload, row and column tiles, several groups.
    c.opt.tile_c = std::uniform_int_distribution<int>(1, std::max(1, c.layer.c / 2 + 1))(rng);
    c.opt.tile_kg = coin(0.5) ? 1 : 0;
    c.opt.tile_h = coin(0.5) ? std::uniform_int_distribution<int>(1, c.layer.ho())(rng) : 0;
    c.opt.tile_w = coin(0.3) && c.layer.wo() > cfg.array.rows ? cfg.array.rows : 0;
  }
  c.data_seed = rng();
  c.dram_seed = coin(0.6) ? (rng() | 1) : 0;
  c.zeros = coin(0.3) ? 0.3 : 0.0;
  return c;
}

// Parses one line of the regression file: key=value fields as printed by Case::describe().
bool parse_case(const std::string& line, Case& c) {
  std::istringstream in(line);
  std::string field;
  bool have_layer = false;
  while (in >> field) {
    const auto eq = field.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = field.substr(0, eq), val = field.substr(eq + 1);
    if (key == "layer") {
      c.layer = parse_layer_spec(val, "regression file");
      have_layer = true;
    } else if (key == "order") {
      c.opt.order = val;
    } else if (key == "tiles") {
      if (std::sscanf(val.c_str(), "%d,%d,%d,%d", &c.opt.tile_c, &c.opt.tile_kg, &c.opt.tile_h, &c.opt.tile_w) != 4)
        return false;
    } else if (key == "data") {
      c.data_seed = std::stoull(val);
    } else if (key == "dram") {
      c.dram_seed = std::stoull(val);
    } else if (key == "zeros") {
      c.zeros = std::stod(val);
    } else if (key != "config") {
      return false;
    }
  }
  return have_layer;
}

Program compile_case(const Case& c, const Config& cfg) {
  try {
    return compile_layer(c.layer, cfg, c.opt);
  } catch (const InputError& e) {
    if (e.source() != "compile options") throw;
    CompileOptions plain;
    plain.order = c.opt.order;
    return compile_layer(c.layer, cfg, plain);
  }
}

std::vector<Case> read_regressions(const std::string& path, const std::string& config_name) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(fmt::format("cannot read the regressions file {}", path));
  std::vector<Case> cases;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    if (line.empty() || line[0] == '#' || line.find("config=" + config_name + " ") != 0) continue;
    Case c;
    if (!parse_case(line, c)) throw std::runtime_error(fmt::format("{}:{}: not a case: {}", path, n, line));
    cases.push_back(c);
  }
  return cases;
}

bool load_layer_run(const std::string& bench, const LayerRunOptions& o, const std::string& regressions, Config& cfg,
                    std::vector<Case>& recorded) {
  try {
    cfg = load_config_by_name_or_path(o.config);
    if (!regressions.empty()) recorded = read_regressions(regressions, cfg.name);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", bench, e.what());
    return false;
  }
  return true;
}

}  // namespace flycol::tb
