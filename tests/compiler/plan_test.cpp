// Tilings of realistic layers on the reference configuration (printed, hazard-checked, one of them
// interpreted against golden::conv), the shipped layer files on every shipped configuration, and
// every class of rejection with the key it must name.
#include <catch2/catch.hpp>

#include <chrono>

#include "tests/common/test_util.h"
#include "tests/compiler/compiler_support.h"

using namespace flycol;
using namespace flycol::test;

namespace {

Program compile_and_print(const std::string& spec, const Config& cfg, const std::string& order = "output_stationary") {
  CompileOptions o;
  o.order = order;
  const Program p = compile_layer(parse_layer_spec(spec), cfg, o);
  check_hazards(p);
  const DramTraffic t = program_traffic(p);
  fmt::print("{:<44} {}: {}\n{:<44} {} commands ({} RUN), DRAM {:.1f} kB (ifmap {:.1f}, weights {:.1f}, psums in {:.1f}, "
             "ofmap {:.1f})\n",
             spec, cfg.name, p.plan.describe(), "", p.commands.size(), p.runs, t.total() / 1024.0, t.ifmap / 1024.0,
             t.weights / 1024.0, t.psums_in / 1024.0, t.ofmap / 1024.0);
  return p;
}

Config config_text(const std::string& text) { return parse_config(text, "test.yaml"); }

}  // namespace

TEST_CASE("realistic layers on the reference configuration compile, pass the hazard checker and print their plan",
          "[compiler][plan]") {
  const Config& cfg = default_config();
  for (const char* order : {"output_stationary", "spill"}) {
    const Program r3 = compile_and_print("name=res2_3x3,C=64,H=56,W=56,K=64,k=3,p=1", cfg, order);
    CHECK(r3.plan.tw == 56);  // whole rows
    CHECK(r3.plan.tc == 64);  // no channel slices
    const Program r1 = compile_and_print("name=res2_1x1,C=256,H=56,W=56,K=64,k=1", cfg, order);
    CHECK(r1.plan.tc == 256);
    const Program stem = compile_and_print("name=stem_7x7s2,C=3,H=224,W=224,K=64,k=7,s=2,p=3", cfg, order);
    CHECK(stem.plan.tw == 112);
    const Program vgg = compile_and_print("name=vgg1_2,C=64,H=224,W=224,K=64,k=3,p=1", cfg, order);
    CHECK(vgg.plan.tiles_c > 1);  // 226-wide rows: channel slices with preload
    compile_and_print("name=res5_3x3,C=512,H=7,W=7,K=512,k=3,p=1", cfg, order);
    compile_and_print("name=dilated_3x3,C=64,H=56,W=56,K=64,k=3,d=4,p=4", cfg, order);
    compile_and_print("name=aspp_d12,C=256,H=33,W=33,K=256,k=3,d=12,p=12", cfg, order);
    const Program wide = compile_and_print("name=wide_7x7d4,C=8,H=16,W=4096,K=16,k=7,d=4,p=12", cfg, order);
    CHECK(wide.plan.tiles_w > 1);  // no whole row fits: column tiles of a multiple of ROWS
    CHECK(wide.plan.tw % 16 == 0);
  }
  compile_and_print("name=res2_3x3,C=64,H=56,W=56,K=64,k=3,p=1", with_arithmetic("int8"));
  compile_and_print("name=stem_7x7s2,C=3,H=224,W=224,K=64,k=7,s=2,p=3", with_arithmetic("int16"));
}

