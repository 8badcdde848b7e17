// RTL block adapters: one SC_MODULE per block with the ports of the block's SystemC module
// (hw/<block>/<block>.h, port mode where it has one), driving the Verilated model V of the block's
// RTL. The model is evaluated in the adapter's combinational method whenever an input changes and
// clocked at the rising edge; an RTL assertion ($error) becomes an SC_ERROR at that edge. The
// structural top binds an adapter exactly as it binds the SystemC module it replaces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

// Verilator's own headers do not pass -Wextra (unused parameters); they are not ours to fix. They
// come before SystemC's: seeing SYSTEMC_VERSION, verilated.h would take the plain C++ models for
// SystemC ones.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <verilated.h>
#pragma GCC diagnostic pop

#include <systemc>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"
#include "hw/common/sc_core_module.h"
#include "hw/common/sc_run_ports.h"
#include "hw/controller/controller.h"
#include "hw/dma/dma.h"
#include "hw/feeder/feeder.h"
#include "sim/rtlblocks/rtl_bits.h"

namespace flycol::rtlblocks {

// What an adapter does to its model, whatever the block.
class RtlModelBase {
public:
  virtual ~RtlModelBase() = default;
  virtual void set_rst_n(bool rst_n) = 0;
  virtual void eval() = 0;
  virtual void settle_low() = 0;
  virtual void rise(const char* who) = 0;
};

// One Verilated model with its own context: reset-state zeros, errors counted rather than fatal.
template <class V>
class RtlModel final : public RtlModelBase {
public:
  explicit RtlModel(const std::string& name) : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(0);
    ctx_->fatalOnError(false);
    v_ = std::make_unique<V>(ctx_.get(), name.c_str());
    v_->clk_i = 0;
    v_->rst_ni = 0;
    v_->eval();
  }
  ~RtlModel() override {
    // A model's scopes unregister from the thread's current context (see sim/rtlsim/rtl_top_impl.h).
    Verilated::threadContextp(ctx_.get());
    v_->final();
  }
  V* operator->() { return v_.get(); }
  V& operator*() { return *v_; }
  void set_rst_n(bool rst_n) override { v_->rst_ni = rst_n; }
  void eval() override { v_->eval(); }
  // Before the edge: the clock low and the applied inputs settled. The comb method need not have
  // run since the last edge (inputs may not have changed), so the low phase is evaluated here:
  // Verilator sees an edge only between two evaluations.
  void settle_low() override {
    v_->clk_i = 0;
    v_->eval();
  }
  // The rising edge: registers take the inputs applied now; outputs settle on the new state.
  void rise(const char* who) override {
    v_->clk_i = 1;
    v_->eval();
    if (ctx_->gotError()) {
      ctx_->gotError(false);
      SC_REPORT_ERROR(who, "RTL assertion failed (its message is printed above)");
    }
  }

private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> v_;
};

// The shape of every adapter: the reset and then apply() copy the input signals onto the model,
// publish() the model's outputs onto the output signals; comb() evaluates and is the outputs' only
// writer, seq() clocks and wakes comb() to publish the new state. before_edge() and
// after_edge() sample statistics outputs around the edge.
class RtlAdapter : public hw::ScClockedModule {
protected:
  RtlAdapter(sc_core::sc_module_name n, const hw::HwParams& p) : ScClockedModule(n), p_(p) {}
  // Registers comb() and seq() (ScClockedModule::processes, comb() also sensitive to the reset);
  // both drive `model`.
  template <class... In>
  void processes(RtlModelBase& model, In&... inputs) {
    model_ = &model;
    ScClockedModule::processes(rst_ni, inputs...);
  }
  virtual void apply() = 0;
  virtual void publish() = 0;
  virtual void before_edge() {}
  virtual void after_edge() {}

  const hw::HwParams p_;

private:
  void comb() override {
    model_->set_rst_n(rst_ni.read());
    apply();
    model_->eval();
    publish();
  }
  void seq() override {
    model_->set_rst_n(rst_ni.read());
    apply();
    model_->settle_low();
    before_edge();
    model_->rise(name());
    after_edge();
    state_changed();
  }
  RtlModelBase* model_ = nullptr;
};

template <class T, class P>
void put_vec(P& port, const sc_core::sc_vector<sc_core::sc_in<T>>& in, int bits) {
  for (std::size_t i = 0; i < in.size(); ++i) set_field(port, int(i) * bits, bits, std::uint64_t(in[i].read()));
}
template <class T, class P>
void get_vec(const P& port, sc_core::sc_vector<sc_core::sc_out<T>>& out, int bits) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i].write(T(get_field(port, int(i) * bits, bits)));
}

