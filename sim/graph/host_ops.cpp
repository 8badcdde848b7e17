// Host operators in float32 with ONNX semantics (sim/graph/host_ops.h). Sums that ONNX leaves to
// the implementation (averages, Softmax's denominator, BatchNormalization) are taken in double and
// rounded once to float32, so they are within an ulp or two of any float32 implementation.
#include "sim/graph/host_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/common/input_error.h"

namespace flycol::graph {

std::int64_t F32::elems() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string shape_text(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

F32 to_f32(const Tensor& t) {
  F32 f;
  f.shape = t.shape;
  f.v.reserve(t.values.size());
  for (double x : t.values) f.v.push_back(float(x));
  return f;
}

Tensor to_tensor(const F32& t) {
  Tensor r;
  r.dtype = DType::float32;
  r.shape = t.shape;
  r.values.assign(t.v.begin(), t.v.end());
  return r;
}

const std::vector<std::string>& host_op_names() {
  static const std::vector<std::string> names = {
      "Add",      "AveragePool", "BatchNormalization", "Clip",    "Concat",  "Dropout", "Flatten",
      "GlobalAveragePool", "Identity", "LeakyRelu", "MaxPool", "Mul", "Relu", "Reshape", "Resize",
      "Softmax",  "Upsample"};
  return names;
}

bool is_host_op(const std::string& op) {
  const auto& n = host_op_names();
  return std::find(n.begin(), n.end(), op) != n.end();
}

namespace {

// Errors name the node and its operator, as every message about a model does.
[[noreturn]] void fail(const Node& n, const std::string& problem) {
  throw InputError(fmt::format("node '{}' ({})", n.name, n.op), "", problem);
}

const std::vector<double>* attr(const Node& n, const std::string& key) {
  auto it = n.attrs.find(key);
  return it == n.attrs.end() ? nullptr : &it->second;
}
double attr_num(const Node& n, const std::string& key, double def) {
  const std::vector<double>* a = attr(n, key);
  if (!a) return def;
  if (a->size() != 1) fail(n, fmt::format("attribute '{}' has {} values, expected one", key, a->size()));
  return (*a)[0];
}
std::vector<double> attr_list(const Node& n, const std::string& key, std::vector<double> def) {
  const std::vector<double>* a = attr(n, key);
  return a ? *a : def;
}
std::string attr_str(const Node& n, const std::string& key, const std::string& def) {
  auto it = n.str_attrs.find(key);
  return it == n.str_attrs.end() ? def : it->second;
}

// A number given as an attribute (opsets that had it so, or moved there by the importer) or as a
// constant input at position `index` (when the importer kept the input).
const std::vector<double>* attr_or_input(const Node& n, const std::vector<F32>& in, std::size_t index,
                                         const std::string& key, std::vector<double>& storage) {
  if (const std::vector<double>* a = attr(n, key)) return a;
  if (index < in.size() && !in[index].absent && !in[index].v.empty()) {
    storage.assign(in[index].v.begin(), in[index].v.end());
    return &storage;
  }
  return nullptr;
}

const F32& input(const Node& n, const std::vector<F32>& in, std::size_t i) {
  if (i >= in.size() || in[i].absent) fail(n, fmt::format("needs input {} (it has {})", i, in.size()));
  return in[i];
}

std::int64_t norm_axis(const Node& n, double axis, std::size_t rank, const char* what = "axis") {
  const std::int64_t a = std::int64_t(axis);
  const std::int64_t r = std::int64_t(rank);
  if (a < -r || a >= r) fail(n, fmt::format("{} = {} is out of range for rank {}: must be in [{}, {}]", what, a, r, -r, r - 1));
  return a < 0 ? a + r : a;
}

std::int64_t product(const Shape& s, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

template <class F>
F32 unary(const F32& x, F f) {
  F32 r;
  r.shape = x.shape;
  r.v.resize(x.v.size());
  for (std::size_t i = 0; i < x.v.size(); ++i) r.v[i] = f(x.v[i]);
  return r;
}

// NumPy's multidirectional broadcasting: shapes aligned at the right, a dimension of 1 stretches.
template <class F>
F32 broadcast(const Node& n, const F32& a, const F32& b, F f) {
  const std::size_t rank = std::max(a.shape.size(), b.shape.size());
  Shape sa(rank, 1), sb(rank, 1), so(rank, 1);
  std::copy(a.shape.begin(), a.shape.end(), sa.begin() + std::ptrdiff_t(rank - a.shape.size()));
  std::copy(b.shape.begin(), b.shape.end(), sb.begin() + std::ptrdiff_t(rank - b.shape.size()));
  for (std::size_t i = 0; i < rank; ++i) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      fail(n, fmt::format("inputs {} and {} do not broadcast (dimension {})", shape_text(a.shape), shape_text(b.shape), i));
    so[i] = sa[i] == 1 ? sb[i] : sa[i];
  }
  F32 r;
  r.shape = so;
  const std::int64_t total = product(so, 0, rank);
  r.v.resize(std::size_t(total));
  // Strides of a and b in the output's index space (0 where they broadcast).
  std::vector<std::int64_t> st_a(rank, 0), st_b(rank, 0);
  std::int64_t ka = 1, kb = 1;
  for (std::size_t i = rank; i-- > 0;) {
    st_a[i] = sa[i] == 1 ? 0 : ka;
    st_b[i] = sb[i] == 1 ? 0 : kb;
    ka *= sa[i];
    kb *= sb[i];
  }
  std::vector<std::int64_t> idx(rank, 0);
  std::int64_t ia = 0, ib = 0;
  for (std::int64_t o = 0; o < total; ++o) {
    r.v[std::size_t(o)] = f(a.v[std::size_t(ia)], b.v[std::size_t(ib)]);
    for (std::size_t d = rank; d-- > 0;) {  // odometer step
      if (++idx[d] < so[d]) {
        ia += st_a[d];
        ib += st_b[d];
        break;
      }
      ia -= st_a[d] * (so[d] - 1);
      ib -= st_b[d] * (so[d] - 1);
      idx[d] = 0;
    }
  }
  return r;
}

F32 concat(const Node& n, const std::vector<F32>& in) {
  std::vector<const F32*> xs;
  for (const F32& x : in)
    if (!x.absent) xs.push_back(&x);
  if (xs.empty()) fail(n, "needs at least one input");
  const std::size_t rank = xs[0]->shape.size();
  const std::int64_t axis = norm_axis(n, attr_num(n, "axis", 1), rank);  // required since opset 4; 1 before
  Shape out = xs[0]->shape;
  out[std::size_t(axis)] = 0;
  for (const F32* x : xs) {
    bool ok = x->shape.size() == rank;
    for (std::size_t d = 0; ok && d < rank; ++d) ok = d == std::size_t(axis) || x->shape[d] == out[d];
    if (!ok) fail(n, fmt::format("input {} does not match {} outside axis {}", shape_text(x->shape), shape_text(xs[0]->shape), axis));
    out[std::size_t(axis)] += x->shape[std::size_t(axis)];
  }
  const std::int64_t outer = product(out, 0, std::size_t(axis));
  const std::int64_t inner = product(out, std::size_t(axis) + 1, rank);
  F32 r;
  r.shape = out;
  r.v.reserve(std::size_t(r.elems()));
  for (std::int64_t o = 0; o < outer; ++o)
    for (const F32* x : xs) {
      const std::int64_t block = x->shape[std::size_t(axis)] * inner;
      r.v.insert(r.v.end(), x->v.begin() + o * block, x->v.begin() + (o + 1) * block);
    }
  return r;
}

// MaxPool and AveragePool over the last two dimensions of an [N][C][H][W] input.
F32 pool(const Node& n, const F32& x, bool is_max) {
  if (x.shape.size() != 4) fail(n, fmt::format("input {}: only 2-D pooling ([N][C][H][W]) is supported", shape_text(x.shape)));
  if (attr_str(n, "auto_pad", "NOTSET") != "NOTSET")
    fail(n, "auto_pad must be resolved to pads at import");
  const std::vector<double> k = attr_list(n, "kernel_shape", {});
  if (k.size() != 2) fail(n, "kernel_shape must have 2 values (2-D pooling)");
  const std::vector<double> s = attr_list(n, "strides", {1, 1});
  const std::vector<double> d = attr_list(n, "dilations", {1, 1});
  const std::vector<double> p = attr_list(n, "pads", {0, 0, 0, 0});
  if (s.size() != 2 || d.size() != 2 || p.size() != 4) fail(n, "strides and dilations need 2 values, pads 4");
  if (attr_num(n, "storage_order", 0) != 0) fail(n, "storage_order 1 (column major) is not supported");
  const bool ceil_mode = attr_num(n, "ceil_mode", 0) != 0;
  const bool include_pad = attr_num(n, "count_include_pad", 0) != 0;
  const std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const std::int64_t in[2] = {H, W};
  std::int64_t out[2], ks[2], st[2], dl[2], pb[2], pe[2];
  for (int i = 0; i < 2; ++i) {
    ks[i] = std::int64_t(k[std::size_t(i)]);
    st[i] = std::int64_t(s[std::size_t(i)]);
    dl[i] = std::int64_t(d[std::size_t(i)]);
    pb[i] = std::int64_t(p[std::size_t(i)]);
    pe[i] = std::int64_t(p[std::size_t(i) + 2]);
    if (ks[i] < 1 || st[i] < 1 || dl[i] < 1 || pb[i] < 0 || pe[i] < 0)
      fail(n, "kernel_shape, strides and dilations must be >= 1, pads >= 0");
    const std::int64_t span = in[i] + pb[i] + pe[i] - ((ks[i] - 1) * dl[i] + 1);
    if (span < 0) fail(n, fmt::format("the window is larger than the padded input {}", shape_text(x.shape)));
    out[i] = (ceil_mode ? (span + st[i] - 1) / st[i] : span / st[i]) + 1;
    // ceil_mode: a last window that would start in the end padding is dropped (ONNX's reference
    // and PyTorch agree on this).
    if (ceil_mode && (out[i] - 1) * st[i] >= in[i] + pb[i]) --out[i];
  }
  F32 r;
  r.shape = {N, C, out[0], out[1]};
  r.v.resize(std::size_t(r.elems()));
  std::size_t o = 0;
  for (std::int64_t nc = 0; nc < N * C; ++nc) {
    const float* plane = x.v.data() + nc * H * W;
    for (std::int64_t oy = 0; oy < out[0]; ++oy)
      for (std::int64_t ox = 0; ox < out[1]; ++ox) {
        double sum = 0;
        float mx = -std::numeric_limits<float>::infinity();
        std::int64_t count = 0, padded_count = 0;
        for (std::int64_t a = 0; a < ks[0]; ++a) {
          const std::int64_t y = oy * st[0] - pb[0] + a * dl[0];
          for (std::int64_t b = 0; b < ks[1]; ++b) {
            const std::int64_t xx = ox * st[1] - pb[1] + b * dl[1];
            // count_include_pad counts the declared padding, never the part of a ceil_mode
            // window past it.
            if (y < in[0] + pe[0] && xx < in[1] + pe[1]) ++padded_count;
            if (y < 0 || y >= H || xx < 0 || xx >= W) continue;
            const float v = plane[y * W + xx];
            if (is_max) {
              if (v > mx || std::isnan(v)) mx = std::isnan(mx) ? mx : v;
            } else {
              sum += double(v);
            }
            ++count;
          }
        }
        if (is_max)
          r.v[o++] = mx;
        else
          r.v[o++] = float(sum / double(include_pad ? padded_count : std::max<std::int64_t>(count, 1)));
      }
  }
  return r;
}

F32 global_average_pool(const Node& n, const F32& x) {
  if (x.shape.size() < 3) fail(n, fmt::format("input {}: needs [N][C][spatial...]", shape_text(x.shape)));
  const std::int64_t nc = x.shape[0] * x.shape[1];
  const std::int64_t sp = product(x.shape, 2, x.shape.size());
  F32 r;
  r.shape = x.shape;
  for (std::size_t i = 2; i < r.shape.size(); ++i) r.shape[i] = 1;
  r.v.resize(std::size_t(nc));
  for (std::int64_t i = 0; i < nc; ++i) {
    double sum = 0;
    for (std::int64_t j = 0; j < sp; ++j) sum += double(x.v[std::size_t(i * sp + j)]);
    r.v[std::size_t(i)] = float(sum / double(sp));
  }
  return r;
}

F32 flatten(const Node& n, const F32& x) {
  const std::int64_t rank = std::int64_t(x.shape.size());
  std::int64_t axis = std::int64_t(attr_num(n, "axis", 1));
  if (axis < -rank || axis > rank) fail(n, fmt::format("axis = {} is out of range for rank {}: must be in [{}, {}]", axis, rank, -rank, rank));
  if (axis < 0) axis += rank;
  F32 r = x;
  r.shape = {product(x.shape, 0, std::size_t(axis)), product(x.shape, std::size_t(axis), x.shape.size())};
  return r;
}

F32 reshape(const Node& n, const std::vector<F32>& in) {
  const F32& x = input(n, in, 0);
  std::vector<double> storage;
  const std::vector<double>* shape = attr_or_input(n, in, 1, "shape", storage);
  if (!shape) fail(n, "has no target shape (attribute or constant input 'shape')");
  const bool allowzero = attr_num(n, "allowzero", 0) != 0;
  Shape out;
  int minus_one = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < shape->size(); ++i) {
    std::int64_t d = std::int64_t((*shape)[i]);
    if (d == 0 && !allowzero) {
      if (i >= x.shape.size()) fail(n, fmt::format("shape[{}] = 0 copies a dimension the input {} does not have", i, shape_text(x.shape)));
      d = x.shape[i];
    }
    if (d == -1) {
      if (minus_one >= 0) fail(n, "shape has more than one -1");
      minus_one = int(i);
    } else if (d < 0) {
      fail(n, fmt::format("shape[{}] = {}: dimensions must be >= -1", i, d));
    } else {
      known *= d;
    }
    out.push_back(d);
  }
  if (minus_one >= 0) {
    if (known == 0 || x.elems() % known != 0)
      fail(n, fmt::format("cannot reshape {} to {}", shape_text(x.shape), shape_text(out)));
    out[std::size_t(minus_one)] = x.elems() / known;
  }
  if (product(out, 0, out.size()) != x.elems())
    fail(n, fmt::format("cannot reshape {} ({} values) to {}", shape_text(x.shape), x.elems(), shape_text(out)));
  F32 r = x;
  r.shape = out;
  return r;
}

F32 softmax(const Node& n, const F32& x, std::int64_t opset) {
  const std::size_t rank = x.shape.size();
  if (rank == 0) fail(n, "needs an input of rank >= 1");
  std::int64_t outer, len, inner;
  if (opset < 13) {
    // Opsets 1-12: the input is coerced to 2-D at `axis` (default 1) and each row normalized.
    const std::int64_t rk = std::int64_t(rank);
    std::int64_t axis = std::int64_t(attr_num(n, "axis", 1));
    if (axis < -rk || axis > rk) fail(n, fmt::format("axis = {} is out of range for rank {}", axis, rk));
    if (axis < 0) axis += rk;
    outer = product(x.shape, 0, std::size_t(axis));
    len = product(x.shape, std::size_t(axis), rank);
    inner = 1;
  } else {
    const std::int64_t axis = norm_axis(n, attr_num(n, "axis", -1), rank);
    outer = product(x.shape, 0, std::size_t(axis));
    len = x.shape[std::size_t(axis)];
    inner = product(x.shape, std::size_t(axis) + 1, rank);
  }
  F32 r;
  r.shape = x.shape;
  r.v.resize(x.v.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t base = o * len * inner + i;
      float mx = -std::numeric_limits<float>::infinity();
      for (std::int64_t j = 0; j < len; ++j) mx = std::max(mx, x.v[std::size_t(base + j * inner)]);
      double sum = 0;
      for (std::int64_t j = 0; j < len; ++j) sum += std::exp(double(x.v[std::size_t(base + j * inner)]) - double(mx));
      for (std::int64_t j = 0; j < len; ++j)
        r.v[std::size_t(base + j * inner)] = float(std::exp(double(x.v[std::size_t(base + j * inner)]) - double(mx)) / sum);
    }
  return r;
}

F32 batch_norm(const Node& n, const std::vector<F32>& in) {
  const F32& x = input(n, in, 0);
  if (attr_num(n, "training_mode", 0) != 0) fail(n, "training_mode = 1 is not supported (inference only)");
  if (x.shape.size() < 2) fail(n, fmt::format("input {}: needs [N][C]...", shape_text(x.shape)));
  const std::int64_t C = x.shape[1];
  // scale, B, mean and var: constant inputs 1-4, or the attributes the importer moved them to.
  static const char* keys[4] = {"scale", "B", "input_mean", "input_var"};
  std::vector<double> store[4];
  const std::vector<double>* p[4];
  for (std::size_t i = 0; i < 4; ++i) {
    p[i] = attr_or_input(n, in, i + 1, keys[i], store[i]);
    if (!p[i]) fail(n, fmt::format("has no '{}' (input {} or attribute)", keys[i], i + 1));
    if (std::int64_t(p[i]->size()) != C)
      fail(n, fmt::format("'{}' has {} values, expected C = {}", keys[i], p[i]->size(), C));
  }
  const double eps = double(float(attr_num(n, "epsilon", 1e-5)));
  const std::int64_t inner = product(x.shape, 2, x.shape.size());
  F32 r;
  r.shape = x.shape;
  r.v.resize(x.v.size());
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    const std::size_t c = std::size_t((std::int64_t(i) / inner) % C);
    // float32 parameters, as the model stores them.
    const double scale = double(float((*p[0])[c])), bias = double(float((*p[1])[c])), mean = double(float((*p[2])[c])),
                 var = double(float((*p[3])[c]));
    r.v[i] = float(scale * (double(x.v[i]) - mean) / std::sqrt(var + eps) + bias);
  }
  return r;
}

// Resize (opsets 10-13+) and Upsample over the last two dimensions, modes nearest and linear.
F32 resize(const Node& n, const std::vector<F32>& in, std::int64_t opset) {
  const F32& x = input(n, in, 0);
  const bool upsample = n.op == "Upsample";
  const std::size_t rank = x.shape.size();
  if (rank < 2) fail(n, fmt::format("input {}: needs rank >= 2", shape_text(x.shape)));
  std::string mode = attr_str(n, "mode", "nearest");
  if (mode == "bilinear") mode = "linear";  // Upsample-7's older name
  if (mode != "nearest" && mode != "linear") fail(n, fmt::format("mode = {}: only nearest and linear are supported", mode));
  // Opset 10's Resize and Upsample map coordinates as x_out / scale and take nearest by floor.
  const bool legacy = upsample || opset < 11;
  const std::string ctm = legacy ? "asymmetric" : attr_str(n, "coordinate_transformation_mode", "half_pixel");
  const std::string nearest_mode = legacy ? "floor" : attr_str(n, "nearest_mode", "round_prefer_floor");
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "asymmetric" && ctm != "align_corners" &&
      ctm != "tf_half_pixel_for_nn")
    fail(n, fmt::format("coordinate_transformation_mode = {}: supported are half_pixel, pytorch_half_pixel, "
                        "asymmetric, align_corners, tf_half_pixel_for_nn", ctm));
  if (nearest_mode != "round_prefer_floor" && nearest_mode != "round_prefer_ceil" && nearest_mode != "floor" &&
      nearest_mode != "ceil")
    fail(n, fmt::format("nearest_mode = {}: must be round_prefer_floor, round_prefer_ceil, floor or ceil", nearest_mode));
  if (attr_num(n, "exclude_outside", 0) != 0) fail(n, "exclude_outside = 1 is not supported");

