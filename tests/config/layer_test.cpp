// Tests of layer input: the compact form (valid shapes, spec() round trip on many random layers,
// every invalid class), the YAML mapping form with its list keys, and the shipped layer files.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/config/layer.h"
#include "sim/config/yaml_guard.h"
#include "tests/common/test_util.h"

using flycol::InputError;
using flycol::Layer;
using flycol::test::input_error_of;
using flycol::test::repo_path;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

InputError spec_error(const std::string& spec) {
  const InputError e = input_error_of([&] { flycol::parse_layer_spec(spec); });
  CHECK(e.source() == "--layer");
  return e;
}

// A random layer that validate_layer accepts: mostly modest sizes, sometimes the extremes.
Layer random_layer(std::mt19937& rng) {
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto dim = [&](int small_hi, int hi, int lo = 1) { return pick(0, 9) == 0 ? pick(lo, hi) : pick(lo, small_hi); };
  for (;;) {
    Layer l;
    static const char* const names[] = {"layer", "conv1", "layer1.0/conv2", "Mixed_5b:0", "x-y_z.1", "7"};
    l.name = names[pick(0, 5)];
    l.n = dim(4, 64);
    l.c = dim(256, 65536);
    l.h = dim(64, 8192);
    l.w = pick(0, 3) == 0 ? l.h : dim(64, 8192);
    l.k = dim(256, 65536);
    l.ky = dim(7, 255);
    l.kx = pick(0, 1) ? l.ky : dim(7, 255);
    l.sy = dim(3, 64);
    l.sx = pick(0, 1) ? l.sy : dim(3, 64);
    l.dy = dim(4, 255);
    l.dx = pick(0, 1) ? l.dy : dim(4, 255);
    l.pt = pick(0, l.extent_y());
    l.pb = pick(0, 1) ? l.pt : pick(0, l.extent_y());
    l.pl = pick(0, 1) ? l.pt : pick(0, l.extent_x());
    l.pr = pick(0, 1) ? l.pl : pick(0, l.extent_x());
    try {
      flycol::validate_layer(l, "random");
      return l;
    } catch (const InputError&) {
    }
  }
}

// The same layer written as a YAML mapping with the list forms.
std::string layer_yaml(const Layer& l) {
  return fmt::format("name: '{}'\nN: {}\nC: {}\nH: {}\nW: {}\nK: {}\nkernel: [{}, {}]\nstride: [{}, {}]\n"
                     "dilation: [{}, {}]\npadding: [{}, {}, {}, {}]\n",
                     l.name, l.n, l.c, l.h, l.w, l.k, l.ky, l.kx, l.sy, l.sx, l.dy, l.dx, l.pt, l.pb, l.pl, l.pr);
}

}  // namespace

TEST_CASE("layer: default and canonical spec", "[layer]") {
  const Layer d = flycol::default_layer();
  CHECK(d.spec() == "N=1,C=64,H=56,W=56,K=64,k=3,s=1,d=1,p=1");
  CHECK(flycol::parse_layer_spec(d.spec()) == d);
  CHECK(d.ho() == 56);
  CHECK(d.wo() == 56);
  CHECK(d.macs() == 64LL * 56 * 56 * 64 * 9);
  CHECK_NOTHROW(flycol::validate_layer(d, "built-in"));
}