// ---- controller ---------------------------------------------------------------------------------
template <class V>
class ControllerRtl : public RtlAdapter {
public:
  static constexpr int kEngines = hw::Controller::kEngines;
  sc_core::sc_in<bool> cmd_valid_i{"cmd_valid_i"};
  sc_core::sc_in<hw::Command> cmd_i{"cmd_i"};
  sc_core::sc_out<bool> cmd_ready_o{"cmd_ready_o"};
  sc_core::sc_vector<sc_core::sc_in<bool>> busy_i{"busy_i", kEngines}, done_i{"done_i", kEngines};
  sc_core::sc_vector<sc_core::sc_out<bool>> start_o{"start_o", kEngines};
  sc_core::sc_vector<sc_core::sc_out<hw::Command>> start_cmd_o{"start_cmd_o", kEngines};
  sc_core::sc_out<bool> idle_o{"idle_o"};

  ControllerRtl(sc_core::sc_module_name n, const hw::HwParams& p) : RtlAdapter(n, p), m_(name()) {
    processes(m_, cmd_valid_i, cmd_i, busy_i, done_i);
  }

private:
  void apply() override {
    m_->cmd_valid_i = cmd_valid_i.read();
    put_command(m_->cmd_i, 0, cmd_i.read());
    unsigned busy = 0, done = 0;
    for (int e = 0; e < kEngines; ++e) {
      busy |= unsigned(busy_i[std::size_t(e)].read()) << e;
      done |= unsigned(done_i[std::size_t(e)].read()) << e;
    }
    m_->busy_i = busy;
    m_->done_i = done;
  }
  void publish() override {
    cmd_ready_o.write(m_->cmd_ready_o);
    const int bits = command_bits();
    for (int e = 0; e < kEngines; ++e) {
      start_o[std::size_t(e)].write((m_->start_o >> e) & 1u);
      start_cmd_o[std::size_t(e)].write(get_command(m_->start_cmd_o, e * bits));
    }
    idle_o.write(m_->idle_o);
  }
  RtlModel<V> m_;
};

// ---- DMA ----------------------------------------------------------------------------------------
template <class V>
class DmaRtl : public RtlAdapter {
public:
  sc_core::sc_in<bool> ld_start_i{"ld_start_i"};
  sc_core::sc_in<hw::DmaCmd> ld_cmd_i{"ld_cmd_i"};
  sc_core::sc_out<bool> ld_busy_o{"ld_busy_o"}, ld_done_o{"ld_done_o"};
  sc_core::sc_in<bool> ps_start_i{"ps_start_i"};
  sc_core::sc_in<hw::DmaCmd> ps_cmd_i{"ps_cmd_i"};
  sc_core::sc_out<bool> ps_busy_o{"ps_busy_o"}, ps_done_o{"ps_done_o"};
  sc_core::sc_out<bool> mem_req_valid_o{"mem_req_valid_o"};
  sc_core::sc_in<bool> mem_req_ready_i{"mem_req_ready_i"};
  sc_core::sc_out<bool> mem_req_write_o{"mem_req_write_o"};
  sc_core::sc_out<std::uint64_t> mem_req_addr_o{"mem_req_addr_o"};
  sc_core::sc_out<int> mem_req_bytes_o{"mem_req_bytes_o"};
  sc_core::sc_out<hw::MemBeatBits> mem_req_wdata_o{"mem_req_wdata_o"};
  sc_core::sc_in<bool> mem_rsp_valid_i{"mem_rsp_valid_i"};
  sc_core::sc_in<hw::MemBeatBits> mem_rsp_rdata_i{"mem_rsp_rdata_i"};
  sc_core::sc_out<unsigned> ifmap_req_o{"ifmap_req_o"}, weight_req_o{"weight_req_o"}, psum_req_o{"psum_req_o"};
  sc_core::sc_out<bool> ifmap_we_o{"ifmap_we_o"}, weight_we_o{"weight_we_o"}, psum_we_o{"psum_we_o"};
  sc_core::sc_out<std::uint32_t> ifmap_addr_o{"ifmap_addr_o"}, weight_addr_o{"weight_addr_o"},
      psum_addr_o{"psum_addr_o"};
  sc_core::sc_vector<sc_core::sc_out<hw::word_elem_t>> ifmap_wdata_o{"ifmap_wdata_o"},
      weight_wdata_o{"weight_wdata_o"}, psum_wdata_o{"psum_wdata_o"};
  sc_core::sc_out<std::uint64_t> ifmap_wmask_o{"ifmap_wmask_o"}, weight_wmask_o{"weight_wmask_o"},
      psum_wmask_o{"psum_wmask_o"};
  sc_core::sc_vector<sc_core::sc_in<hw::word_elem_t>> psum_rdata_i{"psum_rdata_i"};

