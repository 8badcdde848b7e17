// DRAM traffic over time for network reports: the busiest window (peak bandwidth) and fixed
// buckets for the bandwidth-over-time plot, from the analytic model's traffic spans.
#pragma once

#include <vector>

#include "sim/analytic/analytic_model.h"

namespace flycol::net {

// Bytes per bucket of `bucket` cycles over [0, end) (end = 0: up to the last span).
std::vector<double> bucket_bytes(const std::vector<analytic::TrafficSpan>& spans, double bucket, double end = 0);

// The highest bandwidth (GB/s) over any window of `window` cycles, sliding in steps of an eighth
// of the window; a run shorter than the window gives its average.
double busiest_window_gbps(const std::vector<analytic::TrafficSpan>& spans, double window, double clock_hz);

}  // namespace flycol::net
