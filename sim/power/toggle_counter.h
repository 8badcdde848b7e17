// Toggle counting from a VCD stream: the Verilated RTL writes its VCD (every traced signal, one
// sample per cycle) into feed() instead of a file, and this counts, per distinct signal, the bits
// that changed between consecutive samples. It knows nothing about blocks; power.h places the
// signals. Signals that several names share (Verilator gives aliases one code) count once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace flycol::power {

struct TracedSignal {
  int width = 0;
  std::vector<std::string> names;  // hierarchical, scopes joined with '.'
  std::uint64_t toggles = 0;       // bit changes between samples (the first sample sets values)
  std::uint64_t changes = 0;       // samples in which at least one bit changed
  std::uint64_t ones = 0;          // 1-bit signals: samples in which the value was 1
};

class VcdToggleCounter {
public:
  // Streaming input: any split of the text is fine.
  void feed(const char* data, std::size_t size);
  // Ends the stream (a last sample without a following timestamp is counted).
  void finish();

  const std::vector<TracedSignal>& signals() const { return signals_; }
  // Samples (timestamps) seen; toggles are counted over samples - 1 transitions.
  std::uint64_t samples() const { return samples_; }
  bool header_done() const { return header_done_; }

private:
  void line(const char* p, std::size_t n);
  void header_line(const std::string& l);
  int lookup(const char* code, std::size_t n) const;
  void end_sample();

  std::string partial_;
  bool header_done_ = false;
  bool finished_ = false;
  std::vector<std::string> scope_;
  std::vector<TracedSignal> signals_;
  std::vector<std::size_t> word_offset_;   // per signal: first 64-bit word of its value
  std::vector<std::uint64_t> words_;       // current values
  std::vector<char> scalar_;               // per signal: 1-bit value
  std::vector<int> direct_;                // decoded code -> signal (dense codes)
  std::unordered_map<std::string, int> by_code_;  // fallback
  std::uint64_t samples_ = 0;
  bool counting_ = false;  // after the first sample
  std::vector<std::uint64_t> scratch_;
};

}  // namespace flycol::power