  DmaRtl(sc_core::sc_module_name n, const hw::HwParams& p) : RtlAdapter(n, p), m_(name()) {
    ifmap_wdata_o.init(std::size_t(p.bus_elems));
    weight_wdata_o.init(std::size_t(p.cols));
    psum_wdata_o.init(std::size_t(p.rows));
    psum_rdata_i.init(std::size_t(2 * p.rows));
    processes(m_, ld_start_i, ld_cmd_i, ps_start_i, ps_cmd_i, mem_req_ready_i, mem_rsp_valid_i, mem_rsp_rdata_i,
              psum_rdata_i);
  }

private:
  void apply() override {
    m_->ld_start_i = ld_start_i.read();
    put_command(m_->ld_cmd_i, 0, ld_cmd_i.read().command());
    m_->ps_start_i = ps_start_i.read();
    put_command(m_->ps_cmd_i, 0, ps_cmd_i.read().command());
    m_->mem_req_ready_i = mem_req_ready_i.read();
    m_->mem_rsp_valid_i = mem_rsp_valid_i.read();
    const hw::MemBeatBits& rd = mem_rsp_rdata_i.read();
    for (int w = 0; w < hw::kBeatBytes / 4; ++w) m_->mem_rsp_rdata_i[std::size_t(w)] = std::uint32_t(rd.get_word(w));
    put_vec(m_->psum_rdata_i, psum_rdata_i, p_.acc_bits);
  }
  void publish() override {
    ld_busy_o.write(m_->ld_busy_o);
    ld_done_o.write(m_->ld_done_o);
    ps_busy_o.write(m_->ps_busy_o);
    ps_done_o.write(m_->ps_done_o);
    mem_req_valid_o.write(m_->mem_req_valid_o);
    mem_req_write_o.write(m_->mem_req_write_o);
    mem_req_addr_o.write(m_->mem_req_addr_o);
    mem_req_bytes_o.write(int(m_->mem_req_bytes_o));
    hw::MemBeatBits wd;
    for (int w = 0; w < hw::kBeatBytes / 4; ++w) wd.set_word(w, m_->mem_req_wdata_o[std::size_t(w)]);
    mem_req_wdata_o.write(wd);
    ifmap_req_o.write(m_->ifmap_req_o);
    ifmap_we_o.write(m_->ifmap_we_o);
    ifmap_addr_o.write(m_->ifmap_addr_o);
    get_vec(m_->ifmap_wdata_o, ifmap_wdata_o, p_.elem_bits);
    ifmap_wmask_o.write(m_->ifmap_wmask_o);
    weight_req_o.write(m_->weight_req_o);
    weight_we_o.write(m_->weight_we_o);
    weight_addr_o.write(m_->weight_addr_o);
    get_vec(m_->weight_wdata_o, weight_wdata_o, p_.elem_bits);
    weight_wmask_o.write(m_->weight_wmask_o);
    psum_req_o.write(m_->psum_req_o);
    psum_we_o.write(m_->psum_we_o);
    psum_addr_o.write(m_->psum_addr_o);
    get_vec(m_->psum_wdata_o, psum_wdata_o, p_.acc_bits);
    psum_wmask_o.write(m_->psum_wmask_o);
  }
  RtlModel<V> m_;
};

