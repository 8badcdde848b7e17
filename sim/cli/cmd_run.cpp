// flycol run: one layer through a model (golden, sc, ...), printed and optionally reported as JSON;
// its operands either seeded or given as NumPy tensors (--ifmap/--weights, docs/tensors.md), whose
// results can be written (--ofmap) and checked against an outside reference (--expect).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "sim/cli/commands.h"
#include "sim/common/files.h"
#include "sim/analytic/tiling_mode.h"
#include "sim/common/input_error.h"
#include "sim/common/text.h"
#include "sim/accuracy/accuracy.h"
#include "sim/config/layer.h"
#include "sim/config/yaml_guard.h"
#include "sim/report/json.h"
#include "sim/rtlblocks/rtl_blocks.h"
#include "sim/runner/models.h"
#include "sim/runner/run_layer.h"
#include "sim/runner/run_pool.h"
#include "sim/tensor/convert.h"
#include "sim/tensor/npy.h"
#include "sim/workload/workload.h"

namespace flycol::cli {
namespace {

// The options fill the request directly, except the layer and the configuration, which are
// resolved from their text when the command runs.
struct RunArgs {
  RunRequest req;
  std::string layer;
  std::string config;
  std::string report;
  std::string operands = "uniform";
  bool check = false;
  // Tensor operands and results (docs/tensors.md).
  std::string ifmap, weights, bias, ofmap, expect;
  // --op with --backward: the pooling's backward pass; --grad the output gradient dy.
  bool backward = false;
  std::string grad;
  std::string ofmap_dtype = "float32";
  std::string op = "conv";  // --op: conv, or a pooling layer (sim/runner/run_pool.h)
  // To tell options given from their defaults.
  CLI::Option *seed_opt = nullptr, *zeros_opt = nullptr, *operands_opt = nullptr, *ofmap_dtype_opt = nullptr;
  RunArgs() { req.model = "sc"; }
};

// ---- Tensor operands -------------------------------------------------------------------------

// The layer of a tensor run: N, C, H, W from the ifmap's shape, K, ky, kx from the weights'; the
// rest (stride, dilation, padding, name) from --layer, which may also repeat the shape keys if
// they agree. Keys --layer leaves out are filled in from the shapes before parsing, so the
// layer parser checks the ranges of all of them.
Layer tensor_layer(const std::string& layer_arg, const Tensor& x, const Tensor& w, const std::string& xpath,
                   const std::string& wpath) {
  struct Dim {
    const char* key;
    std::int64_t value;
    const char* axis;  // for messages
    const std::string* path;
  };
  const Dim dims[] = {{"N", x.shape[0], "axis 0", &xpath}, {"C", x.shape[1], "axis 1", &xpath},
                      {"H", x.shape[2], "axis 2", &xpath}, {"W", x.shape[3], "axis 3", &xpath},
                      {"K", w.shape[0], "axis 0", &wpath}, {"ky", w.shape[2], "axis 2", &wpath},
                      {"kx", w.shape[3], "axis 3", &wpath}};
  Layer L;
  std::string source;
  std::vector<std::string> keys;  // the keys --layer gives
  auto given = [&keys](const char* key) {
    const std::string k(key);
    for (const std::string& g : keys)
      if (g == k || ((k == "ky" || k == "kx") && (g == "k" || g == "kernel"))) return true;
    return false;
  };
  std::error_code ec;
  const bool is_file = !layer_arg.empty() && (ends_with(layer_arg, ".yaml") || ends_with(layer_arg, ".yml") ||
                                              std::filesystem::is_regular_file(layer_arg, ec));
  if (!is_file) {
    for (std::size_t start = 0; start <= layer_arg.size();) {
      const std::size_t comma = std::min(layer_arg.find(',', start), layer_arg.size());
      const std::string item = layer_arg.substr(start, comma - start);
      keys.push_back(trim(item.substr(0, item.find('='))));
      start = comma + 1;
    }
    std::string spec;
    for (const Dim& d : dims)
      if (!given(d.key)) spec += fmt::format("{}{}={}", spec.empty() ? "" : ",", d.key, d.value);
    if (!trim(layer_arg).empty()) spec += (spec.empty() ? "" : ",") + layer_arg;
    source = layer_arg.empty() ? fmt::format("{} and {}", xpath, wpath) : "--layer";
    L = parse_layer_spec(spec, source);
  } else {
    YAML::Node root = load_yaml_file(layer_arg);
    YAML::Node node = root;
    std::string where;
    if (root.IsMap() && root["layer"]) {
      node = root["layer"];
      where = "layer";
    }
    if (!node.IsMap()) throw InputError(layer_arg, where, "must be a mapping of layer keys (stride, dilation, padding, ...)");
    for (const auto& kv : node) keys.push_back(kv.first.as<std::string>());
    for (const Dim& d : dims)
      if (!given(d.key)) node[d.key] = YAML::Load(std::to_string(d.value));  // a plain scalar, as if read
    source = layer_arg;
    L = parse_layer_node(node, layer_arg, where);
  }
  const int got[] = {L.n, L.c, L.h, L.w, L.k, L.ky, L.kx};
  for (std::size_t i = 0; i < 7; ++i)
    if (got[i] != dims[i].value) {
      // Name the key as the user wrote it: k or kernel for a kernel size given through them.
      std::string key = dims[i].key;
      for (const char* alias : {"k", "kernel"})
        if ((key == "ky" || key == "kx") && std::find(keys.begin(), keys.end(), alias) != keys.end()) key = alias;
      throw InputError(source, key,
                       fmt::format("= {} disagrees with {}, whose shape has {} at {} ({}): leave {} out of --layer or make them agree",
                                   got[i], *dims[i].path, dims[i].value, dims[i].axis,
                                   dims[i].path == &xpath ? "[N][C][H][W]" : "[K][C][ky][kx]", key));
    }
  return L;
}

std::string rounding_text(const char* what, const RoundingStats& s) {
  return fmt::format("{} {} values, {} changed (largest relative change {:.3g}), {} overflowed", what, s.values,
                     s.changed, s.max_rel_change, s.overflowed);
}

// Everything a tensor run reads and derives before the model runs.
struct TensorRun {
  Tensor x, w;
  std::optional<Tensor> bias, expect;
  ConvOperands ops;
  RoundingStats rx, rw, rb;
  DType ofmap_dtype = DType::float32;
};

// Reads and checks the tensors (shapes, ranks, element types against the arithmetic) and rounds
// the operands; throws InputError naming the file or option for every problem.
TensorRun load_tensors(const RunArgs& a, RunRequest& req) {
  if (a.weights.empty()) throw InputError("--ifmap", "", "needs --weights W.npy ([K][C][ky][kx]) as well");
  if (a.seed_opt->count() || a.zeros_opt->count() || a.operands_opt->count())
    throw InputError(a.seed_opt->count() ? "--seed" : a.zeros_opt->count() ? "--zeros" : "--operands", "",
                     "describes seeded operands and cannot be combined with --ifmap/--weights (the tensors are the operands)");
  if (req.model == "analytic" && (!a.ofmap.empty() || !a.expect.empty()))
    throw InputError(a.ofmap.empty() ? "--expect" : "--ofmap", "",
                     "needs output values, which --model analytic does not compute (it models timing only): use golden, sc, rtl or both");
  TensorRun t;
  t.ofmap_dtype = parse_dtype(a.ofmap_dtype, "--ofmap-dtype");
  if (t.ofmap_dtype == DType::int8 || t.ofmap_dtype == DType::int16)
    throw InputError("--ofmap-dtype", "", fmt::format("= {}: must be one of float16, float32, float64, int32", a.ofmap_dtype));
  t.x = read_npy(a.ifmap);
  t.w = read_npy(a.weights);
  if (t.x.shape.size() != 4)
    throw InputError(a.ifmap, "", fmt::format("shape {} has rank {}: --ifmap needs rank 4, [N][C][H][W] (NCHW, as ONNX and PyTorch)",
                                              t.x.shape_text(), t.x.shape.size()));
  if (t.w.shape.size() != 4)
    throw InputError(a.weights, "", fmt::format("shape {} has rank {}: --weights needs rank 4, [K][C][ky][kx] (KCHW, as ONNX and PyTorch)",
                                                t.w.shape_text(), t.w.shape.size()));
  if (t.w.shape[1] != t.x.shape[1])
    throw InputError(a.weights, "", fmt::format("shape {} has C={} (axis 1) but --ifmap {} has C={} (shape {}): input channels must agree",
                                                t.w.shape_text(), t.w.shape[1], a.ifmap, t.x.shape[1], t.x.shape_text()));
  const Arithmetic arith = req.config.arithmetic;
  if (arith != Arithmetic::fp16)
    for (const auto& f : {std::make_pair(&t.x, &a.ifmap), std::make_pair(&t.w, &a.weights)})
      if (is_float(f.first->dtype))
        throw InputError(*f.second, "", fmt::format("element type {} does not suit the {} configuration, which takes integer tensors "
                                                    "(int8, int16 or int32 with values in its range): quantize the data first",
                                                    dtype_name(f.first->dtype), arithmetic_info(arith).name));
  req.layer = tensor_layer(a.layer, t.x, t.w, a.ifmap, a.weights);
  if (!a.bias.empty()) {
    t.bias = read_npy(a.bias);
    if (t.bias->shape != std::vector<std::int64_t>{t.w.shape[0]})
      throw InputError(a.bias, "", fmt::format("shape {}: --bias needs shape [{}] (one value per output channel K of --weights {})",
                                               t.bias->shape_text(), t.w.shape[0], a.weights));
    // The bias is added on the host in float32: its statistics are those of rounding to float32.
    t.rb.values = t.bias->elems();
    for (double b : t.bias->values) {
      const double r = double(float(b));
      if (std::isnan(b) || r == b) continue;
      ++t.rb.changed;
      if (std::isinf(r)) ++t.rb.overflowed;
      else t.rb.max_rel_change = std::max(t.rb.max_rel_change, std::fabs(r - b) / std::fabs(b));
    }
  }
  if (!a.expect.empty()) {
    t.expect = read_npy(a.expect);
    const std::vector<std::int64_t> want{req.layer.n, req.layer.k, req.layer.ho(), req.layer.wo()};
    if (t.expect->shape != want)
      throw InputError(a.expect, "", fmt::format("shape {}: the layer's output is {} ([N][K][Ho][Wo] of {})", t.expect->shape_text(),
                                                 Tensor{DType::float32, want, {}}.shape_text(), req.layer.spec()));
  }
  t.ops.layer = req.layer;
  t.ops.arithmetic = arith;
  t.ops.ifmap = to_elements(t.x, arith, a.ifmap, &t.rx);
  t.ops.weights = to_elements(t.w, arith, a.weights, &t.rw);
  return t;
}

// The unit roundoff of the arithmetic an --expect reference was computed in, judged by the element
// type it is stored in (float32 for ONNX's expected outputs; integers are exact).
double reference_unit(DType d) {
  switch (d) {
    case DType::float16: return 0x1p-11;
    case DType::float32: return 0x1p-24;
    case DType::float64: return 0x1p-53;
    default: return 0;
  }
}

int run_tensor_command(const RunArgs& a, RunRequest req) {
  TensorRun t = load_tensors(a, req);
  req.given_operands = &t.ops;
  RunOutcome out = run_layer(req);
  const Layer& L = req.layer;
  const std::vector<double>* bias = t.bias ? &t.bias->values : nullptr;

  Json& j = out.report;
  Json& tj = j["tensors"];
  tj = Json::object();
  tj["ifmap"] = a.ifmap;
  tj["weights"] = a.weights;
  tj["bias"] = a.bias.empty() ? Json(nullptr) : Json(a.bias);
  tj["ofmap"] = a.ofmap.empty() ? Json(nullptr) : Json(a.ofmap);
  tj["expect"] = a.expect.empty() ? Json(nullptr) : Json(a.expect);
  Json& rj = j["rounding"];
  rj = Json::object();
  rj["arithmetic"] = arithmetic_info(req.config.arithmetic).name;
  rj["ifmap"] = rounding_json(t.rx);
  rj["weights"] = rounding_json(t.rw);
  rj["bias"] = t.bias ? rounding_json(t.rb) : Json(nullptr);
  j["host"] = t.bias ? "bias added in float32 on the host" : "none";

  std::string text = fmt::format("  tensors      ifmap {} {} {}, weights {} {} {}{}\n", a.ifmap, t.x.shape_text(), dtype_name(t.x.dtype),
                                 a.weights, t.w.shape_text(), dtype_name(t.w.dtype),
                                 t.bias ? fmt::format(", bias {} {} {}", a.bias, t.bias->shape_text(), dtype_name(t.bias->dtype)) : "");
  text += fmt::format("  rounding     to {}: {}\n               {}\n", arithmetic_info(req.config.arithmetic).name,
                      rounding_text("ifmap", t.rx), rounding_text("weights", t.rw));
  if (t.bias) text += "  host         " + rounding_text("bias (float32)", t.rb) + "; bias added in float32 on the host\n";

  bool expect_ok = true;
  std::optional<Tensor> ofmap;
  if (out.output.empty()) {  // analytic: timing only
    j["error_vs_float64"] = nullptr;
  } else {
    const std::vector<std::int64_t> shape{L.n, L.k, L.ho(), L.wo()};
    // The result as the host sees it: the accumulators, plus the bias in float32.
    const Tensor y = from_accumulators(out.output, req.config.arithmetic, shape, DType::float64, bias);
    const std::vector<double> ref = conv_f64(t.x.values, t.w.values, L, bias);
    const ErrorStats e = error_stats(y.values, ref);
    Json& ej = j["error_vs_float64"];
    ej = Json::object();
    ej["max_abs"] = e.max_abs;
    ej["max_rel"] = e.max_rel;
    ej["normwise_rel"] = e.normwise_rel;
    ej["rms"] = e.rms;
    ej["cosine"] = e.cosine;
    ej["nonfinite"] = e.nonfinite;
    ej["nonfinite_mismatch"] = e.nonfinite_mismatch;
    text += fmt::format("  vs float64   max |err| {:.3g}, max rel {:.3g}, normwise rel {:.3g}, rms {:.3g}, cosine {:.9f}{} "
                        "(output{} against float64 convolution of the unrounded operands)\n",
                        e.max_abs, e.max_rel, e.normwise_rel, e.rms, e.cosine,
                        e.nonfinite ? fmt::format(", {} non-finite ({} mismatched)", e.nonfinite, e.nonfinite_mismatch) : "",
                        t.bias ? " incl. bias" : "");
    if (t.expect) {
      BoundOptions bo;
      bo.reference_unit = reference_unit(t.expect->dtype);
      bo.bias = bias;
      const AccuracyBound b = accumulation_bound(t.ops, t.x.values, t.w.values, bo);
      const BoundCheck c = check_against_bound(y.values, t.expect->values, b);
      expect_ok = c.passed();
      Json& xj = j["expect"];
      xj = Json::object();
      xj["path"] = a.expect;
      xj["max_abs_err"] = c.max_abs_err;
      xj["worst_ratio"] = c.worst_ratio;
      xj["worst_index"] = c.worst_index >= 0 ? Json(index_text(c.worst_index, shape)) : Json(nullptr);
      xj["outside_bound"] = c.outside;
      xj["bound_invalid"] = c.invalid;
      xj["passed"] = expect_ok;
      std::string worst;
      if (c.worst_index >= 0) {
        const std::size_t i = std::size_t(c.worst_index);
        worst = fmt::format("; worst {} = {} against {}, |err| {:.3g}, bound {:.3g}", index_text(c.worst_index, shape),
                            y.values[i], t.expect->values[i], std::fabs(y.values[i] - t.expect->values[i]), b.bound[i]);
      }
      text += fmt::format("  expect       {}: max |err| {:.3g}, worst err/bound {:.3g}, {} outside the bound, {} where it is invalid{}: {}\n",
                          a.expect, c.max_abs_err, c.worst_ratio, c.outside, c.invalid, worst,
                          expect_ok ? "within the bound" : "OUTSIDE THE BOUND");
    }
    if (!a.ofmap.empty()) ofmap = from_accumulators(out.output, req.config.arithmetic, shape, t.ofmap_dtype, bias);
  }
  const bool check_ok = !a.check || out.passed;
  std::fputs(out.text.c_str(), stdout);
  std::fputs(text.c_str(), stdout);
  if (!a.report.empty()) {
    write_file_atomic(a.report, out.report.dump());
    fmt::print("  report       {}\n", a.report);
  }
  if (ofmap && check_ok && expect_ok) {
    write_npy(a.ofmap, *ofmap);
    fmt::print("  ofmap        {} {} {}\n", a.ofmap, ofmap->shape_text(), dtype_name(ofmap->dtype));
  } else if (ofmap) {
    fmt::print("  ofmap        {} not written: a check failed\n", a.ofmap);
  }
  return (check_ok && expect_ok) ? 0 : kExitCheckFailed;
}

// ---- Pooling (--op) ----------------------------------------------------------------------------

// `flycol run --op maxpool|avgpool|globalmaxpool|globalavgpool`: the pooling on seeded operands or
// an --ifmap tensor, on any --model (the chip models checked bit for bit against the golden
// pooling), with --ofmap, --expect (within the bound of one rounding of the inputs and one of the
// result) and --report.
int run_pool_command(const RunArgs& a) {
  if (!is_pool_op(a.op))
    throw InputError("--op", "", fmt::format("= {}: must be conv or one of {}", a.op, join(pool_op_names())));
  // What only a convolution (or only a cycle model) has.
  for (const auto& o : {std::make_pair("--weights", &a.weights), std::make_pair("--bias", &a.bias),
                        std::make_pair("--trace", &a.req.trace_path), std::make_pair("--order", &a.req.order),
                        std::make_pair("--rtl-blocks", &a.req.rtl_blocks)})
    if (!o.second->empty()) throw InputError(o.first, "", fmt::format("does not apply to pooling (--op {})", a.op));
  const char* flag = a.req.structural ? "--structural" : a.req.power ? "--power" : a.req.dram_seed ? "--dram-seed"
                     : a.zeros_opt->count()                           ? "--zeros"
                     : a.req.tiling != analytic::tiling_name(analytic::kDefaultTiling) ? "--tiling"
                                                                                       : nullptr;
  if (flag) throw InputError(flag, "", fmt::format("does not apply to pooling (--op {})", a.op));
  PoolRequest pr;
  pr.op = a.op;
  pr.model = a.req.model;
  pr.config = resolve_config(a.config);
  pr.seed = a.req.seed;
  pr.operands = parse_operand_class(a.operands, "--operands");
  const Arithmetic arith = pr.config.arithmetic;
  pr.backward = a.backward;
  if (!a.grad.empty() && !a.backward) throw InputError("--grad", "", "is the output gradient of --backward: add --backward");
  // A run on tensors: an --ifmap, or with --backward a --grad (dy) whose layer --layer gives.
  const bool tensors = !a.ifmap.empty() || !a.grad.empty();
  Tensor x, dy;
  RoundingStats rx, rdy;
  std::vector<ElemBits> given;
  std::vector<AccBits> given_grad;
  if (tensors && (a.seed_opt->count() || a.operands_opt->count()))
    throw InputError(a.seed_opt->count() ? "--seed" : "--operands", "",
                     "describes seeded operands and cannot be combined with tensors (--ifmap, --grad)");
  if (!a.ifmap.empty()) {
    if (a.seed_opt->count() || a.operands_opt->count())
      throw InputError(a.seed_opt->count() ? "--seed" : "--operands", "",
                       "describes seeded operands and cannot be combined with --ifmap (the tensor is the operand)");
    x = read_npy(a.ifmap);
    if (x.shape.size() != 4)
      throw InputError(a.ifmap, "", fmt::format("shape {} has rank {}: --ifmap needs rank 4, [N][C][H][W] (NCHW, as ONNX and PyTorch)",
                                                x.shape_text(), x.shape.size()));
    if (arith != Arithmetic::fp16 && is_float(x.dtype))
      throw InputError(a.ifmap, "", fmt::format("element type {} does not suit the {} configuration, which takes integer tensors "
                                                "(int8, int16 or int32 with values in its range): quantize the data first",
                                                dtype_name(x.dtype), arithmetic_info(arith).name));
    pr.layer = parse_pool_layer(a.op, a.layer, a.layer.empty() ? a.ifmap : std::string("--layer"), x.shape);
    given = to_elements(x, arith, a.ifmap, &rx);
    pr.given_ifmap = &given;
  } else {
    if (!tensors)
      for (const auto& o : {std::make_pair("--ofmap", &a.ofmap), std::make_pair("--expect", &a.expect)})
        if (!o.second->empty())
          throw InputError(o.first, "", "needs --ifmap X.npy (a run on a tensor; with --backward, or --grad DY.npy)");
    if (!tensors && a.ofmap_dtype_opt->count()) throw InputError("--ofmap-dtype", "", "needs --ofmap Y.npy (and --ifmap)");
    if (trim(a.layer).empty())
      throw InputError("--layer", "", fmt::format("--op {} needs the layer, e.g. --layer N=1,C=64,H=112,W=112,k=3,s=2,p=1 "
                                                  "(or --ifmap X.npy for N, C, H, W)",
                                                  a.op));
    pr.layer = parse_pool_layer(a.op, a.layer, "--layer");
    if (a.backward && pr.layer.op == golden::PoolOp::max && !a.grad.empty())
      throw InputError("--grad", "", "max pooling's backward pass needs its forward input too: add --ifmap X.npy (the "
                                     "argmax of each window)");
  }
  if (!a.grad.empty()) {
    const golden::PoolLayer& fl = pr.layer;
    dy = read_npy(a.grad);
    const std::vector<std::int64_t> want{fl.n, fl.c, fl.ho(), fl.wo()};
    if (dy.shape != want)
      throw InputError(a.grad, "", fmt::format("shape {}: the output gradient of {} is {} ([N][C][Ho][Wo])", dy.shape_text(),
                                               pool_spec(a.op, fl), Tensor{DType::float32, want, {}}.shape_text()));
    if (arith != Arithmetic::fp16 && is_float(dy.dtype))
      throw InputError(a.grad, "", fmt::format("element type {} does not suit the {} configuration, which takes integer tensors "
                                               "(int8, int16 or int32 with values in its range): quantize the data first",
                                               dtype_name(dy.dtype), arithmetic_info(arith).name));
    given_grad = elements_as_accumulators(to_elements(dy, arith, a.grad, &rdy), arith);
    pr.given_grad = &given_grad;
  } else if (a.backward && !a.ifmap.empty()) {
    throw InputError("--ifmap", "", "with --backward a run on tensors needs the output gradient: add --grad DY.npy");
  }
  PoolOutcome out = run_pool(pr);
  const golden::PoolLayer& l = pr.layer;
  const std::vector<std::int64_t> shape = a.backward ? std::vector<std::int64_t>{l.n, l.c, l.h, l.w}
                                                     : std::vector<std::int64_t>{l.n, l.c, l.ho(), l.wo()};
  Json& j = out.report;
  std::string text;
  bool expect_ok = true;
  std::optional<Tensor> ofmap;
  if (tensors) {
    const DType ofmap_dtype = parse_dtype(a.ofmap_dtype, "--ofmap-dtype");
    if (ofmap_dtype == DType::int8 || ofmap_dtype == DType::int16)
      throw InputError("--ofmap-dtype", "", fmt::format("= {}: must be one of float16, float32, float64, int32", a.ofmap_dtype));
    Json& tj = j["tensors"];
    tj = Json::object();
    tj["ifmap"] = a.ifmap.empty() ? Json(nullptr) : Json(a.ifmap);
    tj["grad"] = a.grad.empty() ? Json(nullptr) : Json(a.grad);
    tj["ofmap"] = a.ofmap.empty() ? Json(nullptr) : Json(a.ofmap);
    tj["expect"] = a.expect.empty() ? Json(nullptr) : Json(a.expect);
    j["rounding"] = rounding_json(a.ifmap.empty() ? rdy : rx);
    if (!a.ifmap.empty())
      text += fmt::format("  tensors      ifmap {} {} {}\n  rounding     to {}: {}\n", a.ifmap, x.shape_text(),
                          dtype_name(x.dtype), arithmetic_info(arith).name, rounding_text("ifmap", rx));
    if (!a.grad.empty()) {
      j["rounding_grad"] = rounding_json(rdy);
      text += fmt::format("  tensors      grad {} {} {}\n  rounding     to {}: {}\n", a.grad, dy.shape_text(),
                          dtype_name(dy.dtype), arithmetic_info(arith).name, rounding_text("grad", rdy));
    }
    const Tensor y = from_accumulators(out.output, arith, shape, DType::float64, nullptr);
    if (!a.expect.empty()) {
      const Tensor e = read_npy(a.expect);
      if (e.shape != shape)
        throw InputError(a.expect, "", fmt::format("shape {}: the pooling's {} is {} ({} of {})", e.shape_text(),
                                                   a.backward ? "input gradient" : "output",
                                                   Tensor{DType::float32, shape, {}}.shape_text(),
                                                   a.backward ? "[N][C][H][W]" : "[N][C][Ho][Wo]", pool_spec(a.op, l)));
      // The bound of one output: rounding the inputs once moves a max or a mean by at most 2^-11 of
      // the window's largest |x| (2^-25 near zero), rounding the result once by 2^-11 of it, and the
      // reference itself carries its type's rounding. Integers: exact inputs, the average's
      // rounding to an integer (1/2).
      golden::PoolLayer m = l;
      m.op = golden::PoolOp::max;
      std::vector<ElemBits> magnitude = given;
      if (arith == Arithmetic::fp16)
        for (ElemBits& v : magnitude) v = ElemBits(v & 0x7FFF);
      std::vector<double> window_max = arith == Arithmetic::fp16 && !a.backward ? golden::pool_f64(m, arith, magnitude)
                                                                                 : std::vector<double>(y.values.size(), 0.0);
      // The backward pass: what an element receives is a sum of at most ky*kx shares, each from a
      // gradient rounded once and (average) divided with one rounding: 2 x 2^-11 of the sum of their
      // magnitudes (the same windows: pool_backward_f64 of |dy|; for max, with the argmax of the
      // rounded input, which must be the reference's), 2^-25 per subnormal rounding, then one rounding
      // of the result. Integers: 1/2 per share of an average.
      const double shares = double(l.ky) * double(l.kx);
      if (a.backward && arith == Arithmetic::fp16) {
        std::vector<AccBits> grad_magnitude = out.grad;
        for (AccBits& v : grad_magnitude) v = AccBits(v & 0x7FFF);
        window_max = golden::pool_backward_f64(l, arith, out.ifmap, grad_magnitude);
        for (double& v : window_max) v *= 2;
      }
      const double unit = reference_unit(e.dtype);
      double worst = 0, max_err = 0;
      std::int64_t outside = 0, worst_index = -1;
      for (std::size_t i = 0; i < y.values.size(); ++i) {
        const double got = y.values[i], want = e.values[i];
        bool ok;
        double err = 0, bound = 0;
        if (std::isnan(want) || std::isinf(want)) {
          ok = std::isnan(want) ? std::isnan(got) : got == want;
        } else {
          err = std::fabs(got - want);
          bound = arith == Arithmetic::fp16
                      ? std::ldexp(window_max[i] + std::fabs(want), -11) +
                            std::ldexp(a.backward ? shares : 1.0, -24) + unit * std::fabs(want)
                      : (l.op == golden::PoolOp::avg ? (a.backward ? 0.5 * shares : 0.5) : 0.0) + unit * std::fabs(want);
          ok = err <= bound;
          max_err = std::max(max_err, err);
          const double ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0.0);
          if (ratio > worst || worst_index < 0) {
            worst = ratio;
            worst_index = std::int64_t(i);
          }
        }
        if (!ok) ++outside;
      }
      expect_ok = outside == 0;
      Json& xj = j["expect"];
      xj = Json::object();
      xj["path"] = a.expect;
      xj["max_abs_err"] = max_err;
      xj["worst_ratio"] = worst;
      xj["worst_index"] = worst_index >= 0 ? Json(index_text(worst_index, shape)) : Json(nullptr);
      xj["outside_bound"] = outside;
      xj["passed"] = expect_ok;
      text += fmt::format("  expect       {}: max |err| {:.3g}, worst err/bound {:.3g}, {} outside the bound: {}\n", a.expect,
                          max_err, worst, outside, expect_ok ? "within the bound" : "OUTSIDE THE BOUND");
    }
    if (!a.ofmap.empty()) ofmap = from_accumulators(out.output, arith, shape, ofmap_dtype, nullptr);
  }
  std::fputs(out.text.c_str(), stdout);
  std::fputs(text.c_str(), stdout);
  if (!a.report.empty()) {
    write_file_atomic(a.report, j.dump());
    fmt::print("  report       {}\n", a.report);
  }
  if (ofmap && expect_ok) {
    write_npy(a.ofmap, *ofmap);
    fmt::print("  ofmap        {} {} {}\n", a.ofmap, ofmap->shape_text(), dtype_name(ofmap->dtype));
  } else if (ofmap) {
    fmt::print("  ofmap        {} not written: a check failed\n", a.ofmap);
  }
  return expect_ok && out.passed ? 0 : kExitCheckFailed;
}

int run_layer_command(const RunArgs& a) {
  RunRequest req = a.req;
  if (a.op != "conv") return run_pool_command(a);
  if (a.backward || !a.grad.empty())
    throw InputError(a.backward ? "--backward" : "--grad", "",
                     "applies to pooling (--op maxpool|avgpool|...) only: a convolution's backward pass is not built yet");
  req.operands = parse_operand_class(a.operands, "--operands");
  req.config = resolve_config(a.config);
  if (a.ifmap.empty()) req.layer = a.layer.empty() ? default_layer() : parse_layer_argument(a.layer);
  if ((req.structural || !req.rtl_blocks.empty()) && req.model != "sc")
    throw InputError(req.structural ? "--structural" : "--rtl-blocks", "",
                     fmt::format("needs --model sc (the structural SystemC top), not {}", req.model));
  if (req.power && req.model != "rtl" && req.model != "both")
    throw InputError("--power", "", fmt::format("needs --model rtl or both (the proxy counts the RTL's toggles), not {}",
                                                req.model));
  if (!a.ifmap.empty()) return run_tensor_command(a, req);
  for (const auto& o : {std::make_pair("--weights", &a.weights), std::make_pair("--bias", &a.bias),
                        std::make_pair("--ofmap", &a.ofmap), std::make_pair("--expect", &a.expect)})
    if (!o.second->empty()) throw InputError(o.first, "", "needs --ifmap X.npy and --weights W.npy (a run on tensors)");
  if (a.ofmap_dtype_opt->count()) throw InputError("--ofmap-dtype", "", "needs --ofmap Y.npy (and --ifmap, --weights)");
  const RunOutcome out = run_layer(req);
  std::fputs(out.text.c_str(), stdout);
  if (!a.report.empty()) {
    write_file_atomic(a.report, out.report.dump());
    fmt::print("  report       {}\n", a.report);
  }
  return (a.check && !out.passed) ? kExitCheckFailed : 0;
}

}  // namespace

