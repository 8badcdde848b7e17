// SC_MODULE SramBankModule: the signal-level twin of sram_bank.sv for the structural top, a
// SramBank (storage, counters, backdoor) behind request/read-data signals: the request seen at a
// rising edge is performed there, and the read data it returns is held until the next read.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sram_bank.h"

namespace flycol::hw {

SC_MODULE(SramBankModule) {
  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> req_i{"req_i"};                        // access this cycle
  sc_core::sc_in<bool> we_i{"we_i"};                          // 1 write, 0 read
  sc_core::sc_in<std::uint32_t> addr_i{"addr_i"};             // word address
  sc_core::sc_vector<sc_core::sc_in<word_elem_t>> wdata_i;    // write word
  sc_core::sc_in<std::uint64_t> wmask_i{"wmask_i"};           // element i written where bit i is set
  sc_core::sc_vector<sc_core::sc_out<word_elem_t>> rdata_o;   // word of the last read (held)

  SramBankModule(sc_core::sc_module_name name, const std::string& bank_name, int depth, int elems);
  SC_HAS_PROCESS(SramBankModule);

  SramBank& bank() { return bank_; }
  const SramBank& bank() const { return bank_; }

private:
  void seq();

  SramBank bank_;
  word_elem_t wdata_[kMaxWordElems]{};
};

}  // namespace flycol::hw
