// The ONNX writer (sim/onnx/onnx_write.h, `flycol onnx-export`): every built-in network written to a
// file, read back with protobuf and checked by onnx::checker; ONNX's own shape inference on the file
// gives every array layer the input and output shapes, kernel, strides, dilations, pads and groups
// of the network file, and the MACs add up to Network::macs(). Seeds reproduce, weights are
// He-scaled, and networks or options the writer cannot honour are InputErrors with nothing written.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "sim/network/network.h"
#include "sim/onnx/onnx_write.h"
#include "tests/common/test_util.h"

using namespace flycol;
using flycol::test::input_error_of;
using flycol::test::ScratchDir;
using flycol::test::slurp;

namespace {

std::vector<std::int64_t> ints(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
  return {};
}
std::int64_t int_attr(const onnx::NodeProto& n, const std::string& name, std::int64_t def) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return def;
}
std::vector<std::int64_t> dims(const onnx::TypeProto& t) {
  std::vector<std::int64_t> d;
  for (const auto& x : t.tensor_type().shape().dim()) d.push_back(x.dim_value());
  return d;
}
using V = std::vector<std::int64_t>;

// Reads the file back and checks it against the network file, layer by layer.
void check_file_against_network(const std::string& path, const Network& net) {
  onnx::ModelProto m;
  const std::string bytes = slurp(path);
  REQUIRE(!bytes.empty());
  REQUIRE(m.ParseFromString(bytes));
  CHECK_NOTHROW(onnx::checker::check_model(m));
  REQUIRE(m.opset_import_size() == 1);
  CHECK(m.opset_import(0).version() == 13);
  onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), onnx::ShapeInferenceOptions(true, 1, false));
  const onnx::GraphProto& g = m.graph();
  std::map<std::string, onnx::TypeProto> type;
  for (const auto& v : g.value_info()) type[v.name()] = v.type();
  for (const auto& v : g.input()) type[v.name()] = v.type();
  for (const auto& v : g.output()) type[v.name()] = v.type();
  std::map<std::string, V> init;
  for (const auto& t : g.initializer()) init[t.name()] = V(t.dims().begin(), t.dims().end());
  std::map<std::string, const onnx::NodeProto*> node;
  for (const auto& n : g.node()) node[n.name()] = &n;

  CHECK(dims(g.input(0).type()) == V{1, net.in_c, net.in_h, net.in_w});
  std::int64_t macs = 0;
  int array = 0;
  for (const NetworkLayer& l : net.layers) {
    INFO(net.name << " layer " << l.name);
    REQUIRE(node.count(l.name) == 1);  // every layer keeps its name
    const onnx::NodeProto& n = *node[l.name];
    if (!l.on_array) continue;
    ++array;
    const Layer& c = l.layer;
    const V w = init[n.input(1)];
    const V x = dims(type[n.input(0)]);
    const V y = dims(type[n.output(0)]);
    if (l.op == "conv") {
      CHECK(n.op_type() == "Conv");
      CHECK(x == V{1, l.c, l.h, l.w});  // ONNX's inference agrees with the listed input
      CHECK(w == V{std::int64_t(c.k) * l.groups, c.c, c.ky, c.kx});
      CHECK(ints(n, "strides") == V{c.sy, c.sx});
      CHECK(ints(n, "dilations") == V{c.dy, c.dx});
      CHECK(ints(n, "pads") == V{c.pt, c.pl, c.pb, c.pr});
      CHECK(int_attr(n, "group", 1) == l.groups);
      REQUIRE(y.size() == 4);
      CHECK(y[1] == std::int64_t(c.k) * l.groups);
      CHECK(y[2] == c.ho());
      CHECK(y[3] == c.wo());
      macs += y[1] * y[2] * y[3] * w[1] * w[2] * w[3];
    } else {
      CHECK(n.op_type() == "Gemm");
      CHECK(int_attr(n, "transB", 0) == 1);
      CHECK(x == V{1, c.c});  // flattened where the input is a map
      CHECK(w == V{c.k, c.c});
      CHECK(y == V{1, c.k});
      macs += w[0] * w[1];
    }
  }
  CHECK(array == net.array_layers());
  CHECK(macs == net.macs());
}

}  // namespace

