// Unit tests of the energy model (sim/energy): the calibration on the paper's chip, the
// configurable figures, and the report section of `flycol run`.
#include <catch2/catch.hpp>

#include "sim/config/config.h"
#include "sim/energy/energy.h"

using namespace flycol;

TEST_CASE("the calibrated MAC energy gives the reference chip 258 mW at peak", "[energy]") {
  const Config& cfg = default_config();
  CHECK(cfg.energy.mac_calibrated());
  // One second at peak: every cycle a MAC step and the reference SRAM traffic.
  energy::Activity a;
  a.mac_steps = std::uint64_t(energy::kRefClockHz);
  const double sram_words_per_cycle = energy::kRefSramBitsPerCycle / 256.0;
  a.sram_words[0] = std::uint64_t(energy::kRefClockHz * sram_words_per_cycle);
  const energy::Estimate e = energy::estimate(cfg, a);
  CHECK(e.core_j + e.sram_j == Approx(energy::kRefPowerW).epsilon(1e-6));
  CHECK(energy::mac_pj(cfg) == Approx(energy::pe_pj_per_step()));
  CHECK(energy::pe_pj_per_step() == Approx(1.7325).epsilon(1e-4));
  CHECK(cfg.peak_gflops() == Approx(284.16));
}

TEST_CASE("the energy figures come from the configuration", "[energy]") {
  Config cfg = parse_config("energy: { mac_pj: 2.5, sram_pj_per_bit: 0.1 }\ndram: { energy_pj_per_byte: 60 }\n", "t.yaml");
  energy::Activity a;
  a.mac_steps = 1000;
  a.sram_words[1] = 10;
  a.dram_bytes = 100;
  const energy::Estimate e = energy::estimate(cfg, a);
  CHECK(e.core_j == Approx(1000.0 * 256 * 2.5e-12));
  CHECK(e.sram_j == Approx(10.0 * 256 * 0.1e-12));
  CHECK(e.dram_j == Approx(100.0 * 60e-12));
  // A calibrated MAC energy follows the SRAM figure, so that the reference chip keeps 258 mW.
  const Config cal = parse_config("energy: { sram_pj_per_bit: 0.1 }\n", "t.yaml");
  CHECK(energy::mac_pj(cal) == Approx(energy::calibrated_mac_pj(0.1)));
  CHECK(energy::calibrated_mac_pj(0.1) < energy::calibrated_mac_pj(0.05));
}

TEST_CASE("the run report's energy section", "[energy]") {
  const Config& cfg = default_config();
  energy::Activity a;
  a.mac_steps = 100;
  a.sram_words[0] = 5;
  a.dram_bytes = 32;
  const std::string j = energy::run_json(cfg, a, 1e-6).dump(0);
  CHECK(j.find("\"core_uj\"") != std::string::npos);
  CHECK(j.find("\"average_mw\"") != std::string::npos);
  CHECK(j.find("calibrated") != std::string::npos);
  const std::string no_sram = energy::run_json(cfg, a, 1e-6, false).dump(0);
  CHECK(no_sram.find("\"sram_uj\": null") != std::string::npos);
  CHECK(energy::run_text(cfg, a, 1e-6, false).find("not counted") != std::string::npos);
}
