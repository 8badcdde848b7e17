// SystemC module of the data feeder (RTL twin: feeder.sv), wrapping FeederCore with the RTL's
// ports. The SRAM stays outside: the module drives sram_req_o/sram_addr_o and reads the SRAM's
// held output sram_rdata_i, so a testbench (or the top) models the ifmap bank.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <systemc>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/sc_core_module.h"
#include "hw/feeder/feeder_core.h"

namespace flycol::hw {

// The RUN fields on the start port (a signal type needs ==, << and sc_trace).
struct FeederRun {
  RunDesc run;
  bool operator==(const FeederRun& o) const;
};
std::ostream& operator<<(std::ostream& os, const FeederRun& r);
void sc_trace(sc_core::sc_trace_file* tf, const FeederRun& r, const std::string& name);

// ScCoreModule: the clock and reset ports clk_i and rst_ni, core() and the comb()/seq() frame.
struct Feeder : ScCoreModule<FeederCore> {
  sc_core::sc_in<bool> start_i{"start_i"};                 // start a RUN with run_i (only when !busy_o)
  sc_core::sc_in<FeederRun> run_i{"run_i"};                // RUN fields, read when start_i
  sc_core::sc_out<bool> sram_req_o{"sram_req_o"};          // ifmap SRAM read this cycle
  sc_core::sc_out<std::uint32_t> sram_addr_o{"sram_addr_o"};  // its word address
  sc_core::sc_vector<sc_core::sc_in<word_elem_t>> sram_rdata_i;  // B elements: SRAM output (held)
  sc_core::sc_out<bool> lane_valid_o{"lane_valid_o"};      // every lane has an element
  sc_core::sc_vector<sc_core::sc_out<elem_t>> lane_data_o;  // ROWS head elements (0 when empty)
  sc_core::sc_in<bool> pop_i{"pop_i"};                     // pop one element from every lane
  sc_core::sc_out<bool> busy_o{"busy_o"};                  // reads remain or a word is in SEL

  Feeder(sc_core::sc_module_name name, const HwParams& p);

private:
  void comb() override;
  void seq() override;
  const word_elem_t* sample_rdata();

  HwParams p_;
  word_elem_t rdata_[kMaxWordElems]{};
};

}  // namespace flycol::hw
