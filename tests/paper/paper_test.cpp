// Tests of sim/paper: the side-by-side with the paper's Table I and Fig. 5 (docs/synth.md). It runs
// the small configuration's RTL with the power proxy at two shares of zeros (synthesis cached by
// `flycol synth`), checks what zeros do to power and schedule, and that the Markdown has every row.
#include <string>

#include <catch2/catch.hpp>

#include "sim/config/config.h"
#include "sim/config/layer.h"
#include "sim/paper/paper_table.h"
#include "sim/rtlsim/rtl_top.h"
#include "sim/synth/synth.h"

using namespace flycol;

TEST_CASE("the power proxy on the small configuration's RTL: zeros lower it, the PE array leads", "[synth]") {
  const Config cfg = load_config_by_name_or_path("small");
  bool built = false;
  for (const auto& t : built_rtl_configs()) built = built || t == "small";
  if (!built) {
    WARN("no Verilated RTL for 'small' in this build: skipped");
    return;
  }
  const synth::SynthReport s = synth::synthesize_cached(cfg, synth::default_cache_dir());
  const Layer layer = parse_layer_argument("C=8,H=6,W=8,K=8,k=3,p=1");
  const synth::ZeroRun dense = synth::run_zero_point(cfg, layer, 5, 0.0, s);
  const synth::ZeroRun half = synth::run_zero_point(cfg, layer, 5, 0.5, s);
  CHECK(dense.exact);
  CHECK(half.exact);
  CHECK(dense.cycles == half.cycles);  // zeros change the switching, not the schedule
  CHECK(half.gated_macs > dense.gated_macs);
  CHECK(dense.power.logic_total() > 0);
  CHECK(half.power.logic_total() < dense.power.logic_total());
  CHECK(half.power.block("pe_array")->total() < dense.power.block("pe_array")->total());
  double shares = 0;
  for (const auto& b : dense.power.blocks) shares += b.total() / dense.power.logic_total();
  CHECK(shares == Approx(1.0));
  CHECK(dense.power.sram_counted);
  CHECK(dense.activity.mac_steps > 0);
  // The markdown has every row of the side-by-side.
  const std::string md = synth::paper_markdown({s, cfg, layer, 5, {dense, half}, {}, {}});
  for (const char* row : {"logic gate count", "PE share of logic area", "data feeder share of total area",
                          "reserve registers, power", "zero gating, 50 %", "| **PE array** |"})
    CHECK(md.find(row) != std::string::npos);
  CHECK(md.find("pe.operand_isolation") == std::string::npos);  // no twin runs: no isolation table
  // With the twin's runs (here the same runs stand in for them) the isolation table has both rows.
  const std::string md2 = synth::paper_markdown({s, cfg, layer, 5, {dense, half}, s, {dense, half}});
  CHECK(md2.find("| `pe.operand_isolation` |") != std::string::npos);
  CHECK(md2.find("| false |") != std::string::npos);
  CHECK(md2.find("| true |") != std::string::npos);
  CHECK(synth::isolation_twin(cfg).operand_isolation != cfg.operand_isolation);
}