// ---- sequencer ----------------------------------------------------------------------------------
template <class V>
class SequencerRtl : public RtlAdapter,
                     public hw::RunIn<hw::kRunPreload | hw::kRunOuter | hw::kRunInner | hw::kRunPool> {
public:
  sc_core::sc_in<bool> lanes_ready_i{"lanes_ready_i"}, weight_ready_i{"weight_ready_i"};
  sc_core::sc_in<int> unclaimed_i{"unclaimed_i"};
  sc_core::sc_in<bool> finish_i{"finish_i"};
  sc_core::sc_in<bool> pool_ready_i{"pool_ready_i"};
  sc_core::sc_out<bool> token_valid_o{"token_valid_o"}, token_swap_o{"token_swap_o"},
      token_window_o{"token_window_o"}, pop_o{"pop_o"}, weight_pop_o{"weight_pop_o"}, claim_o{"claim_o"},
      busy_o{"busy_o"};
  sc_core::sc_out<int> cycle_kind_o{"cycle_kind_o"};

  SequencerRtl(sc_core::sc_module_name n, const hw::HwParams& p) : RtlAdapter(n, p), m_(name()) {
    processes(m_, static_cast<RunIn&>(*this), lanes_ready_i, weight_ready_i, unclaimed_i, finish_i, pool_ready_i);
  }

private:
  void apply() override {
    put_run(*m_);
    m_->lanes_ready_i = lanes_ready_i.read();
    m_->weight_ready_i = weight_ready_i.read();
    m_->unclaimed_i = unsigned(unclaimed_i.read());
    m_->finish_i = finish_i.read();
    m_->pool_ready_i = pool_ready_i.read();
  }
  void publish() override {
    token_valid_o.write(m_->token_valid_o);
    token_swap_o.write(m_->token_swap_o);
    token_window_o.write(m_->token_window_o);
    pop_o.write(m_->pop_o);
    weight_pop_o.write(m_->weight_pop_o);
    claim_o.write(m_->claim_o);
    busy_o.write(m_->busy_o);
    cycle_kind_o.write(int(m_->cycle_kind_o));
  }
  RtlModel<V> m_;
};

// ---- feeder -------------------------------------------------------------------------------------
template <class V>
class FeederRtl : public RtlAdapter {
public:
  sc_core::sc_in<bool> start_i{"start_i"};
  sc_core::sc_in<hw::FeederRun> run_i{"run_i"};
  sc_core::sc_out<bool> sram_req_o{"sram_req_o"};
  sc_core::sc_out<std::uint32_t> sram_addr_o{"sram_addr_o"};
  sc_core::sc_vector<sc_core::sc_in<hw::word_elem_t>> sram_rdata_i{"sram_rdata_i"};
  sc_core::sc_out<bool> lane_valid_o{"lane_valid_o"};
  sc_core::sc_vector<sc_core::sc_out<hw::elem_t>> lane_data_o{"lane_data_o"};
  sc_core::sc_in<bool> pop_i{"pop_i"};
  sc_core::sc_out<bool> busy_o{"busy_o"};

  FeederRtl(sc_core::sc_module_name n, const hw::HwParams& p) : RtlAdapter(n, p), m_(name()) {
    sram_rdata_i.init(std::size_t(p.bus_elems));
    lane_data_o.init(std::size_t(p.rows));
    processes(m_, start_i, run_i, pop_i, sram_rdata_i);
  }
  // Cycles the selection stage stalled since reset (sel_stall_o, sampled at each edge).
  std::uint64_t sel_stall_cycles() const { return sel_stalls_; }

private:
  void apply() override {
    m_->start_i = start_i.read();
    hw::Command c;
    c.op = hw::Opcode::Run;
    c.run = run_i.read().run;
    put_command(m_->run_i, 0, c);
    put_vec(m_->ifmap_rdata_i, sram_rdata_i, p_.elem_bits);
    m_->pop_i = pop_i.read();
  }
  void publish() override {
    sram_req_o.write(m_->ifmap_req_o);
    sram_addr_o.write(m_->ifmap_addr_o);
    lane_valid_o.write(m_->lanes_valid_o);
    get_vec(m_->lane_data_o, lane_data_o, p_.elem_bits);
    busy_o.write(m_->busy_o);
  }
  // The stall flag of the cycle that this edge ends.
  void before_edge() override {
    if (!rst_ni.read())
      sel_stalls_ = 0;
    else if (m_->sel_stall_o)
      ++sel_stalls_;
  }
  RtlModel<V> m_;
  std::uint64_t sel_stalls_ = 0;
};

// ---- weight fetcher -----------------------------------------------------------------------------
template <class V>
class WeightFetcherRtl : public RtlAdapter, public hw::RunIn<hw::kRunOuter | hw::kRunInner | hw::kRunPool> {
public:
  sc_core::sc_in<bool> pop_i{"pop_i"};
  sc_core::sc_out<bool> valid_o{"valid_o"};
  sc_core::sc_vector<sc_core::sc_out<hw::elem_t>> word_o{"word_o"};
  sc_core::sc_out<bool> busy_o{"busy_o"};
  sc_core::sc_out<bool> weight_req_o{"weight_req_o"};
  sc_core::sc_out<std::uint32_t> weight_addr_o{"weight_addr_o"};
  sc_core::sc_vector<sc_core::sc_in<hw::word_elem_t>> weight_rdata_i{"weight_rdata_i"};

