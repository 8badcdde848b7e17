// The host operators (sim/graph/host_ops.h) against independent references: small cases computed
// by hand here, and ONNX's own node conformance data (model.onnx and its .pb inputs and expected
// outputs, read with the ONNX protobuf directly, not through flycol's importer).
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "sim/graph/host_ops.h"
#include "tests/common/test_util.h"
#include "tests/graph/onnx_cases.h"

using namespace flycol;
using namespace flycol::graph;

namespace {

F32 t(Shape shape, std::vector<float> v) {
  F32 f;
  f.shape = std::move(shape);
  f.v = std::move(v);
  return f;
}

Node node(const std::string& op, std::map<std::string, std::vector<double>> attrs = {},
          std::map<std::string, std::string> strs = {}) {
  Node n;
  n.name = "n_" + op;
  n.op = op;
  n.outputs = {"y"};
  n.attrs = std::move(attrs);
  n.str_attrs = std::move(strs);
  return n;
}

F32 run1(const Node& n, std::vector<F32> in, std::int64_t opset = 13) { return run_host_node(n, in, opset).at(0); }

void same(const F32& got, const F32& want) {
  CHECK(got.shape == want.shape);
  REQUIRE(got.v.size() == want.v.size());
  for (std::size_t i = 0; i < got.v.size(); ++i) {
    INFO("index " << i);
    CHECK(got.v[i] == Approx(want.v[i]).epsilon(1e-6).margin(1e-7));
  }
}

}  // namespace

TEST_CASE("host elementwise ops: Relu, LeakyRelu (default alpha 0.01), Clip", "[unit]") {
  same(run1(node("Relu"), {t({4}, {-2, -0.0f, 0.5f, 3})}), t({4}, {0, 0, 0.5f, 3}));
  same(run1(node("LeakyRelu"), {t({3}, {-2, 1, -100})}), t({3}, {-0.02f, 1, -1}));
  same(run1(node("LeakyRelu", {{"alpha", {0.5}}}), {t({2}, {-2, 4})}), t({2}, {-1, 4}));
  same(run1(node("Clip", {{"min", {-1}}, {"max", {2}}}), {t({4}, {-5, -1, 1.5f, 7})}), t({4}, {-1, -1, 1.5f, 2}));
  same(run1(node("Clip", {{"max", {0}}}), {t({2}, {-5, 7})}), t({2}, {-5, 0}));  // min absent: no lower bound
  // Opset-11 form: min/max as (constant) inputs.
  same(run1(node("Clip"), {t({2}, {-5, 7}), t({}, {-3}), t({}, {3})}), t({2}, {-3, 3}));
  same(run1(node("Identity"), {t({2}, {1, 2})}), t({2}, {1, 2}));
  const std::vector<F32> d = run_host_node(
      [] { Node n = node("Dropout"); n.outputs = {"y", "mask"}; return n; }(), {t({2}, {3, 4})}, 13);
  REQUIRE(d.size() == 2);
  same(d[0], t({2}, {3, 4}));
  same(d[1], t({2}, {1, 1}));
}