Subcommand add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "simulate one convolution layer and check it against the golden model (with --op: a pooling layer on the pooling unit)");
  run->add_option("--model", a->req.model, "model to run: " + model_names("|"))->capture_default_str();
  run->add_option("--op", a->op,
                  "conv (the default), or a pooling layer (on every model: the pooling unit, or golden): maxpool|avgpool|globalmaxpool|globalavgpool "
                  "(--layer then takes N, C, H, W, k, s, d, p, ceil and, for avgpool, include_pad; docs/tensors.md)")
      ->capture_default_str();
  run->add_option("--layer", a->layer,
                  "layer: compact spec such as C=64,H=56,W=56,K=64,k=3,s=1,d=2,p=2, or a YAML file "
                  "(default C=64,H=56,W=56,K=64,k=3,s=1,p=1)");
  add_config_option(run, a->config);
  a->seed_opt = run->add_option("--seed", a->req.seed, "seed of the random operands")->capture_default_str();
  a->zeros_opt = run->add_option("--zeros", a->req.zero_fraction, "share of zero weights and activations, 0..1")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  a->operands_opt = run->add_option("--operands", a->operands,
                  "operand class: " + join(operand_class_names(), "|") +
                      " (uniform: [-1, 1] and the narrow integer draws; wide: every finite value incl. subnormals "
                      "and -0; specials: wide plus +-Inf and NaN; saturate: sums past the accumulator's range; "
                      "see docs/configuration.md)")
      ->capture_default_str();
  run->add_option("--ifmap", a->ifmap,
                  "input activations from a NumPy .npy file, [N][C][H][W] (NCHW): N, C, H, W of the layer; rounded once to "
                  "the configured arithmetic (see docs/tensors.md)");
  run->add_option("--weights", a->weights,
                  "weights from a .npy file, [K][C][ky][kx]: K and the kernel of the layer (--layer then gives stride, "
                  "dilation and padding, e.g. s=2,p=1)");
  run->add_option("--bias", a->bias, "bias per output channel from a .npy file, [K]: added on the host in float32");
  run->add_option("--ofmap", a->ofmap, "write the output (incl. bias) to this .npy file, [N][K][Ho][Wo]");
  run->add_flag("--backward", a->backward,
                "with --op: the pooling's backward pass (col2im): the output is the input gradient dx [N][C][H][W] "
                "from the output gradient dy (--grad, or seeded with --seed + 1) and, for max pooling, the forward "
                "input's argmax (--ifmap, or seeded). On the chip models: average pooling, and max pooling without "
                "dilation, on an FP16 configuration (docs/microarchitecture.md section 16)");
  run->add_option("--grad", a->grad,
                  "with --backward: the output gradient dy from a .npy file, [N][C][Ho][Wo]; rounded once to the "
                  "configured arithmetic");
  a->ofmap_dtype_opt = run->add_option("--ofmap-dtype", a->ofmap_dtype, "element type of --ofmap: float16|float32|float64|int32")
                           ->capture_default_str();
  run->add_option("--expect", a->expect,
                  "check the output (incl. bias) against this reference .npy within the FP16 accumulation bound; "
                  "outside it exits 1 like a failed --check");
  run->add_option("--report", a->report, "write a JSON report to this file");
  run->add_flag("--check", a->check, "exit non-zero when a check fails");
  run->add_option("--trace", a->req.trace_path, "write a VCD waveform of the top-level signals (sc)");
  run->add_option("--dram-seed", a->req.dram_seed,
                  "randomize DRAM latency and back-pressure with this seed (0: the configuration's fixed timing)");
  run->add_option("--order", a->req.order,
                  "loop order of the layer compiler: output_stationary or spill (with --tiling heuristic)");
  run->add_option("--tiling", a->req.tiling,
                  "search (the tiling and loop-order search flycol net uses, candidates timed by the analytic model) "
                  "or heuristic (the compiler's fixed plan; needed by --order)")
      ->check(CLI::IsMember({analytic::tiling_name(analytic::Tiling::search),
                             analytic::tiling_name(analytic::Tiling::heuristic)}))
      ->capture_default_str();
  run->add_flag("--structural", a->req.structural,
                "with --model sc: run the structural top (the block SystemC modules wired by signals, as the RTL top "
                "wires the RTL) beside the fast model; cycles, outputs and statistics must be equal");
  run->add_option("--rtl-blocks", a->req.rtl_blocks,
                  "with --model sc: blocks whose Verilated RTL replaces their SystemC module in the structural top "
                  "(implies --structural): a comma list of " + join(rtl_block_names(), ", ") + ", or all");
  run->add_flag("--power", a->req.power,
                "with --model rtl or both: dynamic power proxy per block from the RTL's toggles and the synthesized "
                "capacitance (synthesizes the configuration once, then cached; see docs/synth.md)");
  return {run, [a] { return run_layer_command(*a); }};
}

}  // namespace flycol::cli