  WeightFetcherRtl(sc_core::sc_module_name n, const hw::HwParams& p) : RtlAdapter(n, p), m_(name()) {
    word_o.init(std::size_t(p.cols));
    weight_rdata_i.init(std::size_t(p.cols));
    processes(m_, static_cast<RunIn&>(*this), pop_i, weight_rdata_i);
  }

private:
  void apply() override {
    put_run(*m_);
    m_->pop_i = pop_i.read();
    put_vec(m_->weight_rdata_i, weight_rdata_i, p_.elem_bits);
  }
  void publish() override {
    valid_o.write(m_->has_word_o);
    get_vec(m_->word_o, word_o, p_.elem_bits);
    busy_o.write(m_->busy_o);
    weight_req_o.write(m_->weight_req_o);
    weight_addr_o.write(m_->weight_addr_o);
  }
  RtlModel<V> m_;
};

// ---- PE array -----------------------------------------------------------------------------------
template <class V>
class ArrayRtl : public RtlAdapter {
public:
  sc_core::sc_in<bool> tok_valid_i{"tok_valid_i"}, tok_swap_i{"tok_swap_i"}, tok_window_i{"tok_window_i"};
  sc_core::sc_vector<sc_core::sc_in<hw::elem_t>> tok_a_i{"tok_a_i"}, tok_w_i{"tok_w_i"};
  sc_core::sc_vector<sc_core::sc_in<hw::acc_t>> pre_word_i{"pre_word_i"};
  sc_core::sc_out<bool> pre_pop_o{"pre_pop_o"}, res_valid_o{"res_valid_o"};
  sc_core::sc_out<int> res_col_o{"res_col_o"};
  sc_core::sc_vector<sc_core::sc_out<hw::acc_t>> res_word_o{"res_word_o"};

  ArrayRtl(sc_core::sc_module_name n, const hw::HwParams& p) : RtlAdapter(n, p), m_(name()) {
    tok_a_i.init(std::size_t(p.rows));
    tok_w_i.init(std::size_t(p.cols));
    pre_word_i.init(std::size_t(p.rows));
    res_word_o.init(std::size_t(p.rows));
    processes(m_, tok_valid_i, tok_swap_i, tok_window_i, tok_a_i, tok_w_i, pre_word_i);
  }
  // PE MACs gated since reset (gated_cnt_o counts the previous cycle's; summed after each edge).
  std::uint64_t gated_macs() const { return gated_; }

private:
  void apply() override {
    m_->tok_valid_i = tok_valid_i.read();
    m_->tok_swap_i = tok_swap_i.read();
    m_->tok_window_i = tok_window_i.read();
    put_vec(m_->tok_a_i, tok_a_i, p_.elem_bits);
    put_vec(m_->tok_w_i, tok_w_i, p_.elem_bits);
    put_vec(m_->pre_word_i, pre_word_i, p_.acc_bits);
  }
  void publish() override {
    pre_pop_o.write(m_->pre_pop_o);
    res_valid_o.write(m_->res_valid_o);
    res_col_o.write(int(m_->res_col_o));
    get_vec(m_->res_word_o, res_word_o, p_.acc_bits);
  }
  void after_edge() override {
    if (!rst_ni.read())
      gated_ = 0;
    else
      gated_ += std::uint64_t(m_->gated_cnt_o);
  }
  RtlModel<V> m_;
  std::uint64_t gated_ = 0;
};

