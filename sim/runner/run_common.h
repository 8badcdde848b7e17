// Pieces every model's run shares: comparing outputs with the golden convolution, naming an
// output index, and the DRAM timing a run request asks for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/compiler/compiler.h"
#include "sim/dram/dram_model.h"
#include "sim/runner/run_layer.h"
#include "sim/workload/workload.h"

namespace flycol {

struct Mismatches {
  std::int64_t count = 0;
  std::int64_t first = -1;  // index of the first differing output, -1 if none
};

Mismatches compare_outputs(const std::vector<AccBits>& got, const std::vector<AccBits>& want);
// "n=..,k=..,y=..,x=.." of an index into the [N][K][Ho][Wo] output.
std::string index_name(const Layer& L, std::int64_t i);
// The configuration's DRAM timing, or a reproducible random profile when dram_seed is set.
DramTiming timing_for(const RunRequest& req);
// The seed as the summaries print it: "7", or "7, operands wide" for a class other than uniform.
std::string seed_text(const RunRequest& req);
// The program of the request's layer: the compiler's heuristic plan (in req.order, if given), or
// with tiling "search" the plan `flycol net` would pick (the search's candidates and the heuristic
// plan timed by the analytic model at the configuration's DRAM rate). Throws InputError for an
// unknown tiling, for --order with search (the search chooses the order), or a layer that cannot run.
Program compile_request(const RunRequest& req);
// The operands as the program's layer takes them: `ops` itself, or, when the tiling search chose
// a flattened form of the layer (a 1x1 layer run as one long row), ops lowered to it
// (sim/compiler/explicit_lowering.h). Outputs come back in the layer's own order either way.
ConvOperands program_operands(const ConvOperands& ops, const Program& prog);
// The operands of the request: req.given_operands (checked against the request's layer and
// arithmetic: a mismatch is a caller's bug, std::logic_error) or the seeded ones.
ConvOperands request_operands(const RunRequest& req);
// The report's "seed" value: the seed, or null for given operands.
Json seed_json(const RunRequest& req);
// The report's "operands" value: the class name, or "given".
std::string operands_name(const RunRequest& req);
// The keys every cycle model's report opens with, after `model`: layer, config, seed, operands,
// plan, tiling, commands.
void write_run_header(Json& j, const RunRequest& req, const Program& prog);

}  // namespace flycol
