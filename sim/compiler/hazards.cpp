// Hazard checking in one pass over the stream. For each command it derives what is guaranteed
// complete when the command starts (per engine, the highest ordinal: engines run their commands
// in order, one at a time), closing transitively over the commands it waits for. Per resource it
// keeps the last writer and, per engine, the latest reader since then; with transitive
// guarantees, ordering a command after those is enough to order it after every earlier access.
#include "sim/compiler/hazards.h"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/compiler/command_limits.h"

namespace flycol {
namespace {

using Ordinals = std::array<std::uint32_t, 3>;  // per engine (LD, EX, PS)
constexpr const char* kEngineName[] = {"LD", "EX", "PS"};

struct AccessState {
  int last_writer = -1;                 // stream index
  Ordinals reader_ord{};                // latest reader per engine since the last write (0: none)
  std::array<int, 3> reader_idx{-1, -1, -1};
};

struct Range {
  std::uint64_t begin, end;  // bytes [begin, end)
};

class Checker {
public:
  explicit Checker(const Program& p) : p_(p), hw_(p.hw) {
    const std::size_t n = p.commands.size();
    engine_.resize(n);
    ordinal_.resize(n);
    done_.resize(n);
    dram_[0] = AccessState{};  // one segment covering the whole address space
  }

  void run() {
    for (std::size_t i = 0; i < p_.commands.size(); ++i) {
      index_ = i;
      const hw::Command& c = p_.commands[i];
      const std::string bad = command_field_violation(c, hw_);
      if (!bad.empty()) fail_one(fmt::format("field out of range: {}", bad));
      derive_guarantees();
      check_bounds(c);
      accesses(c);
    }
  }

private:
  std::string describe(std::size_t i) const {
    const hw::Command& c = p_.commands[i];
    return fmt::format("#{} {}{} ({}){}", i, kEngineName[engine_[i]], ordinal_[i], c.to_string(),
                       i < p_.notes.size() ? " [" + p_.notes[i] + "]" : "");
  }

  [[noreturn]] void fail_one(const std::string& what) const {
    // Engine and ordinal may not be set yet for the current command: describe it plainly.
    const hw::Command& c = p_.commands[index_];
    throw std::logic_error(fmt::format("hazard check: command #{} ({}){}: {}", index_, c.to_string(),
                                       index_ < p_.notes.size() ? " [" + p_.notes[index_] + "]" : "", what));
  }

  void derive_guarantees() {
    const hw::Command& c = p_.commands[index_];
    const int e = int(hw::engine_of(c.op));
    engine_[index_] = e;
    ordinal_[index_] = ++count_[std::size_t(e)];
    by_engine_[std::size_t(e)].push_back(index_);

    const std::uint32_t waits[3] = {c.wait_ld, c.wait_ex, c.wait_ps};
    for (int f = 0; f < 3; ++f) {
      const std::uint32_t before = count_[std::size_t(f)] - (f == e ? 1u : 0u);  // commands of f earlier in the stream
      if (waits[f] > before)
        fail_one(fmt::format("wait_{} = {} refers to a later command: only {} {} command{} precede it (deadlock)",
                             f == 0 ? "ld" : f == 1 ? "ex" : "ps", waits[f], before, kEngineName[f],
                             before == 1 ? "" : "s"));
    }
    Ordinals d{};
    const auto absorb = [&](std::size_t q) {
      for (std::size_t f = 0; f < 3; ++f) d[f] = std::max(d[f], done_[q][f]);
      d[std::size_t(engine_[q])] = std::max(d[std::size_t(engine_[q])], ordinal_[q]);
    };
    if (ordinal_[index_] > 1) absorb(by_engine_[std::size_t(e)][ordinal_[index_] - 2]);  // in-order engine
    for (std::size_t f = 0; f < 3; ++f)
      if (waits[f] > 0) absorb(by_engine_[f][waits[f] - 1]);
    done_[index_] = d;
  }

  bool ordered(std::size_t earlier, std::size_t later) const {
    return ordinal_[earlier] <= done_[later][std::size_t(engine_[earlier])];
  }

  [[noreturn]] void conflict(std::size_t earlier, const char* kind, const std::string& what) const {
    const hw::Command& c = p_.commands[index_];
    throw std::logic_error(fmt::format(
        "hazard: {} on {} between command {} and command {}: the waits of #{} (ld={}, ex={}, ps={}) do not "
        "guarantee that #{} ({} #{}) has completed when #{} starts (guaranteed: LD up to {}, EX up to {}, PS up to {})",
        kind, what, describe(earlier), describe(index_), index_, c.wait_ld, c.wait_ex, c.wait_ps, earlier,
        kEngineName[engine_[earlier]], ordinal_[earlier], index_, done_[index_][0], done_[index_][1],
        done_[index_][2]));
  }