// ---- partial-sums manager -----------------------------------------------------------------------
template <class V>
class PsumManagerRtl : public RtlAdapter,
                       public hw::RunIn<hw::kRunPreload | hw::kRunOuter | hw::kRunInner | hw::kRunPool> {
public:
  sc_core::sc_out<int> unclaimed_o{"unclaimed_o"};
  sc_core::sc_in<bool> claim_i{"claim_i"}, pre_pop_i{"pre_pop_i"};
  sc_core::sc_vector<sc_core::sc_out<hw::acc_t>> pre_word_o{"pre_word_o"};
  sc_core::sc_in<bool> res_valid_i{"res_valid_i"};
  sc_core::sc_in<int> res_col_i{"res_col_i"};
  sc_core::sc_vector<sc_core::sc_in<hw::acc_t>> res_word_i{"res_word_i"};
  sc_core::sc_in<bool> pool_valid_i{"pool_valid_i"};
  sc_core::sc_vector<sc_core::sc_in<hw::acc_t>> pool_word_i{"pool_word_i"};
  sc_core::sc_out<bool> busy_o{"busy_o"}, run_done_o{"run_done_o"};
  sc_core::sc_out<bool> psum_req_o{"psum_req_o"}, psum_we_o{"psum_we_o"};
  sc_core::sc_out<std::uint32_t> psum_addr_o{"psum_addr_o"};
  sc_core::sc_vector<sc_core::sc_out<hw::word_elem_t>> psum_wdata_o{"psum_wdata_o"};
  sc_core::sc_out<std::uint64_t> psum_wmask_o{"psum_wmask_o"};
  sc_core::sc_vector<sc_core::sc_in<hw::word_elem_t>> psum_rdata_i{"psum_rdata_i"};

  PsumManagerRtl(sc_core::sc_module_name n, const hw::HwParams& p) : RtlAdapter(n, p), m_(name()) {
    pre_word_o.init(std::size_t(p.rows));
    res_word_i.init(std::size_t(p.rows));
    pool_word_i.init(std::size_t(p.rows));
    psum_wdata_o.init(std::size_t(p.rows));
    psum_rdata_i.init(std::size_t(p.rows));
    processes(m_, static_cast<RunIn&>(*this), claim_i, pre_pop_i, res_valid_i, res_col_i, res_word_i, pool_valid_i,
              pool_word_i, psum_rdata_i);
  }

private:
  void apply() override {
    put_run(*m_);
    m_->claim_i = claim_i.read();
    m_->pre_pop_i = pre_pop_i.read();
    m_->res_valid_i = res_valid_i.read();
    m_->res_col_i = unsigned(res_col_i.read());
    put_vec(m_->res_word_i, res_word_i, p_.acc_bits);
    m_->pool_valid_i = pool_valid_i.read();
    put_vec(m_->pool_word_i, pool_word_i, p_.acc_bits);
    put_vec(m_->psum_rdata_i, psum_rdata_i, p_.acc_bits);
  }
  void publish() override {
    unclaimed_o.write(int(m_->unclaimed_o));
    get_vec(m_->pre_word_o, pre_word_o, p_.acc_bits);
    busy_o.write(m_->busy_o);
    run_done_o.write(m_->run_done_o);
    psum_req_o.write(m_->psum_req_o);
    psum_we_o.write(m_->psum_we_o);
    psum_addr_o.write(m_->psum_addr_o);
    get_vec(m_->psum_wdata_o, psum_wdata_o, p_.acc_bits);
    psum_wmask_o.write(m_->psum_wmask_o);
  }
  RtlModel<V> m_;
};

// ---- pooling unit -------------------------------------------------------------------------------
// run_i is the RUN's command_t, as the feeder's; every output is a register.
template <class V>
class PoolUnitRtl : public RtlAdapter {
public:
  sc_core::sc_in<bool> start_i{"start_i"};
  sc_core::sc_in<hw::FeederRun> run_i{"run_i"};
  sc_core::sc_in<bool> pop_i{"pop_i"};
  sc_core::sc_vector<sc_core::sc_in<hw::elem_t>> lane_data_i{"lane_data_i"};
  sc_core::sc_out<bool> pool_ready_o{"pool_ready_o"}, res_valid_o{"res_valid_o"};
  sc_core::sc_vector<sc_core::sc_out<hw::acc_t>> res_word_o{"res_word_o"};

  PoolUnitRtl(sc_core::sc_module_name n, const hw::HwParams& p) : RtlAdapter(n, p), m_(name()) {
    lane_data_i.init(std::size_t(p.rows));
    res_word_o.init(std::size_t(p.rows));
    processes(m_, start_i, run_i, pop_i, lane_data_i);
  }

private:
  void apply() override {
    m_->start_i = start_i.read();
    hw::Command c;
    c.op = hw::Opcode::Run;
    c.run = run_i.read().run;
    put_command(m_->run_i, 0, c);
    m_->pop_i = pop_i.read();
    put_vec(m_->lane_data_i, lane_data_i, p_.elem_bits);
  }
  void publish() override {
    pool_ready_o.write(m_->pool_ready_o);
    res_valid_o.write(m_->res_valid_o);
    get_vec(m_->res_word_o, res_word_o, p_.acc_bits);
  }
  RtlModel<V> m_;
};

}  // namespace flycol::rtlblocks
