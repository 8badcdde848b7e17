// Everything of the signal-level PE array except the PEs (docs/microarchitecture.md 9.4-9.6): the
// issue register, the feed-register triangles that skew rows and columns, the per-row window
// counters, the preload skew line and the result de-skew. Register-transfer model; the Array
// module (array.h) wires it to ROWS x COLS Pe modules, as array.sv will.
#pragma once

#include <cstdint>

#include "hw/common/hw_params.h"
#include "hw/common/token.h"

namespace flycol::hw {

class ArrayEdgeCore {
public:
  explicit ArrayEdgeCore(const HwParams& p);

  struct In {
    const Token* tok = nullptr;          // this cycle's issue decision (nullptr = none)
    const acc_t* pre_word = nullptr;     // [ROWS], looked at only while pre_pop()
    const bool* east_window = nullptr;   // [ROWS]: window_q of PE(r, COLS-1)
    const acc_t* east_res = nullptr;     // [ROWS]: res_q of PE(r, COLS-1)
  };

  void reset();
  // Outputs and next state of this cycle. Throws ProtocolError when a window token comes less than
  // COLS cycles after the previous window token, a swap-only token less than 2*COLS after the
  // window token before the last, or a window reaches the
  // east edge of a row that is still shifting.
  void eval(const In& in);
  void tick();

  int rows() const { return rows_; }
  int cols() const { return cols_; }

  // Outputs of the last eval().
  // West edge of row r (into PE(r,0)): the row-skewed a and flags, and the reserve chain input.
  elem_t feed_a(int r) const { return r == 0 ? iss_a_q_[0] : rf_a_q_[r][r - 1]; }
  bool feed_valid(int r) const { return r == 0 ? iss_valid_q_ : rf_valid_q_[r][r - 1]; }
  bool feed_swap(int r) const { return r == 0 ? iss_swap_q_ : rf_swap_q_[r][r - 1]; }
  bool feed_window(int r) const { return r == 0 ? iss_window_q_ : rf_window_q_[r][r - 1]; }
  acc_t res_in(int r) const { return res_in_[r]; }
  // North edge of column c (into PE(0,c)): the column-skewed weight.
  elem_t feed_w(int c) const { return c == 0 ? iss_w_q_[0] : cf_w_q_[c][c - 1]; }
  bool shift(int r) const { return shift_[r]; }
  // The reserve bank row r shifts now (or shifted last): every PE of the row shows it on its chain.
  bool shift_bank(int r) const { return shift_bank_[r]; }
  bool pre_pop() const { return shift_[0]; }
  bool res_valid() const { return shift_[rows_ - 1]; }
  int res_col() const { return res_col_; }
  const acc_t* res_word() const { return res_word_; }

  std::uint64_t mac_tokens() const { return mac_tokens_q_; }

private:
  void eval_hold();

  int rows_, cols_;

  // Issue register.
  bool iss_valid_q_ = false, iss_swap_q_ = false, iss_window_q_ = false;
  elem_t iss_a_q_[kMaxRows]{}, iss_w_q_[kMaxCols]{};
  bool iss_valid_d_ = false, iss_swap_d_ = false, iss_window_d_ = false;
  elem_t iss_a_d_[kMaxRows]{}, iss_w_d_[kMaxCols]{};
  // Row feed triangle: row r >= 1 has stages 0..r-1 (stage r-1 feeds PE(r,0)).
  elem_t rf_a_q_[kMaxRows][kMaxRows]{}, rf_a_d_[kMaxRows][kMaxRows]{};
  bool rf_valid_q_[kMaxRows][kMaxRows]{}, rf_valid_d_[kMaxRows][kMaxRows]{};
  bool rf_swap_q_[kMaxRows][kMaxRows]{}, rf_swap_d_[kMaxRows][kMaxRows]{};
  bool rf_window_q_[kMaxRows][kMaxRows]{}, rf_window_d_[kMaxRows][kMaxRows]{};
  // Column feed triangle: column c >= 1 has stages 0..c-1 (stage c-1 feeds PE(0,c)).
  elem_t cf_w_q_[kMaxCols][kMaxCols]{}, cf_w_d_[kMaxCols][kMaxCols]{};
  // Per-row window counters: shifts left in the row's window after this cycle; and the bank of the
  // next window to reach the row's east edge.
  int wcnt_q_[kMaxRows]{}, wcnt_d_[kMaxRows]{};
  bool nb_q_[kMaxRows]{}, nb_d_[kMaxRows]{};
  // Preload skew line: row r >= 1 has stages 0..r-1 (stage r-1 is the row's reserve chain input).
  acc_t sk_q_[kMaxRows][kMaxRows]{}, sk_d_[kMaxRows][kMaxRows]{};
  // Result de-skew: row r < ROWS-1 has stages 0..ROWS-2-r (the last one is res_word[r]).
  acc_t ds_q_[kMaxRows][kMaxRows]{}, ds_d_[kMaxRows][kMaxRows]{};
  // Simulation-only check of the issue rule: cycles since the last window token and since the one
  // before it, saturating at 2*COLS (the issue stage's gap_q, gap2_q).
  int gap_q_ = 0, gap_d_ = 0, gap2_q_ = 0, gap2_d_ = 0;
  std::uint64_t mac_tokens_q_ = 0, mac_tokens_d_ = 0;

  // Outputs of eval().
  bool shift_[kMaxRows]{}, shift_bank_[kMaxRows]{};
  acc_t res_in_[kMaxRows]{};
  acc_t res_word_[kMaxRows]{};
  int res_col_ = 0;
};

}  // namespace flycol::hw
