// SC_MODULE Dma: evaluates the arbiter and both engine cores in dependency order (engine requests
// are Moore, so the arbiter goes first and the engines then see their fire and response).
#include "hw/dma/dma.h"

#include <cstring>

namespace flycol::hw {

bool operator==(const DmaCmd& a, const DmaCmd& b) {
  const DmaDesc& x = a.dma;
  const DmaDesc& y = b.dma;
  return a.op == b.op && x.buf == y.buf && x.dram_addr == y.dram_addr && x.n_planes == y.n_planes &&
         x.plane_stride == y.plane_stride && x.n_rows == y.n_rows && x.row_stride == y.row_stride &&
         x.row_len == y.row_len && x.pad_left == y.pad_left && x.pad_right == y.pad_right &&
         x.pad_top == y.pad_top && x.pad_bottom == y.pad_bottom && x.tail == y.tail;
}

std::ostream& operator<<(std::ostream& os, const DmaCmd& c) { return os << c.command().to_string(); }

namespace {

void to_beat(const std::uint8_t* bytes, MemBeatBits& bv) {
  for (int w = 0; w < kBeatBytes / 4; ++w) {
    std::uint32_t v;
    std::memcpy(&v, bytes + 4 * w, 4);  // little endian host, as the byte lanes are
    bv.set_word(w, v);
  }
}

void from_beat(const MemBeatBits& bv, std::uint8_t* bytes) {
  for (int w = 0; w < kBeatBytes / 4; ++w) {
    const std::uint32_t v = bv.get_word(w);
    for (int b = 0; b < 4; ++b) bytes[4 * w + b] = std::uint8_t(v >> (8 * b));
  }
}

}  // namespace

Dma::Dma(sc_core::sc_module_name name, const HwParams& p, SramBank* const ifmap_banks[2],
         SramBank* const weight_banks[2], SramBank* const psum_banks[2], bool tick_banks)
    : sc_module(name), ld_(p), ps_(p), tick_banks_(tick_banks) {
  for (int i = 0; i < 2; ++i) {
    ifmap_[i] = ifmap_banks[i];
    weights_[i] = weight_banks[i];
    psums_[i] = psum_banks[i];
  }
  SC_METHOD(comb);
  sensitive << mem_req_ready_i << mem_rsp_valid_i << mem_rsp_rdata_i << state_changed_;
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

void Dma::eval_cores() {
  const bool rsp_valid = mem_rsp_valid_i.read();
  if (rsp_valid) from_beat(mem_rsp_rdata_i.read(), rsp_.rdata);
  arb_.eval(ld_.req_valid(), ld_.req(), ps_.req_valid(), ps_.req(), mem_req_ready_i.read(), rsp_valid);
  ld_.eval(arb_.fired(0), arb_.rsp_to() == 0 ? &rsp_ : nullptr, ifmap_, weights_);
  ps_.eval(arb_.fired(1), arb_.rsp_to() == 1 ? &rsp_ : nullptr, psums_);
}

void Dma::comb() {
  try {
    eval_cores();
  } catch (const ProtocolError&) {
    // Inputs may be inconsistent in an intermediate delta cycle (a response from the previous
    // cycle seen against this cycle's state); seq() evaluates the settled inputs and reports.
  }
  ld_busy_o.write(ld_.busy());
  ld_done_o.write(ld_.done());
  ps_busy_o.write(ps_.busy());
  ps_done_o.write(ps_.done());
  mem_req_valid_o.write(arb_.mem_req_valid());
  const MemReq& r = arb_.mem_req();
  mem_req_write_o.write(r.write);
  mem_req_addr_o.write(r.addr);
  mem_req_bytes_o.write(r.bytes);
  MemBeatBits bv;
  to_beat(r.wdata, bv);
  mem_req_wdata_o.write(bv);
}

void Dma::seq() {
  try {
    if (!rst_ni.read()) {
      ld_.reset();
      ps_.reset();
      arb_.reset();
    } else {
      eval_cores();
      if (ld_start_i.read()) ld_.start(ld_cmd_i.read().command());
      if (ps_start_i.read()) ps_.start(ps_cmd_i.read().command());
      arb_.tick();
      ld_.tick();
      ps_.tick();
      if (tick_banks_) {
        for (SramBank* const* set : {ifmap_, weights_, psums_})
          for (int i = 0; i < 2; ++i)
            if (set[i]) set[i]->tick();
      }
    }
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR("flycol/dma", e.what());
  }
  state_changed_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace flycol::hw
