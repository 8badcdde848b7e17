// Random helpers of the block testbenches: one seeded generator with the draws the benches use
// (bits, chance, uniform ranges, picks), and independent sub-seeds for several streams of one run.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

namespace flycol::tb {

class Rand {
public:
  explicit Rand(std::uint64_t seed) : rng_(seed) {}
  std::uint64_t bits(int n) { return n >= 64 ? rng_() : rng_() & ((std::uint64_t(1) << n) - 1); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::uint64_t uniform64(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng_);
  }
  template <class T>
  T pick(std::initializer_list<T> xs) {
    return *(xs.begin() + uniform(0, int(xs.size()) - 1));
  }
  std::mt19937_64& engine() { return rng_; }

private:
  std::mt19937_64 rng_;
};

// A rate that holds for phases of random length (each cycle ends the phase with chance
// 1/mean_phase) and is drawn anew from `levels` for the next: stimulus that is sometimes idle,
// sometimes saturating, sometimes in between, for long enough to fill or drain what it feeds.
class PhasedRate {
public:
  PhasedRate(std::initializer_list<double> levels, int mean_phase, double first = 0.5)
      : levels_(levels), mean_phase_(mean_phase), rate_(first) {}
  // The rate of this cycle (perhaps the first of a new phase), and a draw with it.
  double next(Rand& r) {
    if (r.uniform(1, mean_phase_) == 1) rate_ = levels_[std::size_t(r.uniform(0, int(levels_.size()) - 1))];
    return rate_;
  }
  bool draw(Rand& r) { return r.chance(next(r)); }

private:
  std::vector<double> levels_;
  int mean_phase_;
  double rate_;
};

// The k-th sub-seed of `seed` (splitmix64 of seed + k), so that streams drawn for different units
// or views of one run do not repeat each other.
inline std::uint64_t sub_seed(std::uint64_t seed, std::uint64_t k) {
  std::uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace flycol::tb