TEST_CASE("host Add and Mul broadcast multidirectionally", "[unit]") {
  // [2,3] + [3]
  same(run1(node("Add"), {t({2, 3}, {1, 2, 3, 4, 5, 6}), t({3}, {10, 20, 30})}),
       t({2, 3}, {11, 22, 33, 14, 25, 36}));
  // [2,1,3] * [4,1] -> [2,4,3]: out[a][b][c] = x[a][0][c] * y[b][0]
  const F32 x = t({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  const F32 y = t({4, 1}, {1, 10, 100, -1});
  const F32 r = run1(node("Mul"), {x, y});
  REQUIRE(r.shape == Shape{2, 4, 3});
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 3; ++c) CHECK(r.v[std::size_t((a * 4 + b) * 3 + c)] == x.v[std::size_t(a * 3 + c)] * y.v[std::size_t(b)]);
  // A scalar.
  same(run1(node("Add"), {t({}, {1}), t({2}, {1, 2})}), t({2}, {2, 3}));
  const InputError e = test::input_error_of([&] { run1(node("Add"), {t({2, 3}, std::vector<float>(6)), t({2}, {1, 2})}); });
  CHECK_THAT(e.what(), Catch::Contains("n_Add") && Catch::Contains("broadcast"));
}

TEST_CASE("host Concat (negative axis), Flatten and Reshape (0 and -1)", "[unit]") {
  same(run1(node("Concat", {{"axis", {-1}}}), {t({2, 1}, {1, 2}), t({2, 2}, {3, 4, 5, 6})}),
       t({2, 3}, {1, 3, 4, 2, 5, 6}));
  same(run1(node("Concat", {{"axis", {0}}}), {t({1, 2}, {1, 2}), t({1, 2}, {3, 4})}), t({2, 2}, {1, 2, 3, 4}));
  std::vector<float> v24(24);
  for (int i = 0; i < 24; ++i) v24[std::size_t(i)] = float(i);
  CHECK(run1(node("Flatten", {{"axis", {2}}}), {t({2, 3, 4}, v24)}).shape == Shape{6, 4});
  CHECK(run1(node("Flatten", {{"axis", {-1}}}), {t({2, 3, 4}, v24)}).shape == Shape{6, 4});
  CHECK(run1(node("Flatten", {{"axis", {0}}}), {t({2, 3, 4}, v24)}).shape == Shape{1, 24});
  CHECK(run1(node("Flatten"), {t({2, 3, 4}, v24)}).shape == Shape{2, 12});
  const F32 r = run1(node("Reshape", {{"shape", {0, -1}}}), {t({2, 3, 4}, v24)});
  CHECK(r.shape == Shape{2, 12});
  CHECK(r.v == v24);
  CHECK(run1(node("Reshape", {{"shape", {4, 0, -1}}}), {t({2, 3, 4}, v24)}).shape == Shape{4, 3, 2});
  CHECK_THAT(test::input_error_of([&] { run1(node("Reshape", {{"shape", {5, -1}}}), {t({2, 3, 4}, v24)}); }).what(),
             Catch::Contains("cannot reshape"));
}

TEST_CASE("host MaxPool and AveragePool: pads, strides, dilations, ceil_mode, count_include_pad", "[unit]") {
  // 1x1x4x4 of 0..15.
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[std::size_t(i)] = float(i);
  const F32 x = t({1, 1, 4, 4}, v);
  same(run1(node("MaxPool", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}), {x}), t({1, 1, 2, 2}, {5, 7, 13, 15}));
  same(run1(node("AveragePool", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}), {x}),
       t({1, 1, 2, 2}, {2.5f, 4.5f, 10.5f, 12.5f}));
  // 3x3 s1 p1: corner (0,0) sees {0,1,4,5}: mean 2.5 without the pads, 10/9 with them.
  const F32 a0 = run1(node("AveragePool", {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}), {x});
  REQUIRE(a0.shape == Shape{1, 1, 4, 4});
  CHECK(a0.v[0] == Approx(2.5));
  CHECK(a0.v[5] == Approx((0 + 1 + 2 + 4 + 5 + 6 + 8 + 9 + 10) / 9.0));
  const F32 a1 = run1(node("AveragePool", {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}, {"count_include_pad", {1}}}), {x});
  CHECK(a1.v[0] == Approx(10.0 / 9.0));
  // Max with negative values and padding: pads never win.
  const F32 neg = t({1, 1, 2, 2}, {-4, -3, -2, -1});
  same(run1(node("MaxPool", {{"kernel_shape", {2, 2}}, {"pads", {1, 1, 0, 0}}}), {neg}), t({1, 1, 2, 2}, {-4, -3, -2, -1}));
  // Dilation 2, kernel 2: window (0,0) reads 0, 2, 8, 10.
  same(run1(node("MaxPool", {{"kernel_shape", {2, 2}}, {"dilations", {2, 2}}}), {x}), t({1, 1, 2, 2}, {10, 11, 14, 15}));
  // ceil_mode on 5x5, k2 s2: 3x3 outputs, the last window holds one column/row.
  std::vector<float> v25(25);
  for (int i = 0; i < 25; ++i) v25[std::size_t(i)] = float(i);
  const F32 c = run1(node("MaxPool", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"ceil_mode", {1}}}), {t({1, 1, 5, 5}, v25)});
  same(c, t({1, 1, 3, 3}, {6, 8, 9, 16, 18, 19, 21, 23, 24}));
  const F32 fl = run1(node("MaxPool", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}), {t({1, 1, 5, 5}, v25)});
  CHECK(fl.shape == Shape{1, 1, 2, 2});
  // ceil_mode average with count_include_pad: the part past the input (no declared padding) is
  // not counted: the last column window {4, 9} averages to 6.5.
  const F32 ca = run1(node("AveragePool", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"ceil_mode", {1}},
                                           {"count_include_pad", {1}}}),
                      {t({1, 1, 5, 5}, v25)});
  CHECK(ca.v[2] == Approx((4 + 9) / 2.0));
  same(run1(node("GlobalAveragePool"), {t({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40})}), t({1, 2, 1, 1}, {2.5f, 25}));
  CHECK_THAT(test::input_error_of([&] { run1(node("MaxPool", {{"kernel_shape", {2}}}), {t({1, 1, 4}, {1, 2, 3, 4})}); }).what(),
             Catch::Contains("n_MaxPool") && Catch::Contains("2-D"));
}