  std::vector<double> s_store, z_store;
  // Input positions: Upsample (X, scales); Resize-10 (X, scales); Resize-11+ (X, roi, scales, sizes).
  const std::size_t scales_at = upsample || opset < 11 ? 1 : 2;
  const std::vector<double>* scales = attr_or_input(n, in, scales_at, "scales", s_store);
  const std::vector<double>* sizes = attr_or_input(n, in, 3, "sizes", z_store);
  if (scales && scales->empty()) scales = nullptr;
  if (sizes && sizes->empty()) sizes = nullptr;
  if (!scales && !sizes) fail(n, "has neither scales nor sizes");
  if ((scales && scales->size() != rank) || (sizes && sizes->size() != rank))
    fail(n, fmt::format("scales/sizes must have one value per dimension of the input {}", shape_text(x.shape)));
  Shape out = x.shape;
  std::vector<double> scale(rank, 1.0);
  for (std::size_t i = 0; i < rank; ++i) {
    if (sizes) {
      out[i] = std::int64_t((*sizes)[i]);
      scale[i] = double(out[i]) / double(x.shape[i]);
    } else {
      scale[i] = (*scales)[i];
      if (!(scale[i] > 0)) fail(n, fmt::format("scales[{}] = {}: must be > 0", i, scale[i]));
      out[i] = std::int64_t(std::floor(double(x.shape[i]) * scale[i]));
    }
    if (out[i] < 1) fail(n, fmt::format("output dimension {} would be {}", i, out[i]));
    if (i + 2 < rank && out[i] != x.shape[i])
      fail(n, "only the last two dimensions may be resized (2-D Resize)");
  }
  // The source coordinate of output index o along a dimension. ONNX's formulas use the resized
  // length as input length x scale, unrounded (2.4 for 4 x 0.6, not the 2 outputs there are).
  auto source = [&](std::int64_t o, std::int64_t, std::int64_t inl, double sc) {
    const double xo = double(o);
    const double len = double(inl) * sc;
    if (ctm == "half_pixel") return (xo + 0.5) / sc - 0.5;
    if (ctm == "pytorch_half_pixel") return len > 1 ? (xo + 0.5) / sc - 0.5 : 0.0;
    if (ctm == "align_corners") return len == 1 ? 0.0 : xo * double(inl - 1) / (len - 1);
    if (ctm == "tf_half_pixel_for_nn") return (xo + 0.5) / sc;
    return xo / sc;  // asymmetric
  };
  auto nearest = [&](double c, std::int64_t inl) {
    double r;
    if (nearest_mode == "floor") {
      r = std::floor(c);
    } else if (nearest_mode == "ceil") {
      r = std::ceil(c);
    } else {
      const double f = c - std::floor(c);
      if (f == 0.5)
        r = nearest_mode == "round_prefer_floor" ? std::floor(c) : std::ceil(c);
      else
        r = std::round(c);
    }
    return std::min<std::int64_t>(std::max<std::int64_t>(std::int64_t(r), 0), inl - 1);
  };
  const std::int64_t H = x.shape[rank - 2], W = x.shape[rank - 1];
  const std::int64_t Ho = out[rank - 2], Wo = out[rank - 1];
  const std::int64_t planes = product(x.shape, 0, rank - 2);
  F32 r;
  r.shape = out;
  r.v.resize(std::size_t(planes * Ho * Wo));
  // Per output row/column: the two neighbours and the weight of the second (linear), or the one
  // neighbour (nearest).
  struct Tap { std::int64_t i0, i1; double w1; };
  auto taps = [&](std::int64_t len, std::int64_t inl, double sc) {
    std::vector<Tap> t(static_cast<std::size_t>(len));
    for (std::int64_t o = 0; o < len; ++o) {
      const double c = source(o, len, inl, sc);
      if (mode == "nearest") {
        const std::int64_t i = nearest(c, inl);
        t[std::size_t(o)] = {i, i, 0.0};
      } else {
        const double cc = std::min(std::max(c, 0.0), double(inl - 1));
        const std::int64_t i0 = std::int64_t(std::floor(cc));
        const std::int64_t i1 = std::min(i0 + 1, inl - 1);
        t[std::size_t(o)] = {i0, i1, cc - double(i0)};
      }
    }
    return t;
  };
  const std::vector<Tap> ty = taps(Ho, H, scale[rank - 2]), tx = taps(Wo, W, scale[rank - 1]);
  std::size_t o = 0;
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* src = x.v.data() + p * H * W;
    for (std::int64_t yy = 0; yy < Ho; ++yy) {
      const Tap& a = ty[std::size_t(yy)];
      for (std::int64_t xx = 0; xx < Wo; ++xx) {
        const Tap& b = tx[std::size_t(xx)];
        const double v00 = src[a.i0 * W + b.i0], v01 = src[a.i0 * W + b.i1];
        const double v10 = src[a.i1 * W + b.i0], v11 = src[a.i1 * W + b.i1];
        const double top = v00 * (1 - b.w1) + v01 * b.w1, bottom = v10 * (1 - b.w1) + v11 * b.w1;
        r.v[o++] = float(top * (1 - a.w1) + bottom * a.w1);
      }
    }
  }
  return r;
}

}  // namespace