TEST_CASE("layer: compact form", "[layer]") {
  SECTION("the example of the brief") {
    const Layer l = flycol::parse_layer_spec("C=64,H=56,W=56,K=64,k=3,s=1,d=2,p=2");
    CHECK(l.name == "layer");
    CHECK(l.n == 1);
    CHECK(l.c == 64);
    CHECK(l.h == 56);
    CHECK(l.w == 56);
    CHECK(l.k == 64);
    CHECK((l.ky == 3 && l.kx == 3));
    CHECK((l.sy == 1 && l.sx == 1));
    CHECK((l.dy == 2 && l.dx == 2));
    CHECK((l.pt == 2 && l.pb == 2 && l.pl == 2 && l.pr == 2));
    CHECK(l.extent_x() == 5);
    CHECK(l.ho() == 56);
  }
  SECTION("defaults: N=1, stride 1, dilation 1, no padding") {
    const Layer l = flycol::parse_layer_spec("C=3,H=224,W=224,K=64,k=7");
    CHECK(l.n == 1);
    CHECK((l.sy == 1 && l.sx == 1 && l.dy == 1 && l.dx == 1));
    CHECK((l.pt == 0 && l.pb == 0 && l.pl == 0 && l.pr == 0));
    CHECK(l.ho() == 218);
  }
  SECTION("per-direction keys, any order, whitespace around tokens") {
    const Layer l = flycol::parse_layer_spec(
        " name = conv_a , pr=3, pl=2,pb=1,pt=0, kx=7 ,ky=1, sx=1,sy=2, dx=1,dy=3, K=32, W=35, H=35, C=96, N=2 ");
    CHECK(l.name == "conv_a");
    CHECK(l.n == 2);
    CHECK((l.ky == 1 && l.kx == 7 && l.sy == 2 && l.sx == 1 && l.dy == 3 && l.dx == 1));
    CHECK((l.pt == 0 && l.pb == 1 && l.pl == 2 && l.pr == 3));
    CHECK(l.spec() == "name=conv_a,N=2,C=96,H=35,W=35,K=32,ky=1,kx=7,sy=2,sx=1,dy=3,dx=1,pt=0,pb=1,pl=2,pr=3");
    CHECK(l.ho() == (35 + 0 + 1 - 1) / 2 + 1);
    CHECK(l.wo() == 35 + 2 + 3 - 7 + 1);
  }
  SECTION("limits at their bounds") {
    // The widest kernel of the 64-bit pattern and dilation 31 for 3x3 are layers like any other.
    CHECK_NOTHROW(flycol::parse_layer_spec("C=1,H=64,W=64,K=1,k=3,d=31"));
    CHECK_NOTHROW(flycol::parse_layer_spec("N=32,C=1,H=8192,W=8192,K=1,k=255,s=64,d=1,p=255"));
    CHECK_NOTHROW(flycol::parse_layer_spec("C=32768,H=256,W=256,K=1,k=1"));  // ifmap of exactly 2^31
    CHECK_NOTHROW(flycol::parse_layer_spec("C=1,H=1,W=1,K=1,k=1"));
    CHECK_NOTHROW(flycol::parse_layer_spec("C=1,H=1,W=1,K=1,k=3,p=1"));
    CHECK_NOTHROW(flycol::parse_layer_spec("C=1,H=1,W=1,K=1,ky=3,kx=2,dy=2,dx=1,pt=5,pb=0,pl=0,pr=2"));
  }
}

TEST_CASE("layer: spec() round-trips random valid layers", "[layer]") {
  std::mt19937 rng(20240611);
  for (int i = 0; i < 5000; ++i) {
    const Layer l = random_layer(rng);
    INFO(l.spec());
    REQUIRE(flycol::parse_layer_spec(l.spec()) == l);
    if (i % 10 == 0) {
      REQUIRE(flycol::parse_layer_node(flycol::load_yaml(layer_yaml(l), "t"), "t") == l);
    }
  }
}