  // `what` names the resource; it is called only to word an error (formatting on every access
  // would dominate the run time for long programs).
  template <class What>
  void access(AccessState& s, bool reads, bool writes, const What& what) {
    const std::size_t i = index_;
    if (s.last_writer >= 0 && s.last_writer != int(i) && !ordered(std::size_t(s.last_writer), i))
      conflict(std::size_t(s.last_writer), writes && !reads ? "write after write" : "read after write", what());
    if (writes)
      for (std::size_t f = 0; f < 3; ++f)
        if (s.reader_ord[f] > 0 && s.reader_idx[f] != int(i) && !ordered(std::size_t(s.reader_idx[f]), i))
          conflict(std::size_t(s.reader_idx[f]), "write after read", what());
    if (writes) {
      s = AccessState{};
      s.last_writer = int(i);
    } else if (reads) {
      const std::size_t e = std::size_t(engine_[i]);
      s.reader_ord[e] = ordinal_[i];
      s.reader_idx[e] = int(i);
    }
  }

  void buffer(int sram, unsigned buf, bool reads, bool writes) {
    static const char* const kSram[] = {"ifmap", "weight", "psum"};
    access(buffers_[std::size_t(sram)][buf], reads, writes,
           [&] { return fmt::format("{} buffer {}", kSram[sram], buf); });
  }

  // Splits the segment map so that `at` starts a segment.
  void split(std::uint64_t at) {
    auto it = dram_.upper_bound(at);
    --it;  // the segment containing `at` (the map always has key 0)
    if (it->first != at) dram_.emplace(at, it->second);
  }

  void dram(const std::vector<Range>& ranges, bool writes) {
    for (const Range& r : ranges) {
      split(r.begin);
      split(r.end);
      for (auto it = dram_.find(r.begin); it != dram_.end() && it->first < r.end; ++it) {
        auto next = std::next(it);
        const std::uint64_t end = next == dram_.end() ? r.end : std::min(next->first, r.end);
        access(it->second, !writes, writes, [&] { return fmt::format("DRAM bytes [{:#x}, {:#x})", it->first, end); });
      }
    }
  }

  // The DRAM byte ranges of a DMA descriptor, adjacent rows merged.
  std::vector<Range> dram_ranges(const hw::DmaDesc& d, int elem_bytes) const {
    std::vector<Range> out;
    if (d.row_len == 0) return out;
    // A gather (elem_step > 1) reads the whole beats its row's span touches (section 7.3).
    const std::uint64_t step = std::max<std::uint64_t>(d.elem_step, 1);
    const std::uint64_t span = ((std::uint64_t(d.row_len) - 1) * step + 1) * std::uint64_t(elem_bytes);
    const std::uint64_t beat = std::uint64_t(hw::kBeatBytes);
    for (std::uint32_t pl = 0; pl < d.n_planes; ++pl)
      for (std::uint32_t y = 0; y < d.n_rows; ++y) {
        std::uint64_t a = d.dram_addr + std::uint64_t(pl) * d.plane_stride + std::uint64_t(y) * d.row_stride;
        std::uint64_t len = span;
        if (step > 1) {
          len = (a + span + beat - 1) / beat * beat - a / beat * beat;
          a = a / beat * beat;
        }
        if (a + len > p_.dram.total_bytes)
          fail_one(fmt::format("DRAM bytes [{:#x}, {:#x}) lie outside the {}-byte image", a, a + len,
                               p_.dram.total_bytes));
        if (!out.empty() && out.back().end == a) out.back().end = a + len;
        else out.push_back({a, a + len});
      }
    return out;
  }

