// SC_MODULE Dma: evaluates the arbiter and both engine cores in dependency order (engine requests
// are Moore, so the arbiter goes first and the engines then see their fire and response; the LD
// engine before the PS engine, whose store into the ifmap buffer yields the ifmap port to it).
#include "hw/dma/dma.h"

#include <cstring>

#include <fmt/format.h>

namespace flycol::hw {

bool operator==(const DmaCmd& a, const DmaCmd& b) {
  const DmaDesc& x = a.dma;
  const DmaDesc& y = b.dma;
  return a.op == b.op && x.buf == y.buf && x.dram_addr == y.dram_addr && x.n_planes == y.n_planes &&
         x.plane_stride == y.plane_stride && x.n_rows == y.n_rows && x.row_stride == y.row_stride &&
         x.row_len == y.row_len && x.pad_left == y.pad_left && x.pad_right == y.pad_right &&
         x.pad_top == y.pad_top && x.pad_bottom == y.pad_bottom && x.tail == y.tail &&
         x.elem_step == y.elem_step && x.pad_value == y.pad_value &&
         x.dst_ifmap == y.dst_ifmap && x.dst_buf == y.dst_buf;
}

std::ostream& operator<<(std::ostream& os, const DmaCmd& c) { return os << c.command().to_string(); }

void bytes_to_beat(const std::uint8_t* bytes, MemBeatBits& bv) {
  for (int w = 0; w < kBeatBytes / 4; ++w) {
    std::uint32_t v;
    std::memcpy(&v, bytes + 4 * w, 4);  // little endian host, as the byte lanes are
    bv.set_word(w, v);
  }
}

void beat_to_bytes(const MemBeatBits& bv, std::uint8_t* bytes) {
  for (int w = 0; w < kBeatBytes / 4; ++w) {
    const std::uint32_t v = bv.get_word(w);
    for (int b = 0; b < 4; ++b) bytes[4 * w + b] = std::uint8_t(v >> (8 * b));
  }
}

Dma::Dma(sc_core::sc_module_name name, const HwParams& p, SramBank* const ifmap_banks[2],
         SramBank* const weight_banks[2], SramBank* const psum_banks[2], bool tick_banks)
    : sc_module(name), ld_(p), ps_(p), tick_banks_(tick_banks), rows_(p.rows) {
  for (int i = 0; i < 2; ++i) {
    ifmap_[i] = ifmap_banks[i];
    weights_[i] = weight_banks[i];
    psums_[i] = psum_banks[i];
  }
  // Each SRAM port's outputs (k: ifmap, weights, psums) to the unused signals of its own.
  auto unused = [this](int k, auto& req, auto& we, auto& addr, auto& wmask) {
    req(unused_req_[k]);
    we(unused_we_[k]);
    addr(unused_addr_[k]);
    wmask(unused_wmask_[k]);
  };
  unused(0, ifmap_req_o, ifmap_we_o, ifmap_addr_o, ifmap_wmask_o);
  unused(1, weight_req_o, weight_we_o, weight_addr_o, weight_wmask_o);
  unused(2, psum_req_o, psum_we_o, psum_addr_o, psum_wmask_o);
  init();
}

Dma::Dma(sc_core::sc_module_name name, const HwParams& p)
    : sc_module(name), ld_(p), ps_(p), tick_banks_(false), port_mode_(true), rows_(p.rows) {
  for (int i = 0; i < 2; ++i) {
    port_banks_[0][i] = std::make_unique<SramBank>(fmt::format("ifmap_port{}", i), p.ifmap_depth, p.bus_elems);
    port_banks_[1][i] = std::make_unique<SramBank>(fmt::format("weight_port{}", i), p.weight_depth, p.cols);
    port_banks_[2][i] = std::make_unique<SramBank>(fmt::format("psum_port{}", i), p.psum_depth, p.rows);
    ifmap_[i] = port_banks_[0][i].get();
    weights_[i] = port_banks_[1][i].get();
    psums_[i] = port_banks_[2][i].get();
  }
  ifmap_wdata_o.init(std::size_t(p.bus_elems));
  weight_wdata_o.init(std::size_t(p.cols));
  psum_wdata_o.init(std::size_t(p.rows));
  psum_rdata_i.init(std::size_t(2 * p.rows));
  init();
}

void Dma::init() {
  SC_METHOD(comb);
  sensitive << mem_req_ready_i << mem_rsp_valid_i << mem_rsp_rdata_i << state_changed_;
  for (auto& in : psum_rdata_i) sensitive << in;
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

void Dma::eval_cores() {
  if (port_mode_) {
    // The held read data of both psum buffers, for STORE_PSUMS (the engines read bank->rdata()).
    word_elem_t rd[kMaxWordElems];
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < rows_; ++i) rd[i] = psum_rdata_i[std::size_t(b * rows_ + i)].read();
      port_banks_[2][b]->load_rdata(rd);
    }
  }
  const bool rsp_valid = mem_rsp_valid_i.read();
  if (rsp_valid) beat_to_bytes(mem_rsp_rdata_i.read(), rsp_.rdata);
  arb_.eval(ld_.req_valid(), ld_.req(), ps_.req_valid(), ps_.req(), mem_req_ready_i.read(), rsp_valid);
  ld_.eval(arb_.fired(0), arb_.rsp_to() == 0 ? &rsp_ : nullptr, ifmap_, weights_);
  ps_.eval(arb_.fired(1), arb_.rsp_to() == 1 ? &rsp_ : nullptr, psums_, ifmap_, ld_.writes_ifmap());
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
  bytes_to_beat(r.wdata, bv);
  mem_req_wdata_o.write(bv);
  if (port_mode_) {
    drive_sram_ports();
    drop_port_requests();
  }
}