std::vector<F32> run_host_node(const Node& n, const std::vector<F32>& in, std::int64_t opset) {
  const std::string& op = n.op;
  if (op == "Relu") return {unary(input(n, in, 0), [](float v) { return v > 0 ? v : (std::isnan(v) ? v : 0.0f); })};
  if (op == "LeakyRelu") {
    const float alpha = float(attr_num(n, "alpha", 0.01));
    return {unary(input(n, in, 0), [alpha](float v) { return v < 0 ? v * alpha : v; })};
  }
  if (op == "Clip") {
    std::vector<double> lo_s, hi_s;
    const std::vector<double>* lo = attr_or_input(n, in, 1, "min", lo_s);
    const std::vector<double>* hi = attr_or_input(n, in, 2, "max", hi_s);
    const float mn = lo && !lo->empty() ? float((*lo)[0]) : -std::numeric_limits<float>::infinity();
    const float mx = hi && !hi->empty() ? float((*hi)[0]) : std::numeric_limits<float>::infinity();
    return {unary(input(n, in, 0), [mn, mx](float v) { return std::isnan(v) ? v : std::min(std::max(v, mn), mx); })};
  }
  if (op == "Add") return {broadcast(n, input(n, in, 0), input(n, in, 1), [](float a, float b) { return a + b; })};
  if (op == "Mul") return {broadcast(n, input(n, in, 0), input(n, in, 1), [](float a, float b) { return a * b; })};
  if (op == "Concat") return {concat(n, in)};
  if (op == "MaxPool") {
    if (n.outputs.size() > 1) fail(n, "the Indices output is not supported");
    return {pool(n, input(n, in, 0), true)};
  }
  if (op == "AveragePool") return {pool(n, input(n, in, 0), false)};
  if (op == "GlobalAveragePool") return {global_average_pool(n, input(n, in, 0))};
  if (op == "Flatten") return {flatten(n, input(n, in, 0))};
  if (op == "Reshape") return {reshape(n, in)};
  if (op == "Softmax") return {softmax(n, input(n, in, 0), opset)};
  if (op == "Identity") return {input(n, in, 0)};
  if (op == "Dropout") {
    // Inference: the output is the input; the optional mask keeps everything.
    std::vector<F32> r = {input(n, in, 0)};
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) r.push_back(unary(r[0], [](float) { return 1.0f; }));
    return r;
  }
  if (op == "BatchNormalization") return {batch_norm(n, in)};
  if (op == "Resize" || op == "Upsample") return {resize(n, in, opset)};
  fail(n, fmt::format("is not an operator the host runs; supported: {}", fmt::join(host_op_names(), ", ")));
}

}  // namespace flycol::graph