TEST_CASE("the built-in networks written as ONNX keep their array layers (ONNX shape inference)", "[netonnx][unit]") {
  ScratchDir dir("onnx_export");
  for (const std::string name : {"arnp", "resnet50", "yolov3", "vgg16"}) {
    INFO(name);
    const Network net = load_network(name);
    onnx_write::Options opt;
    opt.weights = "zeros";  // values are not looked at here; the graph and sizes are the same
    const std::string path = dir / (name + ".onnx");
    const std::uint64_t bytes = onnx_write::write_onnx(net, opt, path);
    CHECK(bytes == std::filesystem::file_size(path));
    check_file_against_network(path, net);
    std::filesystem::remove(path);
  }
}

TEST_CASE("grouped, depthwise, asymmetric and dilated layers are written as the file lists them", "[netonnx][unit]") {
  const char* text = R"(name: g
input: {C: 8, H: 15, W: 13}
layers:
  - {name: a, C: 8, H: 15, W: 13, K: 16, ky: 3, kx: 5, sy: 2, sx: 1, dy: 1, dx: 2, pt: 1, pb: 0, pl: 3, pr: 2}
  - {name: g, C: 16, H: 7, W: 10, K: 32, k: 3, p: 1, groups: 4}
  - {name: dw, C: 32, H: 7, W: 10, K: 32, k: 3, d: 2, p: 2, groups: 32}
  - {name: pool, op: maxpool, C: 32, H: 7, W: 10, k: 2, s: 2, p: 0}
  - {name: pool2, op: avgpool, C: 32, H: 7, W: 10, k: 2, s: 2, p: 0, inputs: [dw]}
  - {name: cat, op: concat, C: 64, H: 3, W: 5, inputs: [pool, pool2]}
  - {name: fc, op: fc, C: 960, K: 10}
)";
  ScratchDir dir("onnx_export_grouped");
  const Network net = parse_network(text, "g.yaml");
  REQUIRE(net.layers[0].layer.ho() == 7);
  onnx_write::write_onnx(net, {}, dir / "g.onnx");
  check_file_against_network(dir / "g.onnx", net);
}

TEST_CASE("the graph outputs are the layers nobody reads, yolo and proposal as documented", "[netonnx][unit]") {
  auto outputs = [](const std::string& name) {
    const onnx::ModelProto m = onnx_write::to_onnx(load_network(name), [] {
      onnx_write::Options o;
      o.weights = "zeros";
      return o;
    }());
    std::map<std::string, V> out;
    for (const auto& v : m.graph().output()) out[v.name()] = dims(v.type());
    std::map<std::string, std::string> op;
    for (const auto& n : m.graph().node()) op[n.name()] = n.op_type();
    return std::make_pair(out, op);
  };
  const auto y = outputs("yolov3");
  CHECK(y.first == std::map<std::string, V>{{"yolo_16", {1, 255, 16, 16}}, {"yolo_32", {1, 255, 32, 32}},
                                            {"yolo_64", {1, 255, 64, 64}}});
  CHECK(y.second.at("yolo_16") == "Identity");
  CHECK(y.second.at("route1") == "Concat");
  CHECK(y.second.at("upsample1") == "Resize");
  CHECK(y.second.at("conv0_leaky") == "LeakyRelu");  // darknet: leaky after every convolution ...
  CHECK(y.second.count("conv58_leaky") == 0);         // ... but the detection heads
  const auto a = outputs("arnp");
  CHECK(a.first == std::map<std::string, V>{{"proposal", {1, 54, 16, 16}}});
  CHECK(a.second.at("proposal") == "Concat");
  const auto r = outputs("resnet50");
  CHECK(r.first == std::map<std::string, V>{{"prob", {1, 1000}}});
  CHECK(r.second.count("res2a_branch2c_relu") == 0);  // ResNet: the ReLU follows the residual add
  CHECK(r.second.at("res2a_add_relu") == "Relu");
  CHECK(r.second.at("fc1000_flatten") == "Flatten");
}