TEST_CASE("layer: invalid compact specs", "[layer]") {
  SECTION("empty spec and malformed items") {
    CHECK_THAT(spec_error("").problem(), Contains("the layer is empty"));
    CHECK_THAT(spec_error("  ").problem(), Contains("e.g. C=64,H=56,W=56,K=64,k=3"));
    CHECK(spec_error("C=64,,H=56").problem() == "item 2 is empty: items are key=value separated by single commas");
    CHECK_THAT(spec_error("C=64,H=56,W=56,K=64,k=3,").problem(), Contains("item 6 is empty"));
    CHECK_THAT(spec_error("C=64,H56").problem(), StartsWith("item 'H56' is not key=value (keys: name, N, C, H"));
    CHECK_THAT(spec_error("=3,C=64").problem(), Contains("has an empty key"));
  }
  SECTION("unknown keys, with a hint for case") {
    const InputError e = spec_error("C=64,H=56,W=56,K=64,k=3,g=2");
    CHECK(e.key() == "g");
    CHECK(e.problem() == "unknown key (allowed: name, N, C, H, W, K, k, ky, kx, s, sy, sx, d, dy, dx, p, pt, pb, pl, pr)");
    const InputError c = spec_error("c=64,H=56,W=56,K=64,k=3");
    CHECK(c.key() == "c");
    CHECK_THAT(c.problem(), StartsWith("unknown key (keys are case-sensitive: did you mean C?)"));
    CHECK_THAT(spec_error("C=64,H=56,W=56,K=64,kernel=3").problem(), StartsWith("unknown key"));
  }
  SECTION("a key given twice names it and both values") {
    const InputError e = spec_error("C=64,H=56,W=56,K=64,k=3,k=5");
    CHECK(e.key() == "k");
    CHECK(e.problem() == "is given twice (k=3 and k=5)");
    CHECK(spec_error("name=a,name=b,C=64,H=56,W=56,K=64,k=3").problem() == "is given twice");
  }
  SECTION("a short key together with a long one names both") {
    struct Case {
      const char *spec, *key, *problem;
    };
    const Case cases[] = {
        {"C=1,H=9,W=9,K=1,k=3,kx=3", "kx", "conflicts with k: give either k (both kernel sizes) or ky and kx"},
        {"C=1,H=9,W=9,K=1,ky=3,kx=3,k=3", "k", "conflicts with ky: give either k (both kernel sizes) or ky and kx"},
        {"C=1,H=9,W=9,K=1,k=3,s=1,sy=2", "sy", "conflicts with s: give either s (both strides) or sy and sx"},
        {"C=1,H=9,W=9,K=1,k=3,dx=2,d=1", "d", "conflicts with dx: give either d (both dilations) or dy and dx"},
        {"C=1,H=9,W=9,K=1,k=3,p=1,pl=0", "pl", "conflicts with p: give either p (all four sides) or pt, pb, pl and pr"},
    };
    for (const auto& c : cases) {
      INFO(c.spec);
      const InputError e = spec_error(c.spec);
      CHECK(e.key() == c.key);
      CHECK(e.problem() == c.problem);
    }
  }
  SECTION("required keys and incomplete pairs") {
    for (const char* key : {"C", "H", "W", "K"}) {
      std::string spec;
      for (const char* k : {"C=8", "H=8", "W=8", "K=8", "k=3"})
        if (k[0] != key[0]) spec += std::string(spec.empty() ? "" : ",") + k;
      INFO(spec);
      const InputError e = spec_error(spec);
      CHECK(e.key() == key);
      CHECK(e.problem() == "is missing: a layer needs C, H, W, K and the kernel size (k, or ky and kx)");
    }
    CHECK(spec_error("C=8,H=8,W=8,K=8").key() == "k");
    const InputError kx = spec_error("C=8,H=8,W=8,K=8,ky=3");
    CHECK(kx.key() == "kx");
    CHECK(kx.problem() == "is missing: ky is given, so ky, kx are all needed (or k for both)");
    CHECK(spec_error("C=8,H=8,W=8,K=8,k=3,sx=2").key() == "sy");
    CHECK(spec_error("C=8,H=8,W=8,K=8,k=3,dy=2").key() == "dx");
    const InputError pad = spec_error("C=8,H=8,W=8,K=8,k=3,pt=1,pb=1");
    CHECK(pad.key() == "pl");
    CHECK(pad.problem() == "is missing: pt is given, so pt, pb, pl, pr are all needed (or p for all four)");
  }
  SECTION("values that are not integers") {
    for (const char* bad : {"3.0", "0x3", "3e0", "+3", "03", "three", "", "3 3", "-"}) {
      INFO(bad);
      const InputError e = spec_error(std::string("C=8,H=8,W=8,K=8,k=") + bad);
      CHECK(e.key() == "k");
      CHECK_THAT(e.problem(), Contains(": must be an integer in [1, 255]"));
    }
    CHECK(spec_error("C=8,H=8,W=8,K=8,k=").problem() == "is empty: must be an integer in [1, 255]");
    CHECK(spec_error("C=8,H=8,W=8,K=8,k=3.5").problem() == "= 3.5: must be an integer in [1, 255]");
  }
  SECTION("every range, one step outside each bound") {
    struct Case {
      const char* key;
      int lo, hi;
    };
    const Case cases[] = {{"N", 1, 64},  {"C", 1, 65536}, {"H", 1, 8192}, {"W", 1, 8192}, {"K", 1, 65536},
                          {"ky", 1, 255}, {"kx", 1, 255}, {"k", 1, 255},   {"sy", 1, 64},   {"sx", 1, 64},
                          {"s", 1, 64},   {"dy", 1, 255}, {"dx", 1, 255},  {"d", 1, 255}};
    const auto spec_with = [](const std::string& key, long long v) {
      // A base layer large enough that only `key` can be wrong.
      // Small planes where a channel count is pushed to its limit (tensor sizes stay below 2^31),
      // planes wide enough for a 255-wide kernel otherwise.
      const std::string plane = key == "C" || key == "K" || key == "N" ? "128" : "512";
      std::vector<std::pair<std::string, std::string>> kv = {{"C", "1"}, {"H", plane}, {"W", plane}, {"K", "1"}};
      const bool kernel_pair = key == "ky" || key == "kx", stride_pair = key == "sy" || key == "sx",
                 dil_pair = key == "dy" || key == "dx";
      if (kernel_pair) kv.push_back({key == "ky" ? "kx" : "ky", "1"});
      else if (key != "k") kv.push_back({"k", "1"});
      if (stride_pair) kv.push_back({key == "sy" ? "sx" : "sy", "1"});
      if (dil_pair) kv.push_back({key == "dy" ? "dx" : "dy", "1"});
      std::string spec = key + "=" + std::to_string(v);
      for (const auto& [k, val] : kv)
        if (k != key) spec += "," + k + "=" + val;
      return spec;
    };
    for (const auto& c : cases) {
      INFO(c.key);
      for (long long bad : {static_cast<long long>(c.lo) - 1, static_cast<long long>(c.hi) + 1, 10000000000LL}) {
        const InputError e = spec_error(spec_with(c.key, bad));
        CHECK(e.key() == c.key);
        CHECK(e.problem() == fmt::format("= {}: must be an integer in [{}, {}]", bad, c.lo, c.hi));
      }
      CHECK_NOTHROW(flycol::parse_layer_spec(spec_with(c.key, c.lo)));
      CHECK_NOTHROW(flycol::parse_layer_spec(spec_with(c.key, c.hi)));
    }
  }
  SECTION("padding up to the dilated kernel extent in its direction") {
    const InputError e = spec_error("C=8,H=8,W=8,K=8,k=3,d=2,p=6");
    CHECK(e.key() == "p");
    CHECK(e.problem() == "= 6: must be an integer in [0, 5] (up to the dilated kernel height (ky - 1) * dy + 1 = 5)");
    const InputError r = spec_error("C=8,H=8,W=8,K=8,ky=5,kx=3,pt=5,pb=5,pl=3,pr=4");
    CHECK(r.key() == "pr");
    CHECK_THAT(r.problem(), Contains("[0, 3] (up to the dilated kernel width (kx - 1) * dx + 1 = 3)"));
    CHECK(spec_error("C=8,H=8,W=8,K=8,k=3,p=-1").problem() ==
          "= -1: must be an integer in [0, 3] (up to the dilated kernel height (ky - 1) * dy + 1 = 3)");
  }
  SECTION("no output pixel") {
    const InputError h = spec_error("C=8,H=2,W=16,K=8,k=3,d=2");
    CHECK(h.key() == "H");
    CHECK(h.problem() ==
          "H + pt + pb = 2 is smaller than the dilated kernel height (ky - 1) * dy + 1 = 5: make H or the padding "
          "larger, or ky or dy smaller");
    const InputError w = spec_error("C=8,H=16,W=4,K=8,ky=1,kx=7,sy=1,sx=1,dy=1,dx=1,pt=0,pb=0,pl=1,pr=1");
    CHECK(w.key() == "W");
    CHECK_THAT(w.problem(), StartsWith("W + pl + pr = 6 is smaller than the dilated kernel width (kx - 1) * dx + 1 = 7"));
  }
  SECTION("tensors beyond 2^31 elements") {
    const InputError i = spec_error("N=2,C=32768,H=256,W=256,K=1,k=1");
    CHECK(i.key() == "C");
    CHECK(i.problem() == "the ifmap has N x C x H x W = 4294967296 elements: at most 2^31 = 2147483648 are supported");
    const InputError w = spec_error("C=65536,H=1,W=1,K=65536,k=1");
    CHECK(w.key() == "K");
    CHECK_THAT(w.problem(), StartsWith("the weight tensor has K x C x ky x kx = 4294967296 elements"));
    const InputError o = spec_error("C=1,H=8192,W=8192,K=64,k=1");
    CHECK(o.key() == "K");
    CHECK_THAT(o.problem(), StartsWith("the ofmap has N x K x Ho x Wo = 4294967296 elements"));
  }
  SECTION("names") {
    CHECK(flycol::parse_layer_spec("name=layer1.0/conv2:x,C=1,H=1,W=1,K=1,k=1").name == "layer1.0/conv2:x");
    CHECK_THAT(spec_error("name=a b,C=1,H=1,W=1,K=1,k=1").problem(),
               Contains("= a b: must be a name of 1 to 128 characters"));
    CHECK_THAT(spec_error("name=,C=1,H=1,W=1,K=1,k=1").problem(), StartsWith("is empty: must be a name"));
    CHECK_THAT(spec_error("name=" + std::string(129, 'a') + ",C=1,H=1,W=1,K=1,k=1").problem(), Contains("must be a name"));
  }
  SECTION("the source in messages") {
    const InputError e = input_error_of([] { flycol::parse_layer_spec("C=0,H=1,W=1,K=1,k=1", "net.txt:3"); });
    CHECK(std::string(e.what()) == "net.txt:3: key 'C': = 0: must be an integer in [1, 65536]");
  }
}

