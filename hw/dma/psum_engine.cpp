// PS engine core: routes a LOAD_PSUMS to the shared load path (accumulator-wide elements, ROWS
// per psum word) and a STORE_PSUMS to the store path.
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
  start_req_ = false;
}

void PsumEngine::start(const Command& c) {
  if (c.op != Opcode::LoadPsums && c.op != Opcode::StorePsums)
    protocol_error("ps engine", std::string("cannot execute ") + opcode_name(c.op));
  if (busy()) protocol_error("ps engine", "start while busy");
  if (c.dma.buf >= p_.psum_buffers || c.dma.buf > 1) protocol_error("ps engine", "buffer index out of range");
  if (c.dma.pad_value != 0)
    protocol_error("ps engine", std::string(opcode_name(c.op)) + " with a padding value (LOAD_IFMAP only)");
  StreamShape s;
  s.elem_bytes = p_.acc_bytes();
  s.elems_per_word = p_.rows;
  s.depth_words = p_.psum_depth;
  if (c.op == Opcode::LoadPsums)
    loader_.start(c.dma, s);
  else
    store_.start(c.dma, s);
  start_req_ = true;
  buf_start_ = c.dma.buf;
}

void PsumEngine::eval(bool req_fired, const MemRsp* rsp, SramBank* const psum_banks[2]) {
  if (req_fired && !req_valid()) protocol_error("ps engine", "request fired while req_valid is low");
  SramBank* bank = psum_banks ? psum_banks[buf_q_] : nullptr;
  // Only the busy path can have a request; the other one sees no fire.
  loader_.eval(req_fired && loader_.req_valid(), rsp, bank);
  store_.eval(req_fired && store_.req_valid(), bank);
}

void PsumEngine::tick() {
  if (busy()) ++busy_cycles_;
  loader_.tick();
  store_.tick();
  if (start_req_) {
    start_req_ = false;
    buf_q_ = buf_start_;
    ++commands_;
  }
}

}  // namespace flycol::hw
