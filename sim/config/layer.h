// One convolution layer: N x C x H x W input, K x C x ky x kx weights, stride, dilation and
// asymmetric zero padding. Layers come from a compact command-line form
// ("C=64,H=56,W=56,K=64,k=3,s=1,d=2,p=2") or from YAML; both are validated the same way and
// raise flycol::InputError naming the source, the key and the allowed range.
#pragma once

#include <cstdint>
#include <string>

namespace YAML { class Node; }

namespace flycol {

struct Layer {
  std::string name = "layer";
  int n = 1;
  int c = 1, h = 1, w = 1;  // input channels, height, width
  int k = 1;                // output channels
  int ky = 1, kx = 1;       // kernel height, width
  int sy = 1, sx = 1;       // stride
  int dy = 1, dx = 1;       // dilation
  int pt = 0, pb = 0, pl = 0, pr = 0;  // zero padding: top, bottom, left, right

  int extent_y() const { return (ky - 1) * dy + 1; }  // dilated kernel height
  int extent_x() const { return (kx - 1) * dx + 1; }  // dilated kernel width
  int ho() const { return (h + pt + pb - extent_y()) / sy + 1; }
  int wo() const { return (w + pl + pr - extent_x()) / sx + 1; }
  std::int64_t macs() const { return std::int64_t(n) * k * ho() * wo() * c * ky * kx; }
  std::int64_t ifmap_elems() const { return std::int64_t(n) * c * h * w; }
  std::int64_t weight_elems() const { return std::int64_t(k) * c * ky * kx; }
  std::int64_t ofmap_elems() const { return std::int64_t(n) * k * ho() * wo(); }

  // The canonical compact form, using the short keys where both directions agree
  // (e.g. "N=1,C=64,H=56,W=56,K=64,k=3,s=1,d=1,p=1"). Parsing it gives this layer back.
  std::string spec() const;
  bool operator==(const Layer& o) const;
};

// The layer `flycol run` uses when --layer is not given.
Layer default_layer();

// Parses the compact form. Keys: N C H W K; k (both kernel dims) or ky/kx; s or sy/sx; d or dy/dx;
// p (all four sides) or pt/pb/pl/pr; name. C, H, W, K and the kernel size are required; the
// rest default to N=1, stride 1, dilation 1, no padding. A key given twice, directly or through
// its short form (k and kx), is an error.
Layer parse_layer_spec(const std::string& spec, const std::string& source = "--layer");

// A layer from a YAML mapping with the same keys as the compact form (also used for the layer
// lists of network files). `where` prefixes keys in messages, e.g. "layers[3]".
Layer parse_layer_node(const YAML::Node& node, const std::string& source, const std::string& where = "");

// --layer accepts either a compact spec or the path of a YAML file holding one layer mapping
// (optionally under a top-level "layer:" key).
Layer parse_layer_argument(const std::string& arg);

// Checks ranges and consistency (padding, output size >= 1, tensor sizes within limits).
void validate_layer(const Layer& l, const std::string& source, const std::string& where = "");

}  // namespace flycol