TEST_CASE("layer: validate_layer on layers built in code", "[layer]") {
  Layer l = flycol::default_layer();
  CHECK_NOTHROW(flycol::validate_layer(l, "code"));
  l.sx = 0;  // checked before any division by the stride
  const InputError e = input_error_of([&] { flycol::validate_layer(l, "code", "layers[2]"); });
  CHECK(e.source() == "code");
  CHECK(e.key() == "layers[2].sx");
  CHECK(e.problem() == "= 0: must be an integer in [1, 64]");
  l = flycol::default_layer();
  l.ky = 1000000;
  CHECK(input_error_of([&] { flycol::validate_layer(l, "code"); }).key() == "ky");
  l = flycol::default_layer();
  l.name = "";
  CHECK(input_error_of([&] { flycol::validate_layer(l, "code"); }).key() == "name");
}

TEST_CASE("layer: YAML mappings", "[layer]") {
  const auto node = [](const std::string& text) { return flycol::load_yaml(text, "net.yaml"); };
  const auto node_error = [&](const std::string& text, const std::string& where = "layers[3]") {
    const InputError e = input_error_of([&] { flycol::parse_layer_node(node(text), "net.yaml", where); });
    CHECK(e.source() == "net.yaml");
    return e;
  };
  SECTION("short keys and list keys give the same layer") {
    const Layer a = flycol::parse_layer_node(node("{C: 64, H: 56, W: 56, K: 64, k: 3, s: 1, d: 2, p: 2}"), "t");
    const Layer b = flycol::parse_layer_node(
        node("C: 64\nH: 56\nW: 56\nK: 64\nkernel: [3, 3]\nstride: [1, 1]\ndilation: [2, 2]\npadding: [2, 2, 2, 2]\n"),
        "t");
    const Layer c = flycol::parse_layer_node(
        node("{C: 64, H: 56, W: 56, K: 64, kernel: 3, stride: 1, dilation: 2, padding: 2}"), "t");
    CHECK(a == flycol::parse_layer_spec("C=64,H=56,W=56,K=64,k=3,s=1,d=2,p=2"));
    CHECK(a == b);
    CHECK(a == c);
  }
  SECTION("errors carry the where prefix") {
    const InputError e = node_error("{C: 64, H: 56, W: 56, K: 64, ky: 3, kx: 0}");
    CHECK(e.key() == "layers[3].kx");
    CHECK(e.problem() == "= 0: must be an integer in [1, 255]");
    CHECK(std::string(e.what()) == "net.yaml: key 'layers[3].kx': = 0: must be an integer in [1, 255]");
    CHECK(node_error("{C: 64, H: 56, W: 56, K: 64, kernel: [3, 300]}").key() == "layers[3].kernel[1]");
    CHECK(node_error("{C: 64, H: 56, W: 56, K: 64, k: 3, padding: [1, 1, 1, 9]}").key() == "layers[3].padding[3]");
    CHECK(node_error("{H: 56, W: 56, K: 64, k: 3}").key() == "layers[3].C");
  }
  SECTION("either form, not both") {
    const InputError e = node_error("{C: 64, H: 56, W: 56, K: 64, kernel: [3, 3], kx: 3}");
    CHECK(e.key() == "layers[3].kx");
    CHECK(e.problem() == "conflicts with kernel: give either k (both kernel sizes) or ky and kx");
    const InputError s = node_error("{C: 64, H: 56, W: 56, K: 64, k: 3, s: 2, stride: [2, 2]}");
    CHECK(s.key() == "layers[3].stride");
    CHECK(s.problem() == "conflicts with s: give either stride: [sy, sx], or s, or sy and sx");
    CHECK(node_error("{C: 64, H: 56, W: 56, K: 64, k: 3, dilation: 1, d: 1}").key() == "layers[3].d");
    CHECK(node_error("{C: 64, H: 56, W: 56, K: 64, k: 3, p: 1, padding: [1, 1, 1, 1]}").key() == "layers[3].padding");
  }
  SECTION("wrong shapes and types") {
    const InputError len = node_error("{C: 64, H: 56, W: 56, K: 64, kernel: [3, 3, 3]}");
    CHECK(len.key() == "layers[3].kernel");
    CHECK(len.problem() == "is a sequence of 3 entries: must be [ky, kx] or one integer for all of them");
    CHECK(node_error("{C: 64, H: 56, W: 56, K: 64, stride: {y: 1}}").problem() ==
          "is a mapping: must be [sy, sx] or one integer for all of them");
    CHECK(node_error("{C: '64', H: 56, W: 56, K: 64, k: 3}").problem() ==
          "= \"64\" (a quoted string): must be an integer in [1, 65536]");
    CHECK(node_error("{C: [64], H: 56, W: 56, K: 64, k: 3}").problem() == "is a sequence: must be an integer in [1, 65536]");
    CHECK(node_error("{C: 64, H: 56, W: 56, K: 64, kernel: [3, [3]]}").key() == "layers[3].kernel[1]");
    CHECK(node_error("{C: 64, H: 56, W: 56, K: 64, k: 3, C: 32}").problem() == "appears twice in the same mapping (line 1)");
    const InputError unknown = node_error("{C: 64, H: 56, W: 56, K: 64, k: 3, groups: 2}");
    CHECK(unknown.key() == "layers[3].groups");
    CHECK_THAT(unknown.problem(), StartsWith("unknown key (allowed: name, N, C, H, W, K, k, ky, kx, kernel, s"));
    CHECK_THAT(node_error("[1, 2]").problem(), StartsWith("is a sequence: must be a mapping with keys name, N, C"));
    CHECK_THAT(node_error("{name: {a: 1}, C: 1, H: 1, W: 1, K: 1, k: 1}").problem(), StartsWith("is a mapping: must be a name"));
  }
  SECTION("names") {
    CHECK(flycol::parse_layer_node(node("{name: 'conv1', C: 1, H: 1, W: 1, K: 1, k: 1}"), "t").name == "conv1");
    CHECK(flycol::parse_layer_node(node("{C: 1, H: 1, W: 1, K: 1, k: 1}"), "t").name == "layer");
    const InputError e = node_error("{name: conv 1, C: 1, H: 1, W: 1, K: 1, k: 1}");
    CHECK(e.key() == "layers[3].name");
    CHECK_THAT(e.problem(), StartsWith("= conv 1: must be a name of 1 to 128 characters"));
  }
}

