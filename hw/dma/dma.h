// SC_MODULE `Dma`: LD engine, PS engine and memory arbiter behind one memory port with the RTL's
// port names (twin: dma.sv). One module, as the engine-arbiter wiring is internal to the DMA; the
// fast accelerator top uses the three cores directly (docs/microarchitecture.md section 2), the
// structural top this module in port mode.
#pragma once

#include <memory>
#include <ostream>

#include <systemc>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/mem_port.h"
#include "hw/common/sram_bank.h"
#include "hw/dma/load_engine.h"
#include "hw/dma/mem_arbiter.h"
#include "hw/dma/psum_engine.h"

namespace flycol::hw {

// The command an engine is started with (the RTL's command_t restricted to the DMA fields).
struct DmaCmd {
  Opcode op = Opcode::LoadIfmap;
  DmaDesc dma;

  Command command() const {
    Command c;
    c.op = op;
    c.dma = dma;
    return c;
  }
};
bool operator==(const DmaCmd& a, const DmaCmd& b);
std::ostream& operator<<(std::ostream& os, const DmaCmd& c);
inline void sc_trace(sc_core::sc_trace_file*, const DmaCmd&, const std::string&) {}

using MemBeatBits = sc_dt::sc_bv<8 * kBeatBytes>;
// One beat between its bytes (lane j = bits [8j, 8j+8)) and its signal value.
void bytes_to_beat(const std::uint8_t* bytes, MemBeatBits& bv);
void beat_to_bytes(const MemBeatBits& bv, std::uint8_t* bytes);

SC_MODULE(Dma) {
  sc_core::sc_in<bool> clk_i;                      // clock
  sc_core::sc_in<bool> rst_ni;                     // active low, sampled at the rising edge

  sc_core::sc_in<bool> ld_start_i;                 // start ld_cmd_i (engine idle), latched at the edge
  sc_core::sc_in<DmaCmd> ld_cmd_i;                 // LOAD_IFMAP / LOAD_WEIGHTS
  sc_core::sc_out<bool> ld_busy_o;                 // from the cycle after the start to the done cycle
  sc_core::sc_out<bool> ld_done_o;                 // the LD command completes in this cycle
  sc_core::sc_in<bool> ps_start_i;                 // start ps_cmd_i (engine idle), latched at the edge
  sc_core::sc_in<DmaCmd> ps_cmd_i;                 // LOAD_PSUMS / STORE_PSUMS
  sc_core::sc_out<bool> ps_busy_o;                 // from the cycle after the start to the done cycle
  sc_core::sc_out<bool> ps_done_o;                 // the PS command completes in this cycle (Mealy: ready)

  sc_core::sc_out<bool> mem_req_valid_o;           // request channel (section 7.1)
  sc_core::sc_in<bool> mem_req_ready_i;            // Moore output of the memory
  sc_core::sc_out<bool> mem_req_write_o;           // 1 write, 0 read
  sc_core::sc_out<std::uint64_t> mem_req_addr_o;   // byte address
  sc_core::sc_out<int> mem_req_bytes_o;            // 1..BEAT, never across a BEAT boundary
  sc_core::sc_out<MemBeatBits> mem_req_wdata_o;    // write data on the address's byte lanes
  sc_core::sc_in<bool> mem_rsp_valid_i;            // read response (in order, cannot be refused)
  sc_core::sc_in<MemBeatBits> mem_rsp_rdata_i;     // read data on the request's byte lanes

  // SRAM ports (port mode only, as dma.sv): bit b of *_req_o accesses buffer b this cycle.
  sc_core::sc_out<unsigned> ifmap_req_o{"ifmap_req_o"};
  sc_core::sc_out<bool> ifmap_we_o{"ifmap_we_o"};
  sc_core::sc_out<std::uint32_t> ifmap_addr_o{"ifmap_addr_o"};
  sc_core::sc_vector<sc_core::sc_out<word_elem_t>> ifmap_wdata_o{"ifmap_wdata_o"};  // B elements
  sc_core::sc_out<std::uint64_t> ifmap_wmask_o{"ifmap_wmask_o"};
  sc_core::sc_out<unsigned> weight_req_o{"weight_req_o"};
  sc_core::sc_out<bool> weight_we_o{"weight_we_o"};
  sc_core::sc_out<std::uint32_t> weight_addr_o{"weight_addr_o"};
  sc_core::sc_vector<sc_core::sc_out<word_elem_t>> weight_wdata_o{"weight_wdata_o"};  // COLS elements
  sc_core::sc_out<std::uint64_t> weight_wmask_o{"weight_wmask_o"};
  sc_core::sc_out<unsigned> psum_req_o{"psum_req_o"};
  sc_core::sc_out<bool> psum_we_o{"psum_we_o"};            // 1 write (LOAD_PSUMS), 0 read (STORE_PSUMS)
  sc_core::sc_out<std::uint32_t> psum_addr_o{"psum_addr_o"};
  sc_core::sc_vector<sc_core::sc_out<word_elem_t>> psum_wdata_o{"psum_wdata_o"};  // ROWS elements
  sc_core::sc_out<std::uint64_t> psum_wmask_o{"psum_wmask_o"};
  sc_core::sc_vector<sc_core::sc_in<word_elem_t>> psum_rdata_i{"psum_rdata_i"};  // 2*ROWS: buffer b at [b*ROWS]

  // Port mode (the structural top): the banks are outside, reached through the SRAM port signals.
  Dma(sc_core::sc_module_name name, const HwParams& p);

  // Bank mode (the block testbench): the banks stand for the DMA's SRAM ports. With tick_banks the module also clocks them (the
  // block testbench, where the DMA is the banks' only client); the accelerator top clocks its
  // banks itself.
  Dma(sc_core::sc_module_name name, const HwParams& p, SramBank* const ifmap_banks[2],
      SramBank* const weight_banks[2], SramBank* const psum_banks[2], bool tick_banks = true);
  SC_HAS_PROCESS(Dma);

  const LoadEngine& ld() const { return ld_; }
  const PsumEngine& ps() const { return ps_; }
  const MemArbiter& arbiter() const { return arb_; }

private:
  void comb();
  void seq();
  void init();
  void eval_cores();
  void drive_sram_ports();
  void drop_port_requests();

  LoadEngine ld_;
  PsumEngine ps_;
  MemArbiter arb_;
  SramBank* ifmap_[2];
  SramBank* weights_[2];
  SramBank* psums_[2];
  bool tick_banks_;
  bool port_mode_ = false;
  int rows_;
  // Port mode: the six stand-in banks (ifmap, weights, psums; two buffers each) whose requests
  // are copied to the SRAM port signals and dropped.
  std::unique_ptr<SramBank> port_banks_[3][2];
  MemRsp rsp_{};
  sc_core::sc_event state_changed_;
  // Bank mode: the unused SRAM port signals.
  sc_core::sc_signal<unsigned> unused_req_[3];
  sc_core::sc_signal<bool> unused_we_[3];
  sc_core::sc_signal<std::uint32_t> unused_addr_[3];
  sc_core::sc_signal<std::uint64_t> unused_wmask_[3];
};

}  // namespace flycol::hw
