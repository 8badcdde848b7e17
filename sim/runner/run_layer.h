// Runs one layer through a chosen model: builds the seeded operands (or takes given ones), runs the model and the
// golden checks, and returns both the JSON report and the text summary the command line prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/analytic/tiling_mode.h"
#include "sim/config/config.h"
#include "sim/config/layer.h"
#include "sim/report/json.h"
#include "sim/workload/workload.h"

namespace flycol {

struct RunRequest {
  std::string model = "golden";
  Config config;
  Layer layer;
  std::uint64_t seed = 1;
  double zero_fraction = 0.0;  // share of zero weights and activations
  OperandClass operands = OperandClass::uniform;  // --operands: the class the operands are drawn from
  std::string trace_path;      // --trace: VCD of the top-level signals (sc)
  std::uint64_t dram_seed = 0; // nonzero: randomized DRAM latency/back-pressure profile
  std::string order;           // loop order for the compiler ("" = its default)
  // "search" (the plan `flycol net` picks, sim/analytic/plan_choice.h; the default) or "heuristic"
  // (the compiler's fixed plan, which --order needs).
  std::string tiling = analytic::tiling_name(analytic::kDefaultTiling);
  bool power = false;          // --power (rtl, both): toggle-count power proxy (sim/power)
  bool structural = false;     // --structural (sc): the structural SystemC top (hw/top/structural_top.h)
  std::string rtl_blocks;      // --rtl-blocks (sc): blocks whose Verilated RTL replaces their SystemC
                               // module in the structural top ("feeder,array", "all"); implies structural
  // Operands to run instead of the seeded ones (`flycol run --ifmap/--weights`): their layer and
  // arithmetic must be req.layer and req.config.arithmetic. seed, zero_fraction and operands (the
  // class) then do not apply; reports show seed null and operands "given". Every model honours
  // it (analytic: timing only, it computes no values).
  const ConvOperands* given_operands = nullptr;
};

struct RunOutcome {
  Json report;       // keys: model, layer, config, seed, macs, output, check, and the cycle models'
                     // statistics (sim/stats/run_stats.h), ...
  std::string text;  // human-readable summary
  bool passed = true;  // every check the model makes agreed
  std::vector<AccBits> output;  // the model's outputs [N][K][Ho][Wo] as raw bits (empty: analytic)
};

// Runs req.model's registered run function (models.h). Throws InputError for an unknown model.
RunOutcome run_layer(const RunRequest& req);

// The operand distribution the request asks for (zero fraction and class).
OperandDistribution operand_distribution(const RunRequest& req);

// Report fragments shared by every model.
Json layer_json(const Layer& l);
Json config_json(const Config& c);

}  // namespace flycol
