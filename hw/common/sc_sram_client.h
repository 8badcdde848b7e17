// How an SRAM client block's SystemC module reaches its bank, in one of two modes. Bank mode (the
// block testbench): the module is handed the bank and ticks it at the edge. Port mode (the
// structural top): the bank is outside; a stand-in bank collects the core's request, the module
// copies it to its SRAM port signals and drops it, and the port's held read data is loaded back.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <systemc>

#include "hw/common/hw_params.h"
#include "hw/common/sram_bank.h"

namespace flycol::hw {

class ScSramClient {
public:
  // Bank mode.
  explicit ScSramClient(SramBank& bank) : bank_(bank) {}
  // Port mode: the stand-in bank has the outside bank's shape.
  ScSramClient(std::string port_name, int depth, int elems_per_word)
      : port_(std::make_unique<SramBank>(std::move(port_name), depth, elems_per_word)), bank_(*port_) {}

  bool port_mode() const { return port_ != nullptr; }
  // The bank the core uses at the edge: the real one, or the stand-in.
  SramBank& bank() { return bank_; }
  // Port mode only: the stand-in whose request goes to the port signals.
  SramBank& port() { return *port_; }

  // Port mode: the held read data from the port's signals into the stand-in.
  void load_rdata(const sc_core::sc_vector<sc_core::sc_in<word_elem_t>>& rdata) {
    for (std::size_t i = 0; i < rdata.size(); ++i) rdata_[i] = rdata[i].read();
    port_->load_rdata(rdata_);
  }
  // After the core's tick: the bank outside performs the port's request; our own bank ticks.
  void end_edge() {
    if (port_)
      port_->drop_request();
    else
      bank_.tick();
  }

  // Bank mode: the SRAM port outputs, unused, are bound to signals of their own here.
  void bind_unused(sc_core::sc_out<bool>& req, sc_core::sc_out<std::uint32_t>& addr) {
    req(unused_req_);
    addr(unused_addr_);
  }
  void bind_unused(sc_core::sc_out<bool>& req, sc_core::sc_out<bool>& we, sc_core::sc_out<std::uint32_t>& addr,
                   sc_core::sc_out<std::uint64_t>& wmask) {
    bind_unused(req, addr);
    we(unused_we_);
    wmask(unused_wmask_);
  }

private:
  std::unique_ptr<SramBank> port_;
  SramBank& bank_;
  word_elem_t rdata_[kMaxWordElems]{};
  sc_core::sc_signal<bool> unused_req_{"unused_req"}, unused_we_{"unused_we"};
  sc_core::sc_signal<std::uint32_t> unused_addr_{"unused_addr"};
  sc_core::sc_signal<std::uint64_t> unused_wmask_{"unused_wmask"};
};

}  // namespace flycol::hw