TEST_CASE("host Softmax: opset < 13 flattens at axis, opset 13 normalizes one axis", "[unit]") {
  const F32 x = t({1, 2, 2}, {0, 1, 2, 3});
  // Opset 13, axis 1: pairs (0,2) and (1,3) each normalized.
  const double e2 = std::exp(2.0);
  const F32 r13 = run1(node("Softmax", {{"axis", {1}}}), {x}, 13);
  same(r13, t({1, 2, 2}, {float(1 / (1 + e2)), float(1 / (1 + e2)), float(e2 / (1 + e2)), float(e2 / (1 + e2))}));
  // Opset 11, axis 1: all four values in one row.
  const double s = 1 + std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  const F32 r11 = run1(node("Softmax", {{"axis", {1}}}), {x}, 11);
  same(r11, t({1, 2, 2}, {float(1 / s), float(std::exp(1.0) / s), float(std::exp(2.0) / s), float(std::exp(3.0) / s)}));
  // Large inputs do not overflow (the maximum is subtracted first).
  const F32 big = run1(node("Softmax"), {t({2}, {10000, 10000})}, 13);
  same(big, t({2}, {0.5f, 0.5f}));
}

TEST_CASE("host Resize: nearest and linear, coordinate modes; Upsample", "[unit]") {
  const F32 x = t({1, 1, 2, 2}, {1, 2, 3, 4});
  // Nearest x2 (half_pixel, round_prefer_floor): each value repeated 2x2.
  same(run1(node("Resize", {{"scales", {1, 1, 2, 2}}}, {{"mode", "nearest"}}), {x}, 13),
       t({1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  same(run1(node("Upsample", {{"scales", {1, 1, 2, 2}}}, {{"mode", "nearest"}}), {x}, 9),
       t({1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // Linear x2, half_pixel, one row [1, 2] -> source coordinates -0.25, 0.25, 0.75, 1.25 clamped:
  // 1, 1.25, 1.75, 2.
  same(run1(node("Resize", {{"scales", {1, 1, 1, 2}}}, {{"mode", "linear"}}), {t({1, 1, 1, 2}, {1, 2})}, 13),
       t({1, 1, 1, 4}, {1, 1.25f, 1.75f, 2}));
  // align_corners to 3: 1, 1.5, 2.
  same(run1(node("Resize", {{"sizes", {1, 1, 1, 3}}}, {{"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}}),
            {t({1, 1, 1, 2}, {1, 2})}, 13),
       t({1, 1, 1, 3}, {1, 1.5f, 2}));
  // asymmetric linear x2: 0, 0.5, 1, 1.5 -> 1, 1.5, 2, 2.
  same(run1(node("Resize", {{"scales", {1, 1, 1, 2}}}, {{"mode", "linear"}, {"coordinate_transformation_mode", "asymmetric"}}),
            {t({1, 1, 1, 2}, {1, 2})}, 13),
       t({1, 1, 1, 4}, {1, 1.5f, 2, 2}));
  CHECK_THAT(test::input_error_of([&] { run1(node("Resize", {{"scales", {1, 1, 2, 2}}}, {{"mode", "cubic"}}), {x}, 13); }).what(),
             Catch::Contains("n_Resize") && Catch::Contains("cubic"));
}

TEST_CASE("host BatchNormalization (unfolded, inference) and unsupported operators", "[unit]") {
  // y = scale (x - mean) / sqrt(var + eps) + B per channel.
  const F32 x = t({1, 2, 1, 2}, {1, 2, 3, 4});
  const F32 r = run1(node("BatchNormalization", {{"epsilon", {0}}}),
                     {x, t({2}, {2, 1}), t({2}, {0, 10}), t({2}, {1, 3}), t({2}, {4, 1})});
  same(r, t({1, 2, 1, 2}, {0, 1, 10, 11}));
  const InputError e = test::input_error_of([&] { run1(node("LRN"), {x}); });
  CHECK_THAT(e.what(), Catch::Contains("n_LRN") && Catch::Contains("LRN") && Catch::Contains("supported"));
}

// ---------------------------------------------------------------------------------------------
// ONNX's node conformance cases: the model's one node with its attributes, run on the .pb inputs,
// against the .pb expected output.

namespace {

using test::kNodeData;
using test::tolerance_ulps;

F32 from_proto(const onnx::TensorProto& p) {
  F32 f;
  for (auto d : p.dims()) f.shape.push_back(d);
  const std::int64_t n = f.elems();
  f.v.resize(std::size_t(n));
  const std::string& raw = p.raw_data();
  switch (p.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (!raw.empty()) std::memcpy(f.v.data(), raw.data(), std::size_t(n) * 4);
      else for (std::int64_t i = 0; i < n; ++i) f.v[std::size_t(i)] = p.float_data(int(i));
      break;
    case onnx::TensorProto::INT64:
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t v;
        if (!raw.empty()) std::memcpy(&v, raw.data() + i * 8, 8);
        else v = p.int64_data(int(i));
        f.v[std::size_t(i)] = float(v);
      }
      break;
    default:
      throw std::runtime_error(fmt::format("tensor type {} not handled by the test", p.data_type()));
  }
  return f;
}

template <class M>
M read_proto(const std::string& path) {
  M m;
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  REQUIRE(m.ParseFromIstream(&in));
  return m;
}

struct CaseResult {
  bool ran = false;
  std::string why;
};

CaseResult run_case(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(kNodeData) / name;
  if (!std::filesystem::exists(dir / "model.onnx")) return {false, "not in this libonnx-testdata"};
  const auto model = read_proto<onnx::ModelProto>((dir / "model.onnx").string());
  std::int64_t opset = 0;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  const auto& g = model.graph();
  if (g.node_size() != 1) return {false, fmt::format("{} nodes, not one", g.node_size())};
  const auto& pn = g.node(0);
  Node n;
  n.name = name;
  n.op = pn.op_type();
  for (const auto& o : pn.output()) n.outputs.push_back(o);
  for (const auto& a : pn.attribute()) {
    switch (a.type()) {
      case onnx::AttributeProto::INT: n.attrs[a.name()] = {double(a.i())}; break;
      case onnx::AttributeProto::FLOAT: n.attrs[a.name()] = {double(a.f())}; break;
      case onnx::AttributeProto::INTS: for (auto v : a.ints()) n.attrs[a.name()].push_back(double(v)); break;
      case onnx::AttributeProto::FLOATS: for (auto v : a.floats()) n.attrs[a.name()].push_back(double(v)); break;
      case onnx::AttributeProto::STRING: n.str_attrs[a.name()] = a.s(); break;
      default: return {false, "attribute type not handled"};
    }
  }
  // Graph inputs in order, from input_<i>.pb.
  std::map<std::string, F32> vals;
  for (int i = 0; i < g.input_size(); ++i)
    vals[g.input(i).name()] = from_proto(read_proto<onnx::TensorProto>((dir / fmt::format("test_data_set_0/input_{}.pb", i)).string()));
  for (const auto& init : g.initializer()) vals[init.name()] = from_proto(init);
  std::vector<F32> in;
  for (const auto& name_in : pn.input()) {
    if (name_in.empty()) {
      F32 a;
      a.absent = true;
      in.push_back(a);
    } else {
      in.push_back(vals.at(name_in));
    }
  }
  // auto_pad resolved to explicit pads, as the importer does (SAME_*: output ceil(in / stride),
  // the odd padding at the end for SAME_UPPER, at the start for SAME_LOWER).
  auto ap = n.str_attrs.find("auto_pad");
  if (ap != n.str_attrs.end()) {
    const std::string mode = ap->second;
    n.str_attrs.erase(ap);
    if (mode == "VALID") {
      n.attrs["pads"] = {0, 0, 0, 0};
    } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      const auto& k = n.attrs.at("kernel_shape");
      const std::vector<double> s = n.attrs.count("strides") ? n.attrs["strides"] : std::vector<double>{1, 1};
      std::vector<double> pads(4);
      for (std::size_t i = 0; i < 2; ++i) {
        const double inl = double(in[0].shape[2 + i]);
        const double out = std::ceil(inl / s[i]);
        const double total = std::max(0.0, (out - 1) * s[i] + k[i] - inl);
        const double small = std::floor(total / 2), big = total - small;
        pads[i] = mode == "SAME_UPPER" ? small : big;
        pads[i + 2] = mode == "SAME_UPPER" ? big : small;
      }
      n.attrs["pads"] = pads;
    }
  }
  const std::vector<F32> got = run_host_node(n, in, opset);
  const F32 want = from_proto(read_proto<onnx::TensorProto>((dir / "test_data_set_0/output_0.pb").string()));
  INFO(name << " (" << n.op << ", opset " << opset << ")");
  REQUIRE(!got.empty());
  CHECK(got[0].shape == want.shape);
  REQUIRE(got[0].v.size() == want.v.size());
  double mx = 0;
  for (float v : want.v) mx = std::max(mx, double(std::fabs(v)));
  const double ulp = mx > 0 ? std::ldexp(1.0, std::ilogb(mx) - 23) : 0;
  const auto mode_it = n.str_attrs.find("mode");
  const double tol = tolerance_ulps(n.op, mode_it == n.str_attrs.end() ? "" : mode_it->second) * ulp;
  double worst = 0;
  std::size_t worst_at = 0;
  for (std::size_t i = 0; i < want.v.size(); ++i) {
    const double d = std::fabs(double(got[0].v[i]) - double(want.v[i]));
    if (!(d <= worst)) {
      worst = d;
      worst_at = i;
    }
  }
  if (want.v.empty()) return {true, ""};  // an empty tensor (Reshape with allowzero): the shape is the check
  INFO("largest difference " << worst << " at " << worst_at << " (got " << got[0].v[worst_at] << ", want "
                             << want.v[worst_at] << "), tolerance " << tol);
  CHECK(worst <= tol);
  return {true, ""};
}

}  // namespace

TEST_CASE("host ops match ONNX's node conformance data", "[unit]") {
  const std::vector<std::string>& cases = test::onnx_host_op_cases();
  int ran = 0;
  std::vector<std::string> skipped;
  for (const std::string& c : cases) {
    const CaseResult r = run_case(c);
    if (r.ran)
      ++ran;
    else
      skipped.push_back(c + ": " + r.why);
  }
  for (const std::string& s : skipped) WARN("skipped " << s);
  fmt::print("ONNX node conformance cases run on the host ops: {} of {}\n", ran, cases.size());
  // The Debian package ships them all; a test that silently ran nothing would prove nothing.
  CHECK(ran >= int(cases.size()) - 5);
}
