// The core view of a block that works on an SRAM bank (the weight fetcher, the psum manager):
// its C++ core on an hw::SramBank, the reset that also restarts the bench's SRAM counts, the
// clock edge, and the offer of inputs the core must refuse. A bench's CoreView derives from it
// (CRTP) and adds step(d), the block's inputs of one cycle, and its outputs.
#pragma once

#include <cstdint>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"
#include "hw/common/sram_bank.h"
#include "tb/common/check.h"

namespace flycol::tb {

template <class View, class Core, class Drive>
class SramCoreView {
public:
  SramCoreView(const hw::HwParams& p, const char* bank, int depth, int elems_per_word)
      : core_(p), bank_(bank, depth, elems_per_word) {}

  void drive(const Drive& d) { d_ = d; }
  // A reset clears the core; otherwise a RUN may start, the view applies the cycle's inputs
  // (View::step) and the core and the bank take the edge.
  void edge(const Drive& d) {
    if (!d.rst_n) {
      core_.reset();
      base_reads_ = bank_.reads();
      base_writes_ = bank_.writes();
      return;
    }
    if (d.start) core_.start(d.run);
    static_cast<View*>(this)->step(d);
    core_.tick();
    bank_.tick();
  }
  bool fault() { return false; }
  bool busy() { return core_.busy(); }
  // SRAM accesses since the last reset.
  std::uint64_t reads() const { return bank_.reads() - base_reads_; }
  std::uint64_t writes() const { return bank_.writes() - base_writes_; }
  void poke(int addr, int elem, hw::word_elem_t v) { bank_.poke(addr, elem, v); }

  // The core refuses with a ProtocolError, which needs no announcement.
  void expect_refusals_begin() {}
  void expect_refusals_end() {}
  bool offer_once(const Drive& d) {
    const bool refused = throws<hw::ProtocolError>([&] { edge(d); });
    if (bank_.busy_this_cycle()) bank_.tick();  // a throw from tick() leaves the request pending
    return refused;
  }

protected:
  Core core_;
  hw::SramBank bank_;
  Drive d_;

private:
  std::uint64_t base_reads_ = 0, base_writes_ = 0;
};

}  // namespace flycol::tb
