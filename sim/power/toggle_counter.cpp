// The VCD toggle counter (toggle_counter.h). The header gives each code its names and width;
// value changes update the current value and count the changed bits. Codes are decoded to dense
// integers (Verilator numbers them 0, 1, 2, ... in a base-94 text form) with a fallback map.
#include "sim/power/toggle_counter.h"

#include <bitset>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace flycol::power {
namespace {

// A bijection from code strings (characters '!'..'~') to integers: the inverse of the way
// Verilator writes its codes, so that its codes come out dense. Returns ~0 for other text.
std::uint64_t decode(const char* p, std::size_t n) {
  if (n == 0 || n > 8) return ~0ull;
  std::uint64_t q = 0;
  for (std::size_t i = n - 1; i >= 1; --i) {
    const int d = p[i] - '!';
    if (d < 0 || d >= 94) return ~0ull;
    q = q * 94 + std::uint64_t(d) + 1;
  }
  const int d0 = p[0] - '!';
  if (d0 < 0 || d0 >= 94) return ~0ull;
  return std::uint64_t(d0) + 94 * q;
}

constexpr std::uint64_t kDenseLimit = 1u << 24;

}  // namespace

void VcdToggleCounter::feed(const char* data, std::size_t size) {
  std::size_t start = 0;
  if (!partial_.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(data, '\n', size));
    if (!nl) {
      partial_.append(data, size);
      return;
    }
    partial_.append(data, std::size_t(nl - data));
    line(partial_.data(), partial_.size());
    partial_.clear();
    start = std::size_t(nl - data) + 1;
  }
  while (start < size) {
    const char* p = data + start;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size - start));
    if (!nl) {
      partial_.assign(p, size - start);
      return;
    }
    line(p, std::size_t(nl - p));
    start = std::size_t(nl - data) + 1;
  }
}

void VcdToggleCounter::finish() {
  if (finished_) return;
  if (!partial_.empty()) {
    line(partial_.data(), partial_.size());
    partial_.clear();
  }
  if (samples_ > 0) end_sample();
  finished_ = true;
}

int VcdToggleCounter::lookup(const char* code, std::size_t n) const {
  const std::uint64_t k = decode(code, n);
  if (k < direct_.size()) return direct_[k];
  const auto it = by_code_.find(std::string(code, n));
  return it == by_code_.end() ? -1 : it->second;
}

void VcdToggleCounter::header_line(const std::string& l) {
  std::istringstream ss(l);
  std::vector<std::string> t;
  std::string w;
  while (ss >> w) t.push_back(w);
  if (t.empty()) return;
  if (t[0] == "$scope" && t.size() >= 3) {
    scope_.push_back(t[2]);
  } else if (t[0] == "$upscope") {
    if (!scope_.empty()) scope_.pop_back();
  } else if (t[0] == "$var" && t.size() >= 5) {
    const int width = std::stoi(t[2]);
    const std::string& code = t[3];
    std::string name;
    for (const auto& s : scope_) name += s + ".";
    name += t[4];
    int idx = -1;
    const auto it = by_code_.find(code);
    if (it != by_code_.end()) {
      idx = it->second;
    } else {
      idx = int(signals_.size());
      TracedSignal s;
      s.width = width;
      signals_.push_back(s);
      word_offset_.push_back(words_.size());
      words_.resize(words_.size() + std::size_t((width + 63) / 64), 0);
      scalar_.push_back(0);
      by_code_.emplace(code, idx);
      const std::uint64_t k = decode(code.data(), code.size());
      if (k < kDenseLimit) {
        if (direct_.size() <= k) direct_.resize(std::size_t(k) + 1, -1);
        direct_[std::size_t(k)] = idx;
      }
    }
    signals_[std::size_t(idx)].names.push_back(name);
  } else if (t[0] == "$enddefinitions") {
    header_done_ = true;
  }
}

void VcdToggleCounter::end_sample() {
  for (std::size_t i = 0; i < signals_.size(); ++i)
    if (signals_[i].width == 1 && scalar_[i]) ++signals_[i].ones;
}

void VcdToggleCounter::line(const char* p, std::size_t n) {
  while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' ')) --n;
  if (n == 0) return;
  if (!header_done_) {
    header_line(std::string(p, n));
    return;
  }
  const char c = p[0];
  if (c == '#') {
    if (samples_ > 0) {
      end_sample();
      counting_ = true;
    }
    ++samples_;
    return;
  }
  if (c == '0' || c == '1' || c == 'x' || c == 'z' || c == 'X' || c == 'Z') {
    const int idx = lookup(p + 1, n - 1);
    if (idx < 0) return;
    const char v = c == '1';
    if (counting_ && v != scalar_[std::size_t(idx)]) {
      ++signals_[std::size_t(idx)].toggles;
      ++signals_[std::size_t(idx)].changes;
    }
    scalar_[std::size_t(idx)] = v;
    words_[word_offset_[std::size_t(idx)]] = std::uint64_t(v);
    return;
  }
  if (c == 'b' || c == 'B') {
    const char* sp = static_cast<const char*>(std::memchr(p, ' ', n));
    if (!sp) return;
    const std::size_t len = std::size_t(sp - p) - 1;
    const int idx = lookup(sp + 1, n - std::size_t(sp - p) - 1);
    if (idx < 0) return;
    TracedSignal& s = signals_[std::size_t(idx)];
    const std::size_t nw = std::size_t((s.width + 63) / 64);
    scratch_.assign(nw, 0);
    const char* bits = p + 1;
    const std::size_t use = len < std::size_t(s.width) ? len : std::size_t(s.width);
    for (std::size_t j = 0; j < use; ++j)
      if (bits[len - 1 - j] == '1') scratch_[j / 64] |= 1ull << (j % 64);
    std::uint64_t* cur = &words_[word_offset_[std::size_t(idx)]];
    if (counting_) {
      std::uint64_t changed = 0;
      for (std::size_t w = 0; w < nw; ++w) changed += std::bitset<64>(cur[w] ^ scratch_[w]).count();
      s.toggles += changed;
      s.changes += changed > 0;
    }
    for (std::size_t w = 0; w < nw; ++w) cur[w] = scratch_[w];
    if (s.width == 1) scalar_[std::size_t(idx)] = char(scratch_[0] & 1);
    return;
  }
  // $dumpvars, $end, real values and the like: nothing to count.
}

}  // namespace flycol::power
