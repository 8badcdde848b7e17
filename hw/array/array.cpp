// Wiring of the signal-level PE array: PE(r,c) takes a and the flags from PE(r,c-1) (column 0:
// the row's feed register), w from PE(r-1,c) (row 0: the column's feed register), the reserve
// chain from PE(r,c-1) (column 0: the preload skew line) and its row's shift and shift bank.
#include "hw/array/array.h"

#include "hw/common/protocol_error.h"

namespace flycol::hw {

Array::Array(sc_core::sc_module_name name, const HwParams& p)
    : sc_core::sc_module(name), tok_a_i("tok_a_i", std::size_t(p.rows)), tok_w_i("tok_w_i", std::size_t(p.cols)),
      pre_word_i("pre_word_i", std::size_t(p.rows)), res_word_o("res_word_o", std::size_t(p.rows)),
      rows_(p.rows), cols_(p.cols), edge_(p),
      pe_("pe"), a_("a", std::size_t(p.rows * p.cols)), w_("w", std::size_t(p.rows * p.cols)),
      valid_("valid", std::size_t(p.rows * p.cols)), swap_("swap", std::size_t(p.rows * p.cols)),
      window_("window", std::size_t(p.rows * p.cols)), res_("res", std::size_t(p.rows * p.cols)),
      acc_("acc", std::size_t(p.rows * p.cols)), feed_a_("feed_a", std::size_t(p.rows)),
      feed_w_("feed_w", std::size_t(p.cols)), feed_valid_("feed_valid", std::size_t(p.rows)),
      feed_swap_("feed_swap", std::size_t(p.rows)), feed_window_("feed_window", std::size_t(p.rows)),
      shift_("shift", std::size_t(p.rows)), shift_bank_("shift_bank", std::size_t(p.rows)), res_in_("res_in", std::size_t(p.rows)) {
  const HwParams params = p;
  pe_.init(std::size_t(rows_ * cols_),
           [&params](const char* nm, std::size_t) { return new Pe(nm, params); });
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < cols_; ++c) {
      Pe& pe = pe_[std::size_t(idx(r, c))];
      const std::size_t self = std::size_t(idx(r, c));
      pe.clk_i(clk_i);
      pe.rst_ni(rst_ni);
      if (c == 0) {
        pe.a_i(feed_a_[std::size_t(r)]);
        pe.valid_i(feed_valid_[std::size_t(r)]);
        pe.swap_i(feed_swap_[std::size_t(r)]);
        pe.window_i(feed_window_[std::size_t(r)]);
        pe.res_i(res_in_[std::size_t(r)]);
      } else {
        const std::size_t west = std::size_t(idx(r, c - 1));
        pe.a_i(a_[west]);
        pe.valid_i(valid_[west]);
        pe.swap_i(swap_[west]);
        pe.window_i(window_[west]);
        pe.res_i(res_[west]);
      }
      pe.w_i(r == 0 ? feed_w_[std::size_t(c)] : w_[std::size_t(idx(r - 1, c))]);
      pe.shift_i(shift_[std::size_t(r)]);
      pe.shift_bank_i(shift_bank_[std::size_t(r)]);
      pe.a_o(a_[self]);
      pe.w_o(w_[self]);
      pe.valid_o(valid_[self]);
      pe.swap_o(swap_[self]);
      pe.window_o(window_[self]);
      pe.res_o(res_[self]);
      pe.acc_o(acc_[self]);
    }

  // Row 0 takes the preload word directly; the other rows see it only through the skew line.
  SC_METHOD(comb);
  sensitive << state_changed_ << pre_word_i[0];
  for (int r = 0; r < rows_; ++r)
    sensitive << window_[std::size_t(idx(r, cols_ - 1))] << res_[std::size_t(idx(r, cols_ - 1))];
  SC_METHOD(seq);
  sensitive << clk_i.pos();
  dont_initialize();
}

std::uint64_t Array::gated_macs() const {
  std::uint64_t n = 0;
  for (const Pe& pe : pe_) n += pe.core().gated();
  return n;
}

void Array::read_east() {
  for (int r = 0; r < rows_; ++r) {
    east_window_[r] = window_[std::size_t(idx(r, cols_ - 1))].read();
    east_res_[r] = res_[std::size_t(idx(r, cols_ - 1))].read();
    pre_word_[r] = pre_word_i[std::size_t(r)].read();
  }
}

// Outputs of the edge logic; they depend on its registers, the east column's registers and the
// preload word (row 0 takes it directly), never on the token.
void Array::comb() {
  read_east();
  ArrayEdgeCore::In in;
  in.pre_word = pre_word_;
  in.east_window = east_window_;
  in.east_res = east_res_;
  try {
    edge_.eval(in);
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(name(), e.what());
    return;
  }
  for (int r = 0; r < rows_; ++r) {
    const std::size_t i = std::size_t(r);
    feed_a_[i].write(edge_.feed_a(r));
    feed_valid_[i].write(edge_.feed_valid(r));
    feed_swap_[i].write(edge_.feed_swap(r));
    feed_window_[i].write(edge_.feed_window(r));
    res_in_[i].write(edge_.res_in(r));
    shift_[i].write(edge_.shift(r));
    shift_bank_[i].write(edge_.shift_bank(r));
    res_word_o[i].write(edge_.res_word()[r]);
  }
  for (int c = 0; c < cols_; ++c) feed_w_[std::size_t(c)].write(edge_.feed_w(c));
  pre_pop_o.write(edge_.pre_pop());
  res_valid_o.write(edge_.res_valid());
  res_col_o.write(edge_.res_valid() ? edge_.res_col() : 0);
}

void Array::seq() {
  try {
    if (!rst_ni.read()) {
      edge_.reset();
    } else {
      read_east();
      tok_.valid = tok_valid_i.read();
      tok_.swap = tok_swap_i.read();
      tok_.window = tok_window_i.read();
      for (int r = 0; r < rows_; ++r) tok_.a[r] = tok_a_i[std::size_t(r)].read();
      for (int c = 0; c < cols_; ++c) tok_.w[c] = tok_w_i[std::size_t(c)].read();
      ArrayEdgeCore::In in;
      in.tok = &tok_;
      in.pre_word = pre_word_;
      in.east_window = east_window_;
      in.east_res = east_res_;
      edge_.eval(in);
      edge_.tick();
    }
  } catch (const ProtocolError& e) {
    SC_REPORT_ERROR(name(), e.what());
    return;
  }
  state_changed_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace flycol::hw
