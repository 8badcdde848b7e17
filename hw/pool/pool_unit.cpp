// SystemC wrapper of PoolUnitCore: the clocked process takes the RUN start, the pop and the lane
// heads at the rising edge (core start + eval + tick); the combinational process writes the
// registered outputs (pool_ready_o, res_valid_o, res_word_o). Protocol errors of the core (a pop
// while not ready, a start while a pooling RUN takes elements, a malformed pooling RUN) become
// SC_REPORT_ERROR of the module.
#include "hw/pool/pool_unit.h"

namespace flycol::hw {

PoolUnit::PoolUnit(sc_core::sc_module_name name, const HwParams& p)
    : ScCoreModule(name, p), lane_data_i("lane_data_i", std::size_t(p.rows)),
      res_word_o("res_word_o", std::size_t(p.rows)), rows_(p.rows) {
  processes();  // every output is a register: comb() follows the state only
}

void PoolUnit::comb() {
  pool_ready_o.write(core_.ready());
  res_valid_o.write(core_.res_valid());
  const acc_t* w = core_.res_word();
  for (int r = 0; r < rows_; ++r) res_word_o[std::size_t(r)].write(w[r]);
}

void PoolUnit::seq() {
  clock([&] {
    if (start_i.read()) core_.start(run_i.read().run);
    for (int r = 0; r < rows_; ++r) heads_[r] = lane_data_i[std::size_t(r)].read();
    core_.eval(pop_i.read(), heads_);
    core_.tick();
  });
}

}  // namespace flycol::hw
