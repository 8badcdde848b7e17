// Fast PE-array model. Why it is exact: no PE reads another PE's accumulator, so the accumulator
// matrix after a token sequence does not depend on when each PE saw each token; and the issue rule
// (window tokens at least COLS cycles apart, so at least 2*COLS from one to the one after next;
// swap-only tokens at least 2*COLS cycles after the window token before the last) means every PE
// of a row has finished a reserve bank's shifts before it swaps that bank again. So a swap can be done at issue time on the whole matrix, and a
// window's result is fixed at issue time: the post-MAC accumulators for a swap token, else the
// window's reserve bank, which holds the preload words of the window two before.
#include "hw/array/array_core.h"

#include <algorithm>
#include <cstring>

#include "base/numerics/fp16.h"
#include "base/numerics/int_mac.h"
#include "hw/common/protocol_error.h"
#include "base/numerics/fp16_row.h"

namespace flycol::hw {

namespace {

constexpr std::uint32_t kFloatCanonicalNaN = 0x7FC00000u;  // fp16::to_float(kCanonicalNaN)

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

bool is_nan_bits(std::uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }

// Half-in-float back to binary16 bits. Unlike fp16::from_float, a NaN keeps its sign and payload,
// so a preload NaN that no MAC touched leaves the array with the bits it came in with, as it does
// in the PEs (which never convert).
acc_t half_bits(float f) {
  const std::uint32_t u = bits_of(f);
  if (!is_nan_bits(u)) return fp16::from_float(f);
  std::uint32_t mant = (u >> 13) & 0x3FFu;
  if (mant == 0) mant = 0x200u;  // payload only below binary16 precision: still a NaN
  return acc_t(((u >> 16) & 0x8000u) | 0x7C00u | mant);
}

// The integer MAC loop is built twice, for AVX2 and for the baseline, and the loader picks one
// (GNU ifunc): the same integer operations, so the same results, 8 lanes wide where the machine
// has AVX2. (The fp16 step, fp16::mac_rows, carries both forms in base/numerics, exposed so that
// tests/numerics compares them directly.) Left out under sanitizers, whose runtimes do not like
// early ifunc resolvers.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define FLYCOL_MAC_CLONES __attribute__((target_clones("avx2", "default"), flatten))
#else
#define FLYCOL_MAC_CLONES
#endif

// One row of an integer MAC step.
FLYCOL_MAC_CLONES
void mac_row_int(std::int32_t a, const std::int32_t* w, std::int32_t* acc, int cols) {
  for (int c = 0; c < cols; ++c) acc[c] = intmac::mac(a, w[c], acc[c]);
}

}  // namespace

ArrayCore::ArrayCore(const HwParams& p)
    : rows_(p.rows), cols_(p.cols), ms_(p.rows * p.cols), fp_(p.arithmetic == Arithmetic::fp16),
      int8_(p.arithmetic == Arithmetic::int8), gating_(p.zero_gating) {
  if (rows_ < 1 || rows_ > kMaxRows) protocol_error("array", "rows out of range 1..64");
  if (cols_ < 1 || cols_ > kMaxCols) protocol_error("array", "cols out of range 1..64");
  // A window's snapshot lives from its issue cycle t until its last result (cycle
  // t+2*COLS+ROWS-1, filled into the output register one edge earlier); window tokens are at
  // least COLS apart.
  max_windows_ = (2 * cols_ + rows_ - 2) / cols_ + 1;
  nbuf_ = max_windows_ + 4;  // + accumulator, two reserve banks, one spare
  if (nbuf_ > kMaxBufs) protocol_error("array", "too many windows in flight for the model's ring");
  if (fp_) fpool_.assign(std::size_t(nbuf_) * std::size_t(ms_), 0.0f);
  else ipool_.assign(std::size_t(nbuf_) * std::size_t(ms_), 0);
  gated_line_.assign(std::size_t(rows_ + cols_ + kGatedSkew + 1), 0);
  reset();
}

void ArrayCore::reset() {
  std::fill(fpool_.begin(), fpool_.end(), 0.0f);
  std::fill(ipool_.begin(), ipool_.end(), 0);
  std::fill(std::begin(raw_nan_), std::end(raw_nan_), false);
  acc_buf_ = 0;
  res_buf_[0] = 1;
  res_buf_[1] = 2;
  bank_ = 0;
  nfree_ = 0;
  for (int b = nbuf_ - 1; b >= 3; --b) free_[nfree_++] = b;
  ring_head_ = ring_count_ = 0;
  cycle_q_ = 0;
  since_win_q_[0] = since_win_q_[1] = 2 * cols_ + 1;
  pre_pop_q_ = res_valid_q_ = false;
  res_col_q_ = 0;
  std::fill(std::begin(res_word_q_), std::end(res_word_q_), acc_t(0));
  in_pop_ = in_valid_ = in_swap_ = in_window_ = false;
  mac_tokens_ = gated_macs_ = 0;
  std::fill(gated_line_.begin(), gated_line_.end(), 0u);
  gated_pin_q_ = 0;
}

void ArrayCore::eval(const Token* token, const acc_t* pre_word) {
  in_pop_ = pre_pop_q_;
  if (in_pop_) {
    if (pre_word == nullptr) protocol_error("array", "preload word missing in a pop cycle");
    std::copy(pre_word, pre_word + rows_, in_pre_);
  }
  const bool any = token != nullptr && token->any();
  in_valid_ = any && token->valid;
  in_swap_ = any && token->swap;
  in_window_ = any && token->window;
  // since_win_q_[1 - bank_]: the last window token; since_win_q_[bank_]: the one before it (its
  // bank is the one this token uses). For a window token the first rule implies the second.
  if (in_window_ && since_win_q_[1 - bank_] < cols_)
    protocol_error("array", "window token less than COLS cycles after the previous one");
  if (in_swap_ && !in_window_ && since_win_q_[bank_] < 2 * cols_)
    protocol_error("array", "swap token less than 2*COLS cycles after the window token before the last");
  if (!in_valid_) return;
  if (fp_) {
    in_w_nonfinite_ = false;
    for (int c = 0; c < cols_; ++c) {
      in_wf_[c] = fp16::to_float(token->w[c]);
      in_w_nonfinite_ |= !fp16::is_finite(token->w[c]);
    }
    for (int r = 0; r < rows_; ++r) {
      in_af_[r] = fp16::to_float(token->a[r]);
      in_a_nonfinite_[r] = !fp16::is_finite(token->a[r]);
    }
  } else {
    auto sext = [this](elem_t v) {
      return int8_ ? std::int32_t(std::int8_t(std::uint8_t(v))) : std::int32_t(std::int16_t(v));
    };
    in_w_zeros_ = 0;
    for (int c = 0; c < cols_; ++c) {
      in_wi_[c] = sext(token->w[c]);
      in_w_zeros_ += in_wi_[c] == 0;
    }
    for (int r = 0; r < rows_; ++r) in_ai_[r] = sext(token->a[r]);
  }
}

int ArrayCore::alloc_buf() {
  if (nfree_ == 0) protocol_error("array", "no free result buffer (window tokens too close)");
  return free_[--nfree_];
}

// The j-th preload word of a window ends up in column COLS-1-j of its reserve bank.
void ArrayCore::pop_preload() {
  const int bank = popping_bank();
  const int j = since_win_q_[bank] - cols_ - 1;
  const int col = cols_ - 1 - j;
  const int buf = res_buf_[bank];
  const std::size_t base = std::size_t(buf) * std::size_t(ms_) + std::size_t(col);
  if (fp_) {
    float* m = fpool_.data() + base;
    for (int r = 0; r < rows_; ++r) {
      const fp16::Bits h = fp16::Bits(in_pre_[r] & 0xFFFFu);
      m[std::size_t(r) * std::size_t(cols_)] = fp16::to_float(h);
      raw_nan_[buf] |= fp16::is_nan(h) && h != fp16::kCanonicalNaN;
    }
  } else {
    std::int32_t* m = ipool_.data() + base;
    for (int r = 0; r < rows_; ++r) m[std::size_t(r) * std::size_t(cols_)] = std::int32_t(in_pre_[r]);
  }
}

void ArrayCore::mac_fp16() {
  float* acc = fpool_.data() + std::size_t(acc_buf_) * std::size_t(ms_);
  const int C = cols_;
  gated_macs_ += std::uint64_t(fp16::mac_rows(in_af_, in_wf_, acc, rows_, C, gating_));
  // The PE's FMA returns the canonical NaN; float arithmetic propagates a NaN operand's payload
  // and sign. A NaN result of an ungated MAC needs a non-finite operand or a NaN accumulator, and
  // is canonical already unless an operand is non-finite or the matrix holds a raw preload NaN.
  const bool raw = raw_nan_[acc_buf_];
  for (int r = 0; r < rows_; ++r) {
    if (!(raw || in_w_nonfinite_ || in_a_nonfinite_[r])) continue;
    const bool row_gated = gating_ && in_af_[r] == 0.0f;
    float* a = acc + std::size_t(r) * C;
    for (int c = 0; c < C; ++c) {
      const bool g = row_gated || (gating_ && in_wf_[c] == 0.0f);
      if (!g && is_nan_bits(bits_of(a[c]))) a[c] = float_of(kFloatCanonicalNaN);
    }
  }
}

void ArrayCore::mac_int() {
  std::int32_t* acc = ipool_.data() + std::size_t(acc_buf_) * std::size_t(ms_);
  const int C = cols_;
  std::uint64_t gated = 0;
  for (int r = 0; r < rows_; ++r) {
    const std::int32_t a = in_ai_[r];
    if (a == 0) {  // acc + 0 is acc, gated or not
      gated += std::uint64_t(C);
      continue;
    }
    mac_row_int(a, in_wi_, acc + std::size_t(r) * C, C);
    gated += std::uint64_t(in_w_zeros_);
  }
  if (gating_) gated_macs_ += gated;
}

// The token's gated MACs by the edge on which the signal-level array applies them: PE(r,c) is
// gated when its row's activation or its column's weight is zero (-0 included), and acts
// kGatedSkew + r + c edges after this one.
void ArrayCore::schedule_gated() {
  if (!gating_) return;
  const std::size_t n = gated_line_.size();
  int zero_cols[kMaxCols];
  int nz = 0;
  for (int c = 0; c < cols_; ++c)
    if (fp_ ? in_wf_[c] == 0.0f : in_wi_[c] == 0) zero_cols[nz++] = c;
  const std::uint64_t first = cycle_q_ + std::uint64_t(kGatedSkew);
  for (int r = 0; r < rows_; ++r) {
    const bool row_zero = fp_ ? in_af_[r] == 0.0f : in_ai_[r] == 0;
    if (row_zero)
      for (int c = 0; c < cols_; ++c) ++gated_line_[(first + std::uint64_t(r + c)) % n];
    else
      for (int i = 0; i < nz; ++i) ++gated_line_[(first + std::uint64_t(r + zero_cols[i])) % n];
  }
}

void ArrayCore::tick() {
  const int C = cols_, R = rows_;
  // Preload of this cycle first: the token of this cycle may swap it into the accumulators.
  if (in_pop_) pop_preload();
  if (in_valid_) {
    ++mac_tokens_;
    if (fp_) mac_fp16();
    else mac_int();
    schedule_gated();
  }
  {
    // What the PEs gate at this edge shows on the pin in the next cycle.
    std::uint32_t& slot = gated_line_[cycle_q_ % gated_line_.size()];
    gated_pin_q_ = slot;
    slot = 0;
  }
  int& res = res_buf_[bank_];
  if (in_window_) {
    const int snap = in_swap_ ? acc_buf_ : res;
    if (in_swap_) acc_buf_ = res;
    res = alloc_buf();  // every element is rewritten by this window's COLS preload words
    raw_nan_[res] = false;
    if (ring_count_ == max_windows_ + 1) protocol_error("array", "result ring overflow");
    ring_[(ring_head_ + ring_count_) % kMaxBufs] = Window{cycle_q_, snap};
    ++ring_count_;
  } else if (in_swap_) {
    std::swap(acc_buf_, res);
  }
  for (int b = 0; b < 2; ++b) since_win_q_[b] = std::min(since_win_q_[b] + 1, 2 * C + 1);
  if (in_window_) {
    since_win_q_[bank_] = 1;
    bank_ = 1 - bank_;
  }
  in_pop_ = in_valid_ = in_swap_ = in_window_ = false;
  ++cycle_q_;

  // Outputs of the new cycle.
  pre_pop_q_ = popping_bank() >= 0;
  res_valid_q_ = false;
  res_col_q_ = 0;
  if (ring_count_ > 0) {
    const Window& w = ring_[ring_head_];
    const std::uint64_t age = cycle_q_ - w.t;
    if (age >= std::uint64_t(C + R) && age < std::uint64_t(2 * C + R)) {
      const int j = int(age - std::uint64_t(C + R));
      res_valid_q_ = true;
      res_col_q_ = C - 1 - j;
      for (int r = 0; r < R; ++r) res_word_q_[r] = out_bits(w.buf, r, res_col_q_);
      if (j == C - 1) {  // last column copied out: the snapshot is free
        free_[nfree_++] = w.buf;
        ring_head_ = (ring_head_ + 1) % kMaxBufs;
        --ring_count_;
      }
    }
  }
}

acc_t ArrayCore::out_bits(int buf, int r, int c) const {
  const std::size_t i = std::size_t(buf) * std::size_t(ms_) + std::size_t(r) * std::size_t(cols_) + std::size_t(c);
  return fp_ ? half_bits(fpool_[i]) : acc_t(ipool_[i]);
}

acc_t ArrayCore::acc_bits(int r, int c) const { return out_bits(acc_buf_, r, c); }

}  // namespace flycol::hw
