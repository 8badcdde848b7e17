// `flycol run --op maxpool|avgpool|globalmaxpool|globalavgpool`: one pooling layer (ONNX's
// semantics, docs/microarchitecture.md section 15), its operands seeded or given as a tensor, on the
// golden model, or compiled to a pooling program (sim/compiler/pool_compiler.h) and run on the
// accelerator's pooling unit (section 16): the SystemC model (sc), the analytic model, the
// Verilated RTL (rtl) or both in lockstep; every chip model's output is checked bit for bit against
// the golden pooling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config.h"
#include "sim/golden/pool.h"
#include "sim/report/json.h"
#include "sim/workload/workload.h"

namespace flycol {

// The pooling operations of --op, and whether a name is one ("conv" is not).
const std::vector<std::string>& pool_op_names();  // maxpool, avgpool, globalmaxpool, globalavgpool
bool is_pool_op(const std::string& op);

// The pooling layer of `--op op --layer spec`. Keys: N, C, H, W; for maxpool / avgpool also the
// window, strides, dilations and padding with the names and ranges of a convolution's --layer (k
// or ky/kx, s or sy/sx, d or dy/dx, p or pt/pb/pl/pr; docs/configuration.md), `ceil` (ONNX's
// ceil_mode, 0 or 1) and, for avgpool, `include_pad` (count_include_pad, 0 or 1); name. K is
// refused (pooling keeps the channels), global pooling takes only N, C, H, W (its window is the
// map). `shape` (N, C, H, W of an --ifmap tensor, or empty) fills the keys the spec leaves out and
// must agree with the ones it gives. Every problem is an InputError naming `source` and the key.
golden::PoolLayer parse_pool_layer(const std::string& op, const std::string& spec, const std::string& source,
                                   const std::vector<std::int64_t>& shape = {});

// "maxpool N=1,C=3,H=9,W=9,k=3x3,s=2x2,d=1x1,p=1/1/1/1,ceil=0"-style text of a layer.
std::string pool_spec(const std::string& op, const golden::PoolLayer& l);

struct PoolRequest {
  std::string op = "maxpool";
  std::string model = "golden";
  Config config;
  golden::PoolLayer layer;
  std::uint64_t seed = 1;
  OperandClass operands = OperandClass::uniform;
  // The ifmap [N][C][H][W] as element bits of the configuration's arithmetic, instead of seeded
  // values (seed and operands then do not apply).
  const std::vector<ElemBits>* given_ifmap = nullptr;
  // The backward pass (col2im, section 15): the output is the input gradient dx [N][C][H][W] from
  // the output gradient dy [N][C][Ho][Wo] (seeded with seed + 1, or given as accumulator bits) and,
  // for max pooling, the forward input (the ifmap above, which picks each window's argmax). On the
  // chip models average pooling, and max pooling without dilation, on an FP16 configuration
  // (sim/compiler/pool_backward_compiler.h).
  bool backward = false;
  const std::vector<AccBits>* given_grad = nullptr;
};

struct PoolOutcome {
  bool passed = true;           // a chip model's outputs equal the golden pooling's (and, both, lockstep)
  Json report;                  // model, op, layer, config, seed, operands, output, check (chip: cycles, stats, program)
  std::string text;             // human-readable summary
  std::vector<ElemBits> ifmap;  // the operands run
  std::vector<AccBits> grad;    // backward: the output gradient dy run
  std::vector<AccBits> output;  // [N][C][Ho][Wo] accumulator bits (backward: dx [N][C][H][W])
};

// Runs the request. Throws InputError for a model that does not exist, or a layer the pooling unit
// cannot run (naming the key and the reason: average pooling with dilation, a window side above 256, ...).
PoolOutcome run_pool(const PoolRequest& req);

}  // namespace flycol