// One SRAM port per kind, shared by its two buffers as in dma.sv: the request bits say which
// buffer; address, data and mask are the requesting buffer's (zero without a request). The ifmap
// port carries the LD engine's write or, in a cycle without one, a PS store's (section 7.6).
void Dma::drive_sram_ports() {
  sc_core::sc_out<unsigned>* req[3] = {&ifmap_req_o, &weight_req_o, &psum_req_o};
  sc_core::sc_out<bool>* we[3] = {&ifmap_we_o, &weight_we_o, &psum_we_o};
  sc_core::sc_out<std::uint32_t>* addr[3] = {&ifmap_addr_o, &weight_addr_o, &psum_addr_o};
  sc_core::sc_vector<sc_core::sc_out<word_elem_t>>* wdata[3] = {&ifmap_wdata_o, &weight_wdata_o, &psum_wdata_o};
  sc_core::sc_out<std::uint64_t>* wmask[3] = {&ifmap_wmask_o, &weight_wmask_o, &psum_wmask_o};
  for (int k = 0; k < 3; ++k) {
    unsigned bits = 0;
    const SramBank* active = nullptr;
    for (int b = 0; b < 2; ++b) {
      const SramBank& bank = *port_banks_[k][b];
      if (bank.pending_read() || bank.pending_write()) {
        bits |= 1u << b;
        active = &bank;
      }
    }
    req[k]->write(bits);
    const bool write = active && active->pending_write();
    we[k]->write(write);
    addr[k]->write(active ? std::uint32_t(active->pending_addr()) : 0u);
    auto& wd = *wdata[k];
    for (std::size_t i = 0; i < wd.size(); ++i) wd[i].write(write ? active->pending_wdata()[i] : 0u);
    wmask[k]->write(write ? active->pending_mask() : 0u);
  }
}

void Dma::drop_port_requests() {
  for (auto& kind : port_banks_)
    for (auto& bank : kind) bank->drop_request();
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
      if (port_mode_) drop_port_requests();  // the SRAM banks outside perform them
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
