// PS engine core: routes a LOAD_PSUMS to the shared load path (accumulator-wide elements, ROWS
// per psum word) and a STORE_PSUMS to the store path, whose chunks go to the memory arbiter or,
// with dst_ifmap, to an ifmap buffer when the LD engine leaves the ifmap port free.
#include "hw/dma/psum_engine.h"

#include <string>

namespace flycol::hw {

PsumEngine::PsumEngine(const HwParams& p) : p_(p), loader_("ps engine load"), store_("ps engine store") {
  reset();
}

void PsumEngine::reset() {
  loader_.reset();
  store_.reset();
  buf_q_ = buf_start_ = 0;
  dst_buf_q_ = dst_buf_start_ = 0;
  start_req_ = false;
}

void PsumEngine::start(const Command& c) {
  if (c.op != Opcode::LoadPsums && c.op != Opcode::StorePsums)
    protocol_error("ps engine", std::string("cannot execute ") + opcode_name(c.op));
  if (busy()) protocol_error("ps engine", "start while busy");
  if (c.dma.buf >= p_.psum_buffers || c.dma.buf > 1) protocol_error("ps engine", "buffer index out of range");
  if (c.dma.pad_value != 0)
    protocol_error("ps engine", std::string(opcode_name(c.op)) + " with a padding value (LOAD_IFMAP only)");
  // Section 7.6: into an ifmap buffer only a STORE_PSUMS, only where a partial sum is an element
  // (no requantizer), and dst_buf only with it.
  const DmaDesc& d = c.dma;
  if (!d.dst_ifmap && d.dst_buf != 0) protocol_error("ps engine", "dst_buf without dst_ifmap");
  if (d.dst_ifmap) {
    if (c.op != Opcode::StorePsums)
      protocol_error("ps engine", std::string(opcode_name(c.op)) + " with dst_ifmap (STORE_PSUMS only)");
    if (p_.acc_bits != p_.elem_bits)
      protocol_error("ps engine", "dst_ifmap: " + std::to_string(p_.acc_bits) + "-bit partial sums cannot become " +
                                      std::to_string(p_.elem_bits) + "-bit ifmap elements");
    if (d.dst_buf >= p_.ifmap_buffers || d.dst_buf > 1) protocol_error("ps engine", "ifmap buffer index out of range");
  }
  StreamShape s;
  s.elem_bytes = p_.acc_bytes();
  s.elems_per_word = p_.rows;
  s.depth_words = p_.psum_depth;
  StreamShape dst;
  dst.elem_bytes = p_.elem_bytes();
  dst.elems_per_word = p_.bus_elems;
  dst.depth_words = p_.ifmap_depth;
  if (c.op == Opcode::LoadPsums)
    loader_.start(d, s);
  else
    store_.start(d, s, d.dst_ifmap ? &dst : nullptr);
  start_req_ = true;
  buf_start_ = d.buf;
  dst_buf_start_ = d.dst_buf;
}

void PsumEngine::eval(bool req_fired, const MemRsp* rsp, SramBank* const psum_banks[2],
                      SramBank* const ifmap_banks[2], bool ld_writes_ifmap) {
  if (req_fired && !req_valid()) protocol_error("ps engine", "request fired while req_valid is low");
  SramBank* bank = psum_banks ? psum_banks[buf_q_] : nullptr;
  // Only the busy path can have a request; the other one sees no fire. A store into the ifmap
  // buffer fires whenever it has a chunk and the LD engine's packer leaves the ifmap port free.
  loader_.eval(req_fired && loader_.req_valid(), rsp, bank);
  const bool store_fired =
      store_.to_ifmap() ? store_.req_valid() && !ld_writes_ifmap : req_fired && store_.req_valid();
  store_.eval(store_fired, bank, ifmap_banks ? ifmap_banks[dst_buf_q_] : nullptr);
}

void PsumEngine::tick() {
  if (busy()) ++busy_cycles_;
  loader_.tick();
  store_.tick();
  if (start_req_) {
    start_req_ = false;
    buf_q_ = buf_start_;
    dst_buf_q_ = dst_buf_start_;
    ++commands_;
  }
}

}  // namespace flycol::hw