TEST_CASE("seeded weights reproduce and are He-scaled", "[netonnx][unit]") {
  const char* text = R"(name: s
input: {C: 64, H: 8, W: 8}
layers:
  - {name: a, C: 64, H: 8, W: 8, K: 128, k: 3, p: 1}
  - {name: b, C: 128, H: 8, W: 8, K: 128, k: 3, p: 1, groups: 4}
)";
  const Network net = parse_network(text, "s.yaml");
  onnx_write::Options o;
  o.seed = 7;
  std::string one, two, other;
  onnx_write::to_onnx(net, o).SerializeToString(&one);
  onnx_write::to_onnx(net, o).SerializeToString(&two);
  o.seed = 8;
  onnx_write::to_onnx(net, o).SerializeToString(&other);
  CHECK(one == two);
  CHECK(one != other);
  o.seed = 7;
  const onnx::ModelProto m = onnx_write::to_onnx(net, o);
  for (const auto& t : m.graph().initializer()) {
    if (t.name() != "a.weight" && t.name() != "b.weight") continue;
    INFO(t.name() << " (seed 7)");
    const std::string& raw = t.raw_data();
    const std::size_t count = raw.size() / 4;
    double sum = 0, sq = 0;
    for (std::size_t i = 0; i < count; ++i) {
      float v;
      std::memcpy(&v, raw.data() + 4 * i, 4);
      sum += v;
      sq += double(v) * v;
    }
    const double fan_in = double(t.dims(1) * t.dims(2) * t.dims(3));  // C per group x ky x kx
    const double want = std::sqrt(2.0 / fan_in);
    const double sd = std::sqrt(sq / double(count) - (sum / double(count)) * (sum / double(count)));
    CHECK(sd == Approx(want).epsilon(0.03));  // 73728 or 18432 draws: the sample std is within ~1 %
    CHECK(std::abs(sum / double(count)) < 0.03 * want);
  }
}

TEST_CASE("what the writer cannot honour is an InputError and nothing is written", "[netonnx][unit]") {
  ScratchDir dir("onnx_export_bad");
  struct Bad {
    std::string text, key, says;
  };
  const std::string head = "name: x\ninput: {C: 2, H: 4, W: 4}\nlayers:\n  - {name: a, C: 2, H: 4, W: 4, K: 2, k: 1}\n";
  for (const Bad& b : {Bad{head + "  - {name: c, op: clip, C: 2, H: 4, W: 4}\n", "layers[1].op", "min and max"},
                       Bad{head + "  - {name: r, op: reshape, C: 2, H: 4, W: 4}\n", "layers[1].op", "target shape"},
                       Bad{head + "  - {name: p, op: maxpool, C: 2, H: 4, W: 4}\n", "layers[1].k", "window"},
                       Bad{head + "  - {name: u, op: upsample, C: 2, H: 4, W: 4}\n", "layers[1].s", "factor"}}) {
    INFO(b.text);
    const std::string path = dir / "x.onnx";
    const InputError e = input_error_of([&] { onnx_write::write_onnx(parse_network(b.text, "x.yaml"), {}, path); });
    CHECK(e.key() == b.key);
    CHECK_THAT(e.problem(), Catch::Contains(b.says));
    CHECK(!std::filesystem::exists(path));
  }
  // Another input size: fine for a fully convolutional network, refused where an fc layer's C is fixed.
  onnx_write::Options o;
  o.weights = "zeros";
  o.input_h = o.input_w = 32;
  const onnx::ModelProto m = onnx_write::to_onnx(load_network("arnp"), o);
  CHECK(dims(m.graph().output(0).type()) == V{1, 54, 8, 8});
  o.input_h = o.input_w = 8;
  const InputError e =
      input_error_of([&] { onnx_write::write_onnx(parse_network(head + "  - {name: f, op: fc, C: 32, K: 3}\n", "x.yaml"), o, dir / "v.onnx"); });
  CHECK(e.key() == "--input-size");
  CHECK_THAT(e.problem(), Catch::Contains("lists C = 32 but in the ONNX graph its input is 1 x 2 x 8 x 8"));
  CHECK(!std::filesystem::exists(dir / "v.onnx"));
  o = onnx_write::Options();
  o.weights = "ones";
  CHECK(input_error_of([&] { onnx_write::to_onnx(load_network("arnp"), o); }).source() == "--weights");
}

TEST_CASE("flycol onnx-export writes the file and refuses bad options with exit 2", "[netonnx][unit]") {
  ScratchDir dir("onnx_export_cli");
  const auto r = flycol::test::run_flycol_in(dir.path, "onnx-export --network arnp --weights zeros --out " + (dir / "a.onnx"));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("arnp (25 layers, 18 on the array"));
  check_file_against_network(dir / "a.onnx", load_network("arnp"));
  for (const char* bad : {"--network nope", "--network arnp --seed x", "--network arnp --weights ones",
                          "--network arnp --activations some", "--network arnp --input-size 0x4",
                          "--network arnp --input-size 12y"}) {
    flycol::test::check_usage_error(dir.path, std::string("onnx-export --out ") + (dir / "b.onnx") + " " + bad, {});
    CHECK(!std::filesystem::exists(dir / "b.onnx"));
  }
}
