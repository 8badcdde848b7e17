// The fast PE-array model used by the accelerator top (docs/microarchitecture.md 9.5, last
// paragraph): each token is applied at issue time to the whole accumulator matrix, and only the
// array's edge is timed, so preload words are taken and result words delivered in exactly the
// cycles of the signal-level Array (array.h); tb/array/array_tb.cpp checks both against one
// reference every cycle.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/common/hw_params.h"
#include "hw/common/token.h"

namespace flycol::hw {

class ArrayCore {
public:
  explicit ArrayCore(const HwParams& p);
  void reset();

  // Moore outputs of this cycle (the ports of the Array module).
  bool pre_pop() const { return pre_pop_q_; }          // one preload word is taken this cycle
  bool res_valid() const { return res_valid_q_; }      // a result word is delivered this cycle
  int res_col() const { return res_col_q_; }           // its column (0 when !res_valid())
  const acc_t* res_word() const { return res_word_q_; }  // [ROWS], meaningful while res_valid()

  // This cycle's inputs: the issue decision (nullptr or !token->any(): none) and the preload word
  // (read only when pre_pop()). Latches them; repeatable within a cycle. Throws ProtocolError for a
  // token that breaks the window rule (section 9.4: a window token COLS cycles after the last window
  // token, a swap-only token 2*COLS after the one before it).
  void eval(const Token* token, const acc_t* pre_word);
  // The clock edge: takes the preload word, applies the token to the matrix, advances the edge.
  void tick();

  std::uint64_t mac_tokens() const { return mac_tokens_; }  // MAC steps applied
  std::uint64_t gated_macs() const { return gated_macs_; }  // PE MACs gated for a zero operand
  // The signal-level array's gated_cnt_o of this cycle: PEs whose MAC step at the previous edge
  // was gated. There PE(r,c) applies a token kGatedSkew + r + c edges after it is issued (the feed
  // triangles), so a token's gated MACs spread over ROWS+COLS-1 cycles; this model applies the
  // token at once and only times the count.
  std::uint32_t gated_pin() const { return gated_pin_q_; }
  static constexpr int kGatedSkew = 1;
  acc_t acc_bits(int r, int c) const;                       // accumulator of PE(r,c), for tests

private:
  static constexpr int kMaxBufs = 72;  // max_windows_ + 4 for 64 rows and one column

  int alloc_buf();
  void pop_preload();
  // The bank whose window takes a preload word in this cycle, or -1 (windows' pops never overlap).
  int popping_bank() const {
    for (int b = 0; b < 2; ++b)
      if (since_win_q_[b] > cols_ && since_win_q_[b] <= 2 * cols_) return b;
    return -1;
  }
  void mac_fp16();
  void mac_int();
  void schedule_gated();
  acc_t out_bits(int buf, int r, int c) const;

  int rows_, cols_, ms_;
  bool fp_, int8_, gating_;
  int max_windows_, nbuf_;

  // Matrices (ROWS x COLS, row-major): half-in-float for fp16, int32 otherwise. Buffers rotate
  // between the roles accumulator, reserve bank and result snapshot, so a swap copies nothing.
  std::vector<float> fpool_;
  std::vector<std::int32_t> ipool_;
  bool raw_nan_[kMaxBufs]{};  // fp16: the buffer may hold a NaN from a preload that is not canonical
  int free_[kMaxBufs]{};
  int nfree_ = 0;
  int acc_buf_ = 0, res_buf_[2] = {1, 2};
  int bank_ = 0;  // the bank of the next window token (and of a swap): window tokens since reset mod 2

  // Windows whose results are not yet all delivered, oldest first.
  struct Window {
    std::uint64_t t;  // issue cycle
    int buf;          // result snapshot
  };
  Window ring_[kMaxBufs]{};
  int ring_head_ = 0, ring_count_ = 0;

  std::uint64_t cycle_q_ = 0;
  int since_win_q_[2] = {0, 0};  // per bank: cycles since its last window token, saturating at 2*COLS+1

  // Registered outputs.
  bool pre_pop_q_ = false, res_valid_q_ = false;
  int res_col_q_ = 0;
  acc_t res_word_q_[kMaxRows]{};

  // Inputs latched by eval().
  bool in_pop_ = false, in_valid_ = false, in_swap_ = false, in_window_ = false;
  acc_t in_pre_[kMaxRows]{};
  float in_af_[kMaxRows]{}, in_wf_[kMaxCols]{};
  std::int32_t in_ai_[kMaxRows]{}, in_wi_[kMaxCols]{};
  bool in_a_nonfinite_[kMaxRows]{};
  bool in_w_nonfinite_ = false;
  int in_w_zeros_ = 0;
  // gated_pin(): gated PE MACs per future edge, a ring indexed by edge (cycle_q_) modulo its size.
  std::vector<std::uint32_t> gated_line_;
  std::uint32_t gated_pin_q_ = 0;

  std::uint64_t mac_tokens_ = 0, gated_macs_ = 0;
};

}  // namespace flycol::hw