TEST_CASE("a mid-size ResNet layer interpreted on the reference configuration matches golden", "[compiler][plan]") {
  const auto t0 = std::chrono::steady_clock::now();
  const Program p = compile_and_print("name=res3_3x3,C=64,H=28,W=28,K=64,k=3,p=1", default_config());
  const EndToEnd r = run_end_to_end(p, 42, 0.1);
  CHECK(r.error == "");
  const Program q = compile_and_print("name=res4_3x3_int8,C=256,H=14,W=14,K=128,k=3,p=1", with_arithmetic("int8"),
                                      "spill");
  CHECK(run_end_to_end(q, 43).error == "");
  fmt::print("interpreted both in {:.2f} s\n",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

TEST_CASE("the shipped layer files compile on every shipped configuration", "[compiler][plan]") {
  const std::string layer_dir = configs_dir() + "/layers";
  std::vector<std::string> layers;
  for (const auto& e : std::filesystem::directory_iterator(layer_dir))
    if (e.path().extension() == ".yaml") layers.push_back(e.path().string());
  std::sort(layers.begin(), layers.end());
  REQUIRE(!layers.empty());
  for (const auto& cfg_path : list_config_files())
    for (const auto& layer_path : layers) {
      const Config cfg = load_config(cfg_path);
      const Layer l = parse_layer_argument(layer_path);
      INFO(cfg_path << " " << layer_path);
      try {
        for (const char* order : {"output_stationary", "spill"}) {
          CompileOptions o;
          o.order = order;
          check_hazards(compile_layer(l, cfg, o));
        }
      } catch (const InputError& e) {
        // A configuration may be too small for a layer; the error must say which key.
        fmt::print("{} on {}: rejected: {}\n", layer_path, cfg_path, e.what());
        CHECK(!e.key().empty());
      }
    }
}

TEST_CASE("field widths bound the tile sizes", "[compiler][plan]") {
  // 65536 channels would overflow n_c; one LOAD_WEIGHTS row of Tc x COLS weights must stay
  // within 16 bits, so Tc <= 4095 here even though the SRAMs could hold more.
  const Config cfg = config_text("sram:\n  ifmap: { kbytes: 4096 }\n  weights: { kbytes: 2048 }\n");
  const Program p = compile_layer(parse_layer_spec("C=65536,H=1,W=1,K=16,k=1"), cfg);
  CHECK(p.plan.tc <= 4095);
  CHECK(p.plan.tiles_c >= 17);
  REQUIRE(run_end_to_end(p, 7).error == "");
}

TEST_CASE("a kernel wider than the pattern is rejected naming feeder.pattern_bits", "[compiler][reject]") {
  const Config cfg = small_config();  // 32-bit pattern
  const InputError e = input_error_of([&] { compile_layer(parse_layer_spec("C=4,H=40,W=40,K=4,ky=1,kx=7,dy=1,dx=6"), cfg); });
  CHECK(e.source() == cfg.source);
  CHECK(e.key() == "feeder.pattern_bits");
  const std::string m = e.what();
  CHECK_THAT(m, Catch::Contains("= 37") && Catch::Contains("at most 32 columns") &&
                    Catch::Contains("largest dilation is dx = 5"));
}

TEST_CASE("a kernel row wider than a feed lane holds is split into chunks and runs", "[compiler][chunks]") {
  // Reference lanes hold fifo_depth x M = 4 x 3 = 12 elements (microarchitecture 9.2): a kernel row
  // of kx > 12 columns becomes ceil(kx / 12) chunks of even width; kx <= 12 is not split. Each
  // program is interpreted on its DRAM image and compared with the golden convolution.
  const Config& cfg = default_config();
  struct Case {
    const char* spec;
    std::uint32_t n_kxc, kc, last;
  };
  const Case cases[] = {
      {"C=2,H=4,W=40,K=4,ky=1,kx=12", 1, 12, 12},          {"C=2,H=4,W=40,K=4,ky=1,kx=13", 2, 7, 6},
      {"C=2,H=2,W=80,K=4,ky=1,kx=16,p=0", 2, 8, 8},        {"C=2,H=2,W=80,K=4,ky=1,kx=32", 3, 11, 10},
      {"C=3,H=2,W=100,K=20,ky=1,kx=64,pt=0,pb=0,pl=3,pr=3", 6, 11, 9},   {"C=2,H=70,W=70,K=4,k=7,d=10", 1, 7, 7},
      {"C=2,H=8,W=90,K=4,ky=2,kx=21,dy=1,dx=3,sy=1,sx=2", 2, 11, 10},
      {"C=2,H=4,W=80,K=4,ky=1,kx=32,dy=1,dx=2", 3, 11, 10},
  };
  for (const Case& c : cases) {
    INFO(c.spec);
    const Program p = compile_layer(parse_layer_spec(c.spec), cfg);
    const Layer& l = p.layer;
    for (const hw::Command& cmd : p.commands) {
      if (cmd.op != hw::Opcode::Run) continue;
      const hw::RunDesc& r = cmd.run;
      CHECK(r.n_kx == std::uint32_t(l.kx));
      CHECK(r.n_kxc == c.n_kxc);
      CHECK(std::uint32_t(__builtin_popcountll(r.pattern)) == c.last);
      CHECK(r.region == std::uint32_t(15 * l.sx + (int(c.last) - 1) * l.dx + 1));
      if (c.n_kxc > 1) {
        CHECK(std::uint32_t(__builtin_popcountll(r.pattern_kxc)) == c.kc);
        CHECK(r.step_kxc == c.kc * std::uint32_t(l.dx));
        CHECK(r.region_kxc == std::uint32_t(15 * l.sx + (int(c.kc) - 1) * l.dx + 1));
      }
    }
    REQUIRE(run_end_to_end(p, 11).error == "");
  }
  // The old rule is gone: no message about deadlocking lanes, fifo_depth is no longer a kernel limit.
  CHECK_NOTHROW(compile_layer(parse_layer_spec("C=1,H=1,W=64,K=1,ky=1,kx=64"), cfg));
}

TEST_CASE("a dilated kernel row wider than the 64-bit pattern is still rejected", "[compiler][reject]") {
  // (kx - 1) * dx + 1 = 65 > 64 on the reference configuration: chunks do not lift the pattern limit.
  const Config& cfg = default_config();
  const InputError e =
      input_error_of([&] { compile_layer(parse_layer_spec("C=2,H=4,W=80,K=4,ky=1,kx=33,dy=1,dx=2"), cfg); });
  CHECK(e.key() == "feeder.pattern_bits");
  CHECK_THAT(std::string(e.what()), Catch::Contains("= 65") && Catch::Contains("at most 64 columns"));
  CHECK_THAT(std::string(e.what()), !Catch::Contains("deadlock") && !Catch::Contains("fifo_depth"));
}

TEST_CASE("a layer whose smallest tile does not fit is rejected naming the SRAM", "[compiler][reject]") {
  // Per SRAM: a configuration whose buffer is too small for the layer's smallest tile, and what
  // the message must say (the words needed, what one buffer holds, the kB to ask for).
  struct Case {
    const char *sram, *config, *layer;
    std::vector<const char*> words;
  };
  const Case cases[] = {
      {"ifmap",
       "array: { rows: 4, cols: 4 }\nsram:\n  ifmap: { kbytes: 1, word_bits: 64 }\n"
       "  weights: { kbytes: 2, word_bits: 64 }\n  psums: { kbytes: 2, word_bits: 64 }\nfeeder: { pattern_bits: 32 }\n",
       "C=1,H=40,W=40,K=1,k=7,d=4",
       {"175 ifmap words", "holds 128", "at least 2 kB"}},
      {"weights",
       "array: { rows: 4, cols: 4 }\nsram:\n  ifmap: { kbytes: 2, word_bits: 64 }\n"
       "  weights: { kbytes: 1, word_bits: 64 }\n  psums: { kbytes: 2, word_bits: 64 }\nfeeder: { pattern_bits: 32 }\n",
       "C=1,H=20,W=20,K=1,k=12",
       {"144 weight words", "holds 128"}},
      {"psums",
       "array: { rows: 64, cols: 8 }\narithmetic: int8\nsram:\n  ifmap: { word_bits: 64 }\n"
       "  weights: { word_bits: 64 }\n  psums: { kbytes: 1, word_bits: 2048 }\n",
       "C=1,H=8,W=8,K=8,k=1",
       {"8 psum words", "holds 4"}},
  };
  for (const Case& c : cases) {
    INFO(c.sram);
    const Config cfg = config_text(c.config);
    const InputError e = input_error_of([&] { compile_layer(parse_layer_spec(c.layer), cfg); });
    CHECK(e.source() == "test.yaml");
    CHECK(e.key() == std::string("sram.") + c.sram + ".kbytes");
    for (const char* w : c.words) CHECK_THAT(std::string(e.what()), Catch::Contains(w));
  }
}

TEST_CASE("a layer that would overflow a command field is rejected naming the layer key", "[compiler][reject]") {
  // 64 x 64 kernel x 16 columns = 65536 weights per channel: one LOAD_WEIGHTS row cannot hold them.
  // (A 64-wide kernel row runs in chunks, so the field limit is what trips.)
  const Config cfg = config_text("sram:\n  weights: { kbytes: 128 }\n");
  const Layer l = parse_layer_spec("name=huge,C=1,H=64,W=64,K=1,k=64");
  const InputError e = input_error_of([&] { compile_layer(l, cfg); });
  CHECK(e.key() == "ky");
  CHECK_THAT(e.source(), Catch::Contains("huge"));
  CHECK_THAT(std::string(e.what()), Catch::Contains("row_len = 65536") && Catch::Contains("at most 65535"));
}

TEST_CASE("bad compile options are rejected naming the option", "[compiler][reject]") {
  const Config& cfg = default_config();
  const Layer l = parse_layer_spec("C=64,H=56,W=56,K=64,k=3,p=1");
  const auto error_for = [&](CompileOptions o) { return input_error_of([&] { compile_layer(l, cfg, o); }); };
  CompileOptions o;
  o.tile_c = 65;
  CHECK(error_for(o).key() == "tile_c");
  o = {};
  o.tile_kg = 5;
  CHECK(error_for(o).key() == "tile_kg");
  o = {};
  o.tile_h = -1;
  CHECK(error_for(o).key() == "tile_h");
  o = {};
  o.tile_w = 20;  // not a multiple of 16 and not the whole row
  CHECK(error_for(o).key() == "tile_w");
  o = {};
  o.order = "zigzag";
  CHECK(error_for(o).key() == "order");
  o = {};
  o.tile_c = 64;
  o.tile_h = 56;  // the psums of 56 rows do not fit
  const InputError e = error_for(o);
  CHECK(e.source() == "compile options");
  CHECK(e.key() == "tile_h");
  CHECK_THAT(std::string(e.what()), Catch::Contains("largest tile_h that fits is 2") && Catch::Contains("sram."));
  o = {};
  o.tile_w = 16;
  o.tile_c = 7;
  o.tile_kg = 2;
  o.tile_h = 3;
  const Program p = compile_layer(l, cfg, o);  // forced values that fit are taken as they are
  CHECK(p.plan.tw == 16);
  CHECK(p.plan.tc == 7);
  CHECK(p.plan.n_kg == 2);
  CHECK(p.plan.th == 3);
  CHECK(p.plan.tiles_c == 10);
  check_hazards(p);
}
