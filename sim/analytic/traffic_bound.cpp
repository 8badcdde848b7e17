// The per-layer DRAM traffic lower bound (docs/networks.md, "A lower bound on DRAM traffic"):
// exact counts of the layer's index sets per axis, the on-chip storage of each operand class, and
// the segment bound maximised over the segment size.
#include "sim/analytic/traffic_bound.h"

#include <cmath>
#include <utility>
#include <vector>

namespace flycol::analytic {
namespace {

// One spatial axis of the convolution: output positions o, kernel taps t, input i = o*s - pad + t*d.
struct Axis {
  std::int64_t pairs = 0;         // (o, t) pairs whose input is real
  std::int64_t used_inputs = 0;   // inputs some pair reads
  std::int64_t used_taps = 0;     // taps some pair reads real data with
  std::int64_t reuse = 0;         // the most pairs of one input
  std::int64_t taps_per_out = 0;  // the most real taps of one output
  std::int64_t outs_per_tap = 0;  // the most outputs of one tap with real input
};

Axis axis(int in, int out, int k, int s, int d, int pad) {
  Axis a;
  std::vector<std::int64_t> per_input(std::size_t(std::max(in, 0)), 0), per_tap(std::size_t(k), 0);
  for (int o = 0; o < out; ++o) {
    std::int64_t taps = 0;
    for (int t = 0; t < k; ++t) {
      const std::int64_t i = std::int64_t(o) * s - pad + std::int64_t(t) * d;
      if (i < 0 || i >= in) continue;
      ++per_input[std::size_t(i)];
      ++per_tap[std::size_t(t)];
      ++taps;
    }
    a.pairs += taps;
    a.taps_per_out = std::max(a.taps_per_out, taps);
  }
  for (const std::int64_t n : per_input) {
    a.used_inputs += n > 0;
    a.reuse = std::max(a.reuse, n);
  }
  for (const std::int64_t n : per_tap) {
    a.used_taps += n > 0;
    a.outs_per_tap = std::max(a.outs_per_tap, n);
  }
  return a;
}

// max A*B*C over lo <= (A, B, C) <= hi with A + B + C <= budget (a separable concave problem in
// the logarithms: the optimum is A = clamp(lambda, loA, hiA), ... with the sum at the budget).
// lambda is found by bisection and taken from the upper end of the final bracket, whose
// allocation is the optimum for a budget at least as large: the result is never below the true
// maximum, which keeps the bound valid despite rounding.
double max_product(const double lo[3], const double hi[3], double budget) {
  const auto alloc = [&](double lambda, double v[3]) {
    double sum = 0;
    for (int i = 0; i < 3; ++i) sum += v[i] = std::min(std::max(lambda, lo[i]), hi[i]);
    return sum;
  };
  double v[3];
  double a = std::min({lo[0], lo[1], lo[2]}), b = std::max({hi[0], hi[1], hi[2]});
  if (alloc(b, v) <= budget) return v[0] * v[1] * v[2];
  for (int it = 0; it < 200 && b - a > 1e-12 * b; ++it) {
    const double m = 0.5 * (a + b);
    if (alloc(m, v) >= budget) b = m; else a = m;
  }
  alloc(b, v);
  return v[0] * v[1] * v[2];
}

}  // namespace

OnChipStorage on_chip_storage(const hw::HwParams& hw) {
  const std::int64_t rows = hw.rows, cols = hw.cols, bus = hw.bus_elems;
  // A DMA engine holds up to QD beats of responses and its packer word. The LD engine loads both
  // ifmap and weights, so both classes count it (a double count only lowers the bound).
  const auto dma = [](int bytes, std::int64_t word) {
    return std::int64_t(hw::kChunkQueueDepth) * hw::kBeatBytes / bytes + word;
  };
  OnChipStorage s;
  s.ifmap = std::int64_t(hw.ifmap_depth) * bus * hw.ifmap_buffers  // section 4: B elements a word
            + rows * cols                                          // the PEs' pass-through copies of a
            + rows * (rows + 1)                                    // issue register and feed triangle
            + rows * std::int64_t(hw.m) * (hw.lane_fifo_depth + 1) // lane FIFOs, intermediate registers
            + 2 * bus                                              // selection word, the word being read
            + dma(hw.elem_bytes(), bus);
  s.weights = std::int64_t(hw.weight_depth) * cols * hw.weight_buffers  // a word is one row of COLS weights
              + rows * cols                                             // the PEs' copies of w
              + cols * (cols + 1)                                       // issue register and feed triangle
              + std::int64_t(hw::kWeightFifoDepth + 2) * cols           // weight FIFO, the word in flight
              + dma(hw.elem_bytes(), cols);
  s.psums = std::int64_t(hw.psum_depth) * rows * hw.psum_buffers  // a word is ROWS accumulators
            + 2 * rows * cols                                     // accumulators and reserve registers
            + 2 * rows * rows                                     // preload skew line and result de-skew
            + std::int64_t(hw.preload_queue_depth() + hw::kResultQueueDepth + 2) * rows  // queues, reads in flight
            + dma(hw.acc_bytes(), rows) + 2 * rows;               // PS engine: load side, store word FIFO
  return s;
}

BoundParams bound_params(const hw::HwParams& hw) {
  BoundParams p;
  p.elem_bytes = hw.elem_bytes();
  p.acc_bytes = hw.acc_bytes();
  p.storage = on_chip_storage(hw);
  return p;
}

LayerReach layer_reach(const Layer& l) {
  const Axis y = axis(l.h, l.ho(), l.ky, l.sy, l.dy, l.pt), x = axis(l.w, l.wo(), l.kx, l.sx, l.dx, l.pl);
  const std::int64_t n = l.n, c = l.c, k = l.k;
  LayerReach r;
  r.macs = n * k * c * y.pairs * x.pairs;
  r.inputs = n * c * y.used_inputs * x.used_inputs;
  r.weights = k * c * y.used_taps * x.used_taps;
  r.outputs = l.ofmap_elems();
  r.reuse = y.reuse * x.reuse;
  r.macs_per_output = c * y.taps_per_out * x.taps_per_out;
  r.macs_per_weight = n * y.outs_per_tap * x.outs_per_tap;
  r.macs_per_input = r.reuse * k;
  return r;
}

double segment_macs(const LayerReach& r, const BoundParams& p, double t, int store_weight) {
  // A store of an output or partial sum counts ws bytes of the segment's budget.
  const double be = p.elem_bytes, ba = double(p.acc_bytes) * store_weight;
  const double si = double(p.storage.ifmap), sw = double(p.storage.weights), so = double(p.storage.psums);
  const double ni = double(r.inputs), nw = double(r.weights), no = double(r.outputs);
  // Distinct values of each class a segment can touch, in bytes, never more than the layer has.
  // Inputs and weights: what is resident at its start plus what it loads. Outputs: the psum store
  // plus what it stores. A partial sum with MACs not yet in DRAM cannot leave the chip, so an
  // output can only take the slot of one that left clean or after a store (docs/networks.md).
  const double lo[3] = {be * std::min(si, ni), be * std::min(sw, nw), ba * std::min(so, no)};
  const double hi[3] = {be * ni, be * nw, ba * no};
  const double prod = max_product(lo, hi, lo[0] + lo[1] + lo[2] + t);
  const double lw = std::sqrt(double(r.reuse) * prod / (be * be * ba));
  // Bounds from one projection each: an output has at most macs_per_output MACs, a weight at most
  // macs_per_weight, an input element at most macs_per_input.
  const double o_max = std::min(so + t / ba, no), w_max = std::min(sw + t / be, nw),
               i_max = std::min(si + t / be, ni);
  return std::min({lw, o_max * double(r.macs_per_output), w_max * double(r.macs_per_weight),
                   i_max * double(r.macs_per_input), double(r.macs)});
}

TrafficBound traffic_bound(const Layer& l, const BoundParams& p) {
  const LayerReach r = layer_reach(l);
  TrafficBound b;
  b.compulsory = std::uint64_t(r.inputs + r.weights) * std::uint64_t(p.elem_bytes) +
                 std::uint64_t(r.outputs) * std::uint64_t(p.acc_bytes);
  if (r.macs == 0) return b;
  // Cut the execution into segments of at most T bytes: every segment but the last moves more
  // than T - (the largest transfer), and each executes at most segment_macs(T) MACs, so the
  // traffic is at least (macs / segment_macs(T) - 1) * (T - largest) for every T.
  // The charged count: cut by ifmap and weight loads plus twice the stores of outputs that left
  // the chip after a MAC. Such a store of an unfinished output is followed by its reload, so the
  // traffic is at least the charged bytes less one store per output.
  const double largest = std::max(p.elem_bytes, p.acc_bytes);
  const double largest_charged = std::max(p.elem_bytes, 2 * p.acc_bytes);
  const double finals = double(r.outputs) * p.acc_bytes;
  const double storage = double(p.storage.ifmap + p.storage.weights) * p.elem_bytes +
                         double(p.storage.psums) * p.acc_bytes;
  const double t_max = 8.0 * (storage + double(b.compulsory));
  // The multiplier's operands come from the ifmap and the weight SRAMs, but nothing stops a
  // program from loading the layer's ifmap as the array's weights and the reverse (a 1x1 layer
  // is a GeMM either way round), so a segment may do as many MACs as either assignment allows.
  BoundParams swapped = p;
  std::swap(swapped.storage.ifmap, swapped.storage.weights);
  double best = 0;
  for (double t = 2 * largest; t <= t_max; t *= 1.005) {
    const double f = std::max(segment_macs(r, p, t), segment_macs(r, swapped, t));
    const double f2 = std::max(segment_macs(r, p, t, 2), segment_macs(r, swapped, t, 2));
    const double q = std::max((double(r.macs) / f - 1.0) * (t - largest),
                              (double(r.macs) / f2 - 1.0) * (t - largest_charged) - finals);
    if (q > best) {
      best = q;
      b.segment_bytes = t;
    }
  }
  // Rounding of the doubles above: shave a relative 1e-9 so the integer never exceeds the bound.
  b.segment = std::uint64_t(std::floor(best * (1.0 - 1e-9)));
  return b;
}

}  // namespace flycol::analytic
