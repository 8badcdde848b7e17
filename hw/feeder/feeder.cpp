// SystemC module of the data feeder: Moore/Mealy outputs from the core in `comb`, the clock edge
// (core eval + tick) in `seq`; protocol errors become SC_REPORT_ERROR.
#include "hw/feeder/feeder.h"

#include <fmt/format.h>

namespace flycol::hw {

bool FeederRun::operator==(const FeederRun& o) const {
  const RunDesc &a = run, &b = o.run;
  return a.ifmap_buf == b.ifmap_buf && a.weight_buf == b.weight_buf && a.psum_buf == b.psum_buf &&
         a.preload == b.preload && a.n_kg == b.n_kg && a.n_cy == b.n_cy && a.n_cx == b.n_cx && a.n_c == b.n_c &&
         a.n_ky == b.n_ky && a.n_kx == b.n_kx && a.step_cx == b.step_cx && a.step_cy == b.step_cy &&
         a.step_c == b.step_c && a.step_ky == b.step_ky && a.region == b.region && a.lane_stride == b.lane_stride &&
         a.pattern == b.pattern && a.n_kxc == b.n_kxc && a.step_kxc == b.step_kxc && a.region_kxc == b.region_kxc &&
         a.pattern_kxc == b.pattern_kxc && a.pack_w == b.pack_w && a.pack_r == b.pack_r &&
         a.pack_jump == b.pack_jump && a.pool_op == b.pool_op && a.pool_sy == b.pool_sy && a.pool_y0 == b.pool_y0 &&
         a.pool_x0 == b.pool_x0 && a.pool_y1 == b.pool_y1 && a.pool_x1 == b.pool_x1 &&
         a.pool_ky == b.pool_ky && a.pool_kx == b.pool_kx && a.pool_sx == b.pool_sx;
}

std::ostream& operator<<(std::ostream& os, const FeederRun& r) {
  const RunDesc& d = r.run;
  return os << fmt::format("run(kg={} cy={} cx={} c={} ky={} kx={} steps=({},{},{},{}) region={} ls={} pat={:#x} "
                           "kxc=({},{},{},{:#x}))",
                           d.n_kg, d.n_cy, d.n_cx, d.n_c, d.n_ky, d.n_kx, d.step_cx, d.step_cy, d.step_c,
                           d.step_ky, d.region, d.lane_stride, d.pattern, d.n_kxc, d.step_kxc, d.region_kxc,
                           d.pattern_kxc);
}

// A RUN descriptor is not a waveform; tracing it records nothing.
void sc_trace(sc_core::sc_trace_file*, const FeederRun&, const std::string&) {}

Feeder::Feeder(sc_core::sc_module_name name, const HwParams& p)
    : ScCoreModule(name, p), sram_rdata_i("sram_rdata_i", std::size_t(p.bus_elems)),
      lane_data_o("lane_data_o", std::size_t(p.rows)), p_(p) {
  processes(sram_rdata_i);
}

const word_elem_t* Feeder::sample_rdata() {
  for (int i = 0; i < p_.bus_elems; ++i) rdata_[i] = sram_rdata_i[std::size_t(i)].read();
  return rdata_;
}

void Feeder::comb() {
  const SramRead r = core_.read_request(sample_rdata());
  sram_req_o.write(r.req);
  sram_addr_o.write(std::uint32_t(r.addr));
  lane_valid_o.write(core_.all_lanes_have_elem());
  for (int l = 0; l < p_.rows; ++l) lane_data_o[std::size_t(l)].write(core_.lane_elem(l));
  busy_o.write(core_.busy());
}

void Feeder::seq() {
  clock([&] {
    if (start_i.read()) core_.start(run_i.read().run);
    core_.set_pop(pop_i.read());
    core_.eval(sample_rdata());
    core_.tick();
  });
}

}  // namespace flycol::hw
