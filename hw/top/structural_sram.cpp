// SramBankModule: one SramBank access per rising edge, from the request signals settled in the
// cycle that the edge ends.
#include "hw/top/structural_sram.h"

namespace flycol::hw {

SramBankModule::SramBankModule(sc_core::sc_module_name name, const std::string& bank_name, int depth, int elems)
    : sc_core::sc_module(name), wdata_i("wdata_i", std::size_t(elems)), rdata_o("rdata_o", std::size_t(elems)),
      bank_(bank_name, depth, elems) {
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

void SramBankModule::seq() {
  if (!req_i.read()) return;
  try {
    const int addr = int(addr_i.read());
    if (we_i.read()) {
      for (int i = 0; i < bank_.elems_per_word(); ++i) wdata_[i] = wdata_i[std::size_t(i)].read();
      bank_.write(SramBank::kCompute, addr, wdata_, wmask_i.read());
      bank_.tick();
    } else {
      bank_.read(SramBank::kCompute, addr);
      bank_.tick();
      const word_elem_t* rd = bank_.rdata();
      for (int i = 0; i < bank_.elems_per_word(); ++i) rdata_o[std::size_t(i)].write(rd[i]);
    }
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(name(), e.what());
  }
}

}  // namespace flycol::hw