TEST_CASE("layer: --layer argument, file or compact", "[layer]") {
  SECTION("shipped layer files") {
    const Layer r = flycol::parse_layer_argument(repo_path("configs/layers/resnet_3x3.yaml"));
    CHECK(r.name == "resnet50.conv2_x.3x3");
    CHECK(r == [] {
      Layer l = flycol::default_layer();
      l.name = "resnet50.conv2_x.3x3";
      return l;
    }());
    const Layer d = flycol::parse_layer_argument(repo_path("configs/layers/dilated.yaml"));
    CHECK(d.spec() == "name=atrous_d8,N=1,C=128,H=64,W=64,K=128,k=3,s=1,d=8,p=8");
    CHECK(d.extent_x() == 17);
    CHECK(d.ho() == 64);
    const Layer s = flycol::parse_layer_argument(repo_path("configs/layers/strided_asym.yaml"));
    CHECK(s.spec() == "name=inception.1x7_s21,N=2,C=96,H=35,W=35,K=64,ky=1,kx=7,sy=2,sx=1,d=1,pt=0,pb=0,pl=3,pr=3");
    CHECK(s.ho() == 18);
    CHECK(s.wo() == 35);
  }
  SECTION("compact specs") {
    CHECK(flycol::parse_layer_argument("C=64,H=56,W=56,K=64,k=3,s=1,d=1,p=1") == flycol::default_layer());
    CHECK(input_error_of([] { flycol::parse_layer_argument("C=0"); }).source() == "--layer");
  }
  SECTION("file errors name the file") {
    const InputError missing = input_error_of([] { flycol::parse_layer_argument("no_such_layer.yaml"); });
    CHECK(missing.source() == "no_such_layer.yaml");
    CHECK_THAT(missing.problem(), StartsWith("cannot read file"));
    const std::string empty = repo_path("configs/bad/layer_missing_kernel.yaml");
    const InputError e = input_error_of([&] { flycol::parse_layer_argument(empty); });
    CHECK(e.source() == empty);
    CHECK(e.key() == "layer.k");
  }
}
