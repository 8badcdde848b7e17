// The whole accelerator as one core (docs/microarchitecture.md, section 1): controller, the LD/PS
// DMA engines behind the memory arbiter, the EX engine (sequencer, data feeder, weight fetcher,
// PE array, partial-sums manager) and the six SRAM banks. One eval()/tick() pair is one clock
// cycle; the blocks are evaluated in dependency order, so a cycle costs a few calls per block.
#pragma once

#include <cstdint>
#include <memory>

#include "hw/array/array_core.h"
#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/mem_port.h"
#include "hw/common/sram_bank.h"
#include "hw/common/token.h"
#include "hw/controller/controller_core.h"
#include "hw/dma/load_engine.h"
#include "hw/dma/mem_arbiter.h"
#include "hw/dma/psum_engine.h"
#include "hw/feeder/feeder_core.h"
#include "hw/pool/pool_unit_core.h"
#include "hw/psum_manager/psum_manager_core.h"
#include "hw/sequencer/sequencer_core.h"
#include "hw/weight_fetcher/weight_fetcher_core.h"

namespace flycol::hw {

// Counters of one simulation (spec section 13). Cycle classes cover every cycle exactly once
// while a RUN is active; the harness classifies the cycles outside RUNs.
struct AcceleratorStats {
  std::uint64_t run_cycles = 0;  // cycles with a RUN active
  std::uint64_t dram_stall = 0;  // no RUN active while a RUN of the program is still to come
  std::uint64_t tail = 0;        // no RUN active and every RUN of the program done
  std::uint64_t mac_cycles = 0, feeder_stall = 0, weight_stall = 0, context_stall = 0, pipeline = 0;
  std::uint64_t pool_cycles = 0;  // pooling RUNs' element steps (section 16)
  std::uint64_t mac_tokens = 0, gated_macs = 0;
  std::uint64_t feeder_select_stalls = 0;  // cycles a feed lane held the SRAM word
  std::uint64_t sram_reads[3] = {0, 0, 0}, sram_writes[3] = {0, 0, 0};  // ifmap, weights, psums

  // Classifies one cycle: in a RUN by the sequencer's cycle kind; outside one as a DRAM stall
  // while a RUN of the program is still to come, else as the tail. Both tops count with this.
  void count_cycle(bool run_active, SequencerCore::CycleKind kind, bool runs_to_come);
};

class AcceleratorCore {
public:
  struct In {
    bool cmd_valid = false;
    Command cmd;
    bool mem_req_ready = false;
    bool mem_rsp_valid = false;
    MemRsp mem_rsp;
  };
  struct Out {
    bool cmd_ready = false;
    bool mem_req_valid = false;
    MemReq mem_req;
    bool idle = false;
    // Status and statistic pins of flycol_top (section 13), the values of this cycle after eval():
    // commands completed per engine (LD, EX, PS), a RUN active, the issue stage's cycle class and
    // the PE MACs gated at the previous clock edge.
    std::uint32_t done_count[3] = {0, 0, 0};
    bool run_active = false;
    SequencerCore::CycleKind cycle_kind = SequencerCore::CycleKind::none;
    std::uint32_t gated = 0;
  };

  explicit AcceleratorCore(const HwParams& p);
  ~AcceleratorCore();
  void reset();

  const Out& eval(const In& in);
  void tick();

  // Moore status for the harness.
  bool idle() const;
  bool ex_busy() const { return seq_.busy(); }
  std::uint32_t done_count(Engine e) const { return ctrl_.done_count(e); }
  SequencerCore::CycleKind last_cycle_kind() const { return kind_; }

  AcceleratorStats stats() const;
  // How many RUN commands the program holds: only used to tell DRAM stalls from the tail in the
  // statistics, never by the behaviour.
  void expect_runs(std::uint64_t n) { runs_expected_ = n; }
  const Token& last_token() const { return token_; }
  const HwParams& params() const { return p_; }

  // Backdoor access to the SRAMs for tests: which = 0 ifmap, 1 weights, 2 psums.
  SramBank& bank(int which, int buffer);

private:
  bool engine_busy(int e) const;
  void check_buffer_ownership(const Command* ld_cmd, const Command* ps_cmd) const;

  HwParams p_;
  ControllerCore ctrl_;
  MemArbiter arb_;
  LoadEngine ld_;
  PsumEngine ps_;
  SequencerCore seq_;
  FeederCore feeder_;
  WeightFetcherCore wf_;
  ArrayCore array_;
  PsumManagerCore pm_;
  PoolUnitCore pool_;
  std::unique_ptr<SramBank> ifmap_[2], weights_[2], psums_[2];
  SramBank* ifmap_ptrs_[2];
  SramBank* weight_ptrs_[2];
  SramBank* psum_ptrs_[2];

  // Registers of the top: the active RUN's buffers and the commands the DMA engines run
  // (kept only to check buffer ownership).
  RunDesc run_q_, run_d_;
  Command ld_cmd_q_, ld_cmd_d_, ps_cmd_q_, ps_cmd_d_;

  Token token_;
  Out out_;
  SequencerCore::CycleKind kind_ = SequencerCore::CycleKind::none;
  AcceleratorStats stats_;
  std::uint64_t runs_expected_ = 0;
};

}  // namespace flycol::hw
