// Random and recorded whole-accelerator test cases (see layer_cases.h).
#include "tb/top/layer_cases.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/analytic/plan_choice.h"
#include "sim/common/input_error.h"
#include "sim/workload/random_layer.h"

namespace flycol::tb {

namespace {

double uniform01(std::mt19937_64& rng) { return std::uniform_real_distribution<double>(0, 1)(rng); }
int uniform_int(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

std::string layout_text(const CompileOptions& o) {
  std::string t;
  if (o.align_rows) t += "+aligned";
  if (o.skip_rows) t += "+skip_rows";
  if (o.flat_contexts) t += "+flat";
  if (o.gather_cols) t += "+gathered";
  return t.empty() ? "none" : t.substr(1);
}

bool parse_layout(const std::string& v, CompileOptions& o) {
  o.align_rows = o.skip_rows = o.flat_contexts = o.gather_cols = false;
  if (v == "none") return true;
  std::istringstream in(v);
  std::string part;
  while (std::getline(in, part, '+')) {
    if (part == "aligned") o.align_rows = true;
    else if (part == "skip_rows") o.skip_rows = true;
    else if (part == "flat") o.flat_contexts = true;
    else if (part == "gathered") o.gather_cols = true;
    else return false;
  }
  return true;
}

bool fits(const Layer& l, std::int64_t max_macs) {
  try {
    validate_layer(l, "random layer");
  } catch (const InputError&) {
    return false;
  }
  return l.macs() <= max_macs;
}

// Kernel shapes the compiler treats apart, drawn more often than random_layer() draws them.
void bend_kernel(Layer& l, std::mt19937_64& rng) {
  const double u = uniform01(rng);
  if (u < 0.12) {  // 1x1: flat contexts, GeMM views
    l.ky = l.kx = l.dy = l.dx = 1;
    l.pt = l.pb = l.pl = l.pr = 0;
    l.sy = uniform01(rng) < 0.6 ? 1 : uniform_int(rng, 2, 3);
    l.sx = uniform01(rng) < 0.7 ? l.sy : uniform_int(rng, 1, 3);
  } else if (u < 0.2) {  // one kernel row with a vertical stride: skipped rows
    l.ky = l.dy = 1;
    l.pt = l.pb = 0;
    l.sy = uniform_int(rng, 2, 4);
  }
}

}  // namespace

std::string Case::describe() const {
  return fmt::format("layer={} order={} tiles={},{},{},{},{} layout={} tiling={} data={} dram={} zeros={} operands={}",
                     layer.spec(), opt.order, opt.tile_c, opt.tile_kg, opt.tile_h, opt.tile_w, opt.tile_n,
                     layout_text(opt),
                     search ? "search" : "heuristic", data_seed, dram_seed, zeros, operands);
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

Case random_case(std::mt19937_64& rng, const Config& cfg, std::int64_t max_macs, bool beyond_limits) {
  RandomLayerLimits lim;
  lim.max_macs = max_macs;
  Case c;
  // The feeder's documented limit is the configuration's, not the compiler's to find: a kernel
  // whose dilated width exceeds feeder.pattern_bits is drawn again (otherwise a 32-bit pattern
  // rejects about 7 % of the layers and the 90 % gate of a short run would fail by chance). Kernel
  // rows wider than fifo_depth x M run in chunks (microarchitecture 9.2). What the compiler still
  // rejects (tiles that cannot fit the SRAMs) counts.
  for (;;) {
    c.layer = random_layer(rng, lim);
    bend_kernel(c.layer, rng);
    if (!fits(c.layer, max_macs)) continue;
    if (beyond_limits || c.layer.extent_x() <= cfg.feeder.pattern_bits) break;
  }
  auto coin = [&](double p) { return uniform01(rng) < p; };
  const std::vector<std::string> orders = loop_order_names();
  c.opt.order = orders[std::size_t(uniform_int(rng, 0, int(orders.size()) - 1))];
  const Layer& l = c.layer;
  const bool one_by_one = l.kx == 1 && l.ky == 1;
  if (one_by_one && coin(0.6)) {
    c.opt.flat_contexts = true;  // needs consecutive output rows in consecutive buffer rows
    c.opt.skip_rows = l.sy > 1;
  } else if (!one_by_one && coin(0.25)) {
    c.opt.flat_contexts = true;  // pixels packed across output rows (tiling.cpp may refuse: drawn again below)
  } else if (l.ky == 1 && l.sy > 1 && coin(0.6)) {
    c.opt.skip_rows = true;
  } else if (coin(0.2)) {
    c.opt.align_rows = true;
  }
  if (l.kx == 1 && l.sx >= 2 && l.sx <= hw::kMaxElemStep && coin(0.5)) c.opt.gather_cols = true;
  if (coin(0.3)) {
    // Forced small tiles: channel slices with preload, row and column tiles, several groups.
    c.opt.tile_c = uniform_int(rng, 1, std::max(1, l.c / 2 + 1));
    c.opt.tile_kg = coin(0.5) ? 1 : 0;
    c.opt.tile_h = coin(0.5) ? uniform_int(rng, 1, l.ho()) : 0;
    c.opt.tile_w = !c.opt.flat_contexts && coin(0.3) && l.wo() > cfg.array.rows ? cfg.array.rows : 0;
  }
  if (coin(0.12)) {
    c.search = true;  // the plan `flycol net` chooses; the options above do not apply
    c.opt = CompileOptions{};
  }
  c.data_seed = rng();
  c.dram_seed = coin(0.6) ? (rng() | 1) : 0;
  c.zeros = coin(0.3) ? 0.3 : 0.0;
  if (coin(0.4)) {  // the other operand classes: -0, subnormals, Inf, NaN, overflowing sums
    const std::vector<std::string>& classes = operand_class_names();
    c.operands = classes[std::size_t(uniform_int(rng, 1, int(classes.size()) - 1))];
  }
  return c;
}

ConvOperands make_case_operands(const Case& c, const Config& cfg) {
  OperandDistribution d;
  d.zero_fraction = c.zeros;
  d.operand_class = parse_operand_class(c.operands, "case operands");
  return make_random_operands(c.layer, cfg.arithmetic, c.data_seed, d);
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
      // tile_n (images per tile) was added fifth; older lines have four sizes.
      const int got = std::sscanf(val.c_str(), "%d,%d,%d,%d,%d", &c.opt.tile_c, &c.opt.tile_kg, &c.opt.tile_h,
                                  &c.opt.tile_w, &c.opt.tile_n);
      if (got != 4 && got != 5) return false;
    } else if (key == "data") {
      c.data_seed = std::stoull(val);
    } else if (key == "dram") {
      c.dram_seed = std::stoull(val);
    } else if (key == "zeros") {
      c.zeros = std::stod(val);
    } else if (key == "layout") {
      if (!parse_layout(val, c.opt)) return false;
    } else if (key == "tiling") {
      if (val != "search" && val != "heuristic") return false;
      c.search = val == "search";
    } else if (key == "operands") {
      const std::vector<std::string>& classes = operand_class_names();
      if (std::find(classes.begin(), classes.end(), val) == classes.end()) return false;
      c.operands = val;
    } else if (key != "config") {
      return false;
    }
  }
  return have_layer;
}

Program compile_case(const Case& c, const Config& cfg) {
  if (c.search) {
    analytic::Planner planner(cfg, DramTiming::from(cfg), analytic::Tiling::search);
    return planner.choose(c.layer, analytic::Lowering::feeder).program;
  }
  try {
    return compile_layer(c.layer, cfg, c.opt);
  } catch (const InputError& e) {
    if (e.source() != "compile options") throw;
  }
  CompileOptions layout_only;
  layout_only.order = c.opt.order;
  layout_only.align_rows = c.opt.align_rows;
  layout_only.skip_rows = c.opt.skip_rows;
  layout_only.flat_contexts = c.opt.flat_contexts;
  layout_only.gather_cols = c.opt.gather_cols;
  try {
    return compile_layer(c.layer, cfg, layout_only);
  } catch (const InputError& e) {
    if (e.source() != "compile options") throw;
  }
  CompileOptions plain;
  plain.order = c.opt.order;
  return compile_layer(c.layer, cfg, plain);
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

void print_command_schedule(const Program& prog, const std::vector<std::uint64_t>& done_cycles,
                            const analytic::Result& an) {
  std::int64_t last_diff = 0;
  for (std::size_t i = 0; i < prog.commands.size(); ++i) {
    const std::int64_t sim_done = i < done_cycles.size() ? std::int64_t(done_cycles[i]) : -1;
    const std::int64_t start = i < an.commands.size() ? an.commands[i].start : -1;
    const std::int64_t done = i < an.commands.size() ? an.commands[i].done : -1;
    const std::int64_t diff = done - sim_done;
    fmt::print("    cmd {:4} {:12} sim done {:8}  analytic start {:8} done {:8}  diff {:+6}{}  {}\n", i,
               hw::opcode_name(prog.commands[i].op), sim_done, start, done, diff, diff != last_diff ? " *" : "  ",
               i < prog.notes.size() ? prog.notes[i] : std::string());
    last_diff = diff;
  }
}

}  // namespace flycol::tb
