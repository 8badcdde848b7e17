// Bucketing of traffic spans: each span's bytes are spread uniformly over the cycles it covers.
#include "sim/network/traffic.h"

#include <algorithm>
#include <cmath>

namespace flycol::net {

std::vector<double> bucket_bytes(const std::vector<analytic::TrafficSpan>& spans, double bucket, double end) {
  if (end <= 0)
    for (const auto& s : spans) end = std::max(end, s.t1);
  if (bucket <= 0 || end <= 0) return {};
  std::vector<double> b(std::size_t(std::ceil(end / bucket)), 0.0);
  for (const auto& s : spans) {
    if (s.t1 <= s.t0 || s.bytes <= 0) continue;
    const double rate = s.bytes / (s.t1 - s.t0);
    std::size_t i = std::size_t(s.t0 / bucket);
    for (double t = s.t0; t < s.t1 && i < b.size(); ++i) {
      const double stop = std::min(s.t1, double(i + 1) * bucket);
      b[i] += rate * (stop - t);
      t = stop;
    }
  }
  return b;
}

double busiest_window_gbps(const std::vector<analytic::TrafficSpan>& spans, double window, double clock_hz) {
  double end = 0, total = 0;
  for (const auto& s : spans) {
    end = std::max(end, s.t1);
    total += s.bytes;
  }
  if (end <= 0 || window <= 0) return 0.0;
  if (end <= window) return total / (end / clock_hz) / 1e9;
  constexpr int kSteps = 8;
  const std::vector<double> b = bucket_bytes(spans, window / kSteps, end);
  double best = 0, sum = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    sum += b[i];
    if (i >= std::size_t(kSteps)) sum -= b[i - kSteps];
    best = std::max(best, sum);
  }
  return best / (window / clock_hz) / 1e9;
}

}  // namespace flycol::net
