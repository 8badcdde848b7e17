// Edge registers of the signal-level PE array: issue register, feed triangles, window counters,
// preload skew line, result de-skew (docs/microarchitecture.md 9.4-9.6).
#include "hw/array/array_edge.h"

#include <algorithm>

#include "hw/common/protocol_error.h"

namespace flycol::hw {

namespace {
const Token kNoToken{};
}

ArrayEdgeCore::ArrayEdgeCore(const HwParams& p) : rows_(p.rows), cols_(p.cols) {
  if (rows_ < 1 || rows_ > kMaxRows) protocol_error("array", "rows out of range 1..64");
  if (cols_ < 1 || cols_ > kMaxCols) protocol_error("array", "cols out of range 1..64");
  reset();
}

void ArrayEdgeCore::reset() {
  iss_valid_q_ = iss_swap_q_ = iss_window_q_ = false;
  std::fill(std::begin(iss_a_q_), std::end(iss_a_q_), elem_t(0));
  std::fill(std::begin(iss_w_q_), std::end(iss_w_q_), elem_t(0));
  for (int r = 0; r < kMaxRows; ++r) {
    std::fill(std::begin(rf_a_q_[r]), std::end(rf_a_q_[r]), elem_t(0));
    std::fill(std::begin(rf_valid_q_[r]), std::end(rf_valid_q_[r]), false);
    std::fill(std::begin(rf_swap_q_[r]), std::end(rf_swap_q_[r]), false);
    std::fill(std::begin(rf_window_q_[r]), std::end(rf_window_q_[r]), false);
    std::fill(std::begin(sk_q_[r]), std::end(sk_q_[r]), acc_t(0));
    std::fill(std::begin(ds_q_[r]), std::end(ds_q_[r]), acc_t(0));
  }
  for (int c = 0; c < kMaxCols; ++c) std::fill(std::begin(cf_w_q_[c]), std::end(cf_w_q_[c]), elem_t(0));
  std::fill(std::begin(wcnt_q_), std::end(wcnt_q_), 0);
  std::fill(std::begin(nb_q_), std::end(nb_q_), false);
  gap_q_ = gap2_q_ = 2 * cols_;
  mac_tokens_q_ = 0;
  // The outputs of the reset state, before any eval().
  std::fill(std::begin(shift_), std::end(shift_), false);
  std::fill(std::begin(shift_bank_), std::end(shift_bank_), true);  // not nb_q: the bank of no window yet
  std::fill(std::begin(res_in_), std::end(res_in_), acc_t(0));
  std::fill(std::begin(res_word_), std::end(res_word_), acc_t(0));
  res_col_ = 0;
  // Next state equal to the state, so that a tick() without eval() changes nothing.
  eval_hold();
}

void ArrayEdgeCore::eval_hold() {
  iss_valid_d_ = iss_valid_q_;
  iss_swap_d_ = iss_swap_q_;
  iss_window_d_ = iss_window_q_;
  std::copy(std::begin(iss_a_q_), std::end(iss_a_q_), std::begin(iss_a_d_));
  std::copy(std::begin(iss_w_q_), std::end(iss_w_q_), std::begin(iss_w_d_));
  for (int r = 0; r < kMaxRows; ++r) {
    std::copy(std::begin(rf_a_q_[r]), std::end(rf_a_q_[r]), std::begin(rf_a_d_[r]));
    std::copy(std::begin(rf_valid_q_[r]), std::end(rf_valid_q_[r]), std::begin(rf_valid_d_[r]));
    std::copy(std::begin(rf_swap_q_[r]), std::end(rf_swap_q_[r]), std::begin(rf_swap_d_[r]));
    std::copy(std::begin(rf_window_q_[r]), std::end(rf_window_q_[r]), std::begin(rf_window_d_[r]));
    std::copy(std::begin(sk_q_[r]), std::end(sk_q_[r]), std::begin(sk_d_[r]));
    std::copy(std::begin(ds_q_[r]), std::end(ds_q_[r]), std::begin(ds_d_[r]));
  }
  for (int c = 0; c < kMaxCols; ++c) std::copy(std::begin(cf_w_q_[c]), std::end(cf_w_q_[c]), std::begin(cf_w_d_[c]));
  std::copy(std::begin(wcnt_q_), std::end(wcnt_q_), std::begin(wcnt_d_));
  std::copy(std::begin(nb_q_), std::end(nb_q_), std::begin(nb_d_));
  gap_d_ = gap_q_;
  gap2_d_ = gap2_q_;
  mac_tokens_d_ = mac_tokens_q_;
}

void ArrayEdgeCore::eval(const In& in) {
  const Token& t = in.tok ? *in.tok : kNoToken;
  const int R = rows_, C = cols_;

  // Issue rule (section 9.4), checked here because the array depends on it: a row's shifts of
  // one window end before the next window's begin, and every PE of a row has finished a bank's
  // shifts before it swaps that bank again (for window tokens the first implies the second).
  if (t.window && gap_q_ < C) protocol_error("array", "window token less than COLS cycles after the previous one");
  if (t.swap && !t.window && gap2_q_ < 2 * C)
    protocol_error("array", "swap token less than 2*COLS cycles after the window token before the last");
  gap_d_ = t.window ? 1 : std::min(gap_q_ + 1, 2 * C);
  gap2_d_ = t.window ? std::min(gap_q_ + 1, 2 * C) : std::min(gap2_q_ + 1, 2 * C);
  mac_tokens_d_ = mac_tokens_q_ + (t.valid ? 1u : 0u);

  // Issue register: operands load only with a MAC step (they are don't-care otherwise).
  iss_valid_d_ = t.valid;
  iss_swap_d_ = t.swap;
  iss_window_d_ = t.window;
  for (int r = 0; r < R; ++r) iss_a_d_[r] = t.valid ? t.a[r] : iss_a_q_[r];
  for (int c = 0; c < C; ++c) iss_w_d_[c] = t.valid ? t.w[c] : iss_w_q_[c];

  // Feed triangles: row r delays by r more cycles, column c by c.
  for (int r = 1; r < R; ++r) {
    rf_a_d_[r][0] = iss_a_q_[r];
    rf_valid_d_[r][0] = iss_valid_q_;
    rf_swap_d_[r][0] = iss_swap_q_;
    rf_window_d_[r][0] = iss_window_q_;
    for (int s = 1; s < r; ++s) {
      rf_a_d_[r][s] = rf_a_q_[r][s - 1];
      rf_valid_d_[r][s] = rf_valid_q_[r][s - 1];
      rf_swap_d_[r][s] = rf_swap_q_[r][s - 1];
      rf_window_d_[r][s] = rf_window_q_[r][s - 1];
    }
  }
  for (int c = 1; c < C; ++c) {
    cf_w_d_[c][0] = iss_w_q_[c];
    for (int s = 1; s < c; ++s) cf_w_d_[c][s] = cf_w_q_[c][s - 1];
  }

  // Row windows: a window flag in PE(r, COLS-1) starts COLS shifts of row r.
  for (int r = 0; r < R; ++r) {
    const bool east = in.east_window[r];
    if (east && wcnt_q_[r] != 0) protocol_error("array", "a window reaches a row that is still shifting");
    shift_[r] = east || wcnt_q_[r] != 0;
    shift_bank_[r] = east ? nb_q_[r] : !nb_q_[r];
    wcnt_d_[r] = east ? C - 1 : (wcnt_q_[r] != 0 ? wcnt_q_[r] - 1 : 0);
    nb_d_[r] = east ? !nb_q_[r] : nb_q_[r];
  }
  const int last = R - 1;
  res_col_ = in.east_window[last] ? C - 1 : (wcnt_q_[last] != 0 ? wcnt_q_[last] - 1 : 0);

  // Preload skew line: element r of the word taken in a row-0 shift enters row r r cycles later.
  const bool pop = shift_[0];
  if (pop && in.pre_word == nullptr) protocol_error("array", "preload word missing in a pop cycle");
  res_in_[0] = pop ? in.pre_word[0] : 0;
  for (int r = 1; r < R; ++r) {
    sk_d_[r][0] = pop ? in.pre_word[r] : 0;
    for (int s = 1; s < r; ++s) sk_d_[r][s] = sk_q_[r][s - 1];
    res_in_[r] = sk_q_[r][r - 1];
  }

  // Result de-skew: row r's output waits ROWS-1-r cycles for the last row's.
  for (int r = 0; r < last; ++r) {
    ds_d_[r][0] = in.east_res[r];
    for (int s = 1; s <= last - 1 - r; ++s) ds_d_[r][s] = ds_q_[r][s - 1];
    res_word_[r] = ds_q_[r][last - 1 - r];
  }
  res_word_[last] = in.east_res[last];
}

void ArrayEdgeCore::tick() {
  const int R = rows_, C = cols_;
  iss_valid_q_ = iss_valid_d_;
  iss_swap_q_ = iss_swap_d_;
  iss_window_q_ = iss_window_d_;
  std::copy(iss_a_d_, iss_a_d_ + R, iss_a_q_);
  std::copy(iss_w_d_, iss_w_d_ + C, iss_w_q_);
  for (int r = 1; r < R; ++r) {
    std::copy(rf_a_d_[r], rf_a_d_[r] + r, rf_a_q_[r]);
    std::copy(rf_valid_d_[r], rf_valid_d_[r] + r, rf_valid_q_[r]);
    std::copy(rf_swap_d_[r], rf_swap_d_[r] + r, rf_swap_q_[r]);
    std::copy(rf_window_d_[r], rf_window_d_[r] + r, rf_window_q_[r]);
    std::copy(sk_d_[r], sk_d_[r] + r, sk_q_[r]);
  }
  for (int r = 0; r < R - 1; ++r) std::copy(ds_d_[r], ds_d_[r] + (R - 1 - r), ds_q_[r]);
  for (int c = 1; c < C; ++c) std::copy(cf_w_d_[c], cf_w_d_[c] + c, cf_w_q_[c]);
  std::copy(wcnt_d_, wcnt_d_ + R, wcnt_q_);
  std::copy(nb_d_, nb_d_ + R, nb_q_);
  gap_q_ = gap_d_;
  gap2_q_ = gap2_d_;
  mac_tokens_q_ = mac_tokens_d_;
}

}  // namespace flycol::hw
