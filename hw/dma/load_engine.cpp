// LD engine core: picks the destination buffer and element geometry of a LOAD_IFMAP or
// LOAD_WEIGHTS command and runs it on the shared load path.
#include "hw/dma/load_engine.h"

namespace flycol::hw {

LoadEngine::LoadEngine(const HwParams& p) : p_(p), loader_("ld engine") { reset(); }

void LoadEngine::reset() {
  loader_.reset();
  weights_q_ = weights_start_ = false;
  buf_q_ = buf_start_ = 0;
  start_req_ = false;
}

void LoadEngine::start(const Command& c) {
  if (c.op != Opcode::LoadIfmap && c.op != Opcode::LoadWeights)
    protocol_error("ld engine", std::string("cannot execute ") + opcode_name(c.op));
  const bool weights = c.op == Opcode::LoadWeights;
  const int buffers = weights ? p_.weight_buffers : p_.ifmap_buffers;
  if (c.dma.buf >= buffers || c.dma.buf > 1) protocol_error("ld engine", "buffer index out of range");
  StreamShape s;
  s.elem_bytes = p_.elem_bytes();
  s.elems_per_word = weights ? p_.cols : p_.bus_elems;
  s.depth_words = weights ? p_.weight_depth : p_.ifmap_depth;
  s.max_elem_step = weights ? 1 : kMaxElemStep;  // only ifmap rows are gathered (strided 1 x 1 layers)
  if (weights && c.dma.pad_value != 0) protocol_error("ld engine", "LOAD_WEIGHTS with a padding value (LOAD_IFMAP only)");
  if (c.dma.dst_ifmap || c.dma.dst_buf != 0)
    protocol_error("ld engine", std::string(opcode_name(c.op)) + " with dst_ifmap or dst_buf (STORE_PSUMS only)");
  loader_.start(c.dma, s);
  start_req_ = true;
  weights_start_ = weights;
  buf_start_ = c.dma.buf;
}

void LoadEngine::eval(bool req_fired, const MemRsp* rsp, SramBank* const ifmap_banks[2],
                      SramBank* const weight_banks[2]) {
  SramBank* const* banks = weights_q_ ? weight_banks : ifmap_banks;
  loader_.eval(req_fired, rsp, banks ? banks[buf_q_] : nullptr);
}

void LoadEngine::tick() {
  if (loader_.busy()) ++busy_cycles_;
  loader_.tick();
  if (start_req_) {
    start_req_ = false;
    weights_q_ = weights_start_;
    buf_q_ = buf_start_;
    ++commands_;
  }
}

}  // namespace flycol::hw