  void check_bounds(const hw::Command& c) const {
    if (c.op == hw::Opcode::Run) {
      const hw::RunDesc& r = c.run;
      const std::uint64_t last = r.last_element();  // the furthest region row (chunks included)
      const std::uint64_t word = last >> hw_.log2_bus;
      if (word >= std::uint64_t(hw_.ifmap_depth))
        fail_one(fmt::format("the feeder reads ifmap word {}, the buffer has {}", word, hw_.ifmap_depth));
      const std::uint64_t wwords = r.pooling() ? 0 : std::uint64_t(r.n_kg) * r.n_c * r.n_ky * r.n_kx;
      if (wwords > std::uint64_t(hw_.weight_depth))
        fail_one(fmt::format("the weight fetcher reads {} words, the buffer has {}", wwords, hw_.weight_depth));
      // A pooling RUN writes one word per (channel, context); a convolution one per output channel.
      const std::uint64_t pwords = (r.pooling() ? std::uint64_t(r.n_c) : std::uint64_t(r.n_kg) * hw_.cols) * r.n_cy * r.n_cx;
      if (pwords > std::uint64_t(hw_.psum_depth))
        fail_one(fmt::format("the RUN uses {} psum words, the buffer has {}", pwords, hw_.psum_depth));
      return;
    }
    const hw::DmaDesc& d = c.dma;
    const std::uint64_t row = std::uint64_t(d.pad_left) + d.row_len + d.pad_right;
    const std::uint64_t rows = std::uint64_t(d.pad_top) + d.n_rows + d.pad_bottom;
    std::uint64_t elems = std::uint64_t(d.n_planes) * rows * row + d.tail;
    std::uint64_t capacity = std::uint64_t(hw_.ifmap_depth) * hw_.bus_elems;
    if (c.op == hw::Opcode::LoadWeights) capacity = std::uint64_t(hw_.weight_depth) * hw_.cols;
    const std::uint32_t word = std::uint32_t(hw_.rows);
    if (c.op == hw::Opcode::StorePsums && (d.row_len + d.pad_right) % word != 0) {
      // Packed rows (section 7.5): planes of n_rows*row_len + tail elements, whole words.
      capacity = std::uint64_t(hw_.psum_depth) * hw_.rows;
      const std::uint64_t plane = std::uint64_t(d.n_rows) * d.row_len + d.tail;
      elems = d.n_planes * plane;
      if (d.pad_left || d.pad_top || d.pad_bottom || d.pad_right || d.tail >= word || plane % word)
        fail_one("packed psum rows must fill planes of n_rows * row_len + tail elements, whole words with a tail "
                 "below one word, with no other padding");
    } else if (c.op == hw::Opcode::LoadPsums || c.op == hw::Opcode::StorePsums) {
      capacity = std::uint64_t(hw_.psum_depth) * hw_.rows;
      if (d.pad_left || d.pad_top || d.pad_bottom || d.tail || (d.row_len + d.pad_right) % word)
        fail_one("psum rows must be row_len + pad_right elements filling whole words, with no other padding");
    }
    if (elems > capacity)
      fail_one(fmt::format("the stream has {} elements, the buffer holds {}", elems, capacity));
    if (c.op == hw::Opcode::StorePsums && c.dma.dst_ifmap && d.n_planes && d.n_rows && d.row_len) {
      // Section 7.6: the rows land inside the ifmap buffer, at element-aligned byte addresses.
      const std::uint64_t eb = std::uint64_t(hw_.elem_bytes());
      if (d.dram_addr % eb || d.plane_stride % eb || d.row_stride % eb)
        fail_one("a store into the ifmap buffer needs element-aligned addresses and strides");
      const std::uint64_t end = d.dram_addr + std::uint64_t(d.n_planes - 1) * d.plane_stride +
                                std::uint64_t(d.n_rows - 1) * d.row_stride + std::uint64_t(d.row_len) * eb;
      const std::uint64_t bytes = std::uint64_t(hw_.ifmap_depth) * hw_.bus_elems * eb;
      if (end > bytes) fail_one(fmt::format("the store writes ifmap bytes up to {}, the buffer holds {}", end, bytes));
    }
  }

  void accesses(const hw::Command& c) {
    switch (c.op) {
      case hw::Opcode::LoadIfmap:
        dram(dram_ranges(c.dma, hw_.elem_bytes()), false);
        buffer(0, c.dma.buf, false, true);
        break;
      case hw::Opcode::LoadWeights:
        dram(dram_ranges(c.dma, hw_.elem_bytes()), false);
        buffer(1, c.dma.buf, false, true);
        break;
      case hw::Opcode::LoadPsums:
        dram(dram_ranges(c.dma, hw_.acc_bytes()), false);
        buffer(2, c.dma.buf, false, true);
        break;
      case hw::Opcode::StorePsums:
        buffer(2, c.dma.buf, true, false);
        if (c.dma.dst_ifmap) buffer(0, c.dma.dst_buf, false, true);  // section 7.6: no DRAM byte
        else dram(dram_ranges(c.dma, hw_.acc_bytes()), true);
        break;
      case hw::Opcode::Run:
        buffer(0, c.run.ifmap_buf, true, false);
        // A pooling RUN reads no weight, but the tops keep its weight buffer from the DMA while it
        // runs (the buffer-ownership assertions), so it counts as a reader here too.
        buffer(1, c.run.weight_buf, true, false);
        buffer(2, c.run.psum_buf, c.run.preload, true);
        break;
    }
  }

  const Program& p_;
  const hw::HwParams& hw_;
  std::vector<int> engine_;
  std::vector<std::uint32_t> ordinal_;
  std::vector<Ordinals> done_;
  Ordinals count_{};
  std::array<std::vector<std::size_t>, 3> by_engine_;
  std::array<std::map<unsigned, AccessState>, 3> buffers_;
  std::map<std::uint64_t, AccessState> dram_;
  std::size_t index_ = 0;
};

}  // namespace

void check_hazards(const Program& p) { Checker(p).run(); }

}  // namespace flycol
