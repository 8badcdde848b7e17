// Binary16 MACs over a row of half-in-float accumulators, written without branches in the loop
// body so the compiler vectorizes it:
//   mac_row:  acc[i] = mac(a, w[i], acc[i])   one array row per simulated step (the array core)
// Bit-exact with fp16::fma_hf / fp16::mac (see detail::add_round_to_odd for why the float
// datapath is exact); falls back to the scalar path when an infinity or NaN appears.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/numerics/fp16.h"

namespace flycol::fp16 {

inline constexpr int kMaxRowLanes = 64;

namespace detail {

inline std::uint32_t mask_of(bool c) { return 0u - std::uint32_t(c); }

// One ungated MAC p = a*w, acc + p rounded once to binary16, for finite operands. `bad` collects
// whether an operand or the product was infinite or NaN (then the result is not meaningful).
// Selects are bit masks, not ?: or &&, so that loops calling this have no control flow.
inline std::uint32_t mac_lane_bits(float a, float w, float c, std::uint32_t& bad) {
  const float p = a * w;
  const float s = p + c;
  const float bp = s - p;
  const float err = (p - (s - bp)) + (c - bp);
  std::uint32_t sb, eb, pb, cb;
  std::memcpy(&sb, &s, 4);
  std::memcpy(&eb, &err, 4);
  std::memcpy(&pb, &p, 4);
  std::memcpy(&cb, &c, 4);
  const std::uint32_t step = std::uint32_t(std::int32_t(sb ^ eb) >> 31) | 1u;
  sb += step & mask_of((eb << 1) != 0) & mask_of((sb & 1u) == 0);  // round to odd
  const std::uint32_t u = sb & 0x7FFFFFFFu, sign = sb & 0x80000000u;
  const std::uint32_t rn = (u + 0x0FFFu + ((u >> 13) & 1u)) & ~0x1FFFu;
  float uf;
  std::memcpy(&uf, &u, 4);
  const float sub_f = (uf + 0.5f) - 0.5f;
  std::uint32_t sub;
  std::memcpy(&sub, &sub_f, 4);
  const std::uint32_t normal = mask_of(u >= 0x38800000u), over = mask_of(u >= 0x477FF000u);
  std::uint32_t r = (rn & normal) | (sub & ~normal);
  r = (0x7F800000u & over) | (r & ~over);
  bad |= mask_of((pb & 0x7F800000u) == 0x7F800000u) | mask_of((cb & 0x7F800000u) == 0x7F800000u);
  return r | sign;
}

inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace detail

// acc[i] = mac(a, w[i], acc[i]) for i < n (n <= kMaxRowLanes). Returns the number of gated MACs.
inline int mac_row(float a, const float* w, float* acc, int n, bool gating) {
  if (gating && a == 0.0f) return n;  // the whole row is gated: nothing changes
  float save[kMaxRowLanes];
  std::memcpy(save, acc, sizeof(float) * std::size_t(n));
  std::uint32_t bad = 0;
  int gated = 0;
  const std::uint32_t gate_on = detail::mask_of(gating);
  for (int i = 0; i < n; ++i) {
    const float ci = acc[i];
    const std::uint32_t r = detail::mac_lane_bits(a, w[i], ci, bad);
    const std::uint32_t g = gate_on & detail::mask_of((detail::float_bits(w[i]) << 1) == 0);
    gated += int(g & 1u);
    const std::uint32_t out = (detail::float_bits(ci) & g) | (r & ~g);
    std::memcpy(&acc[i], &out, 4);
  }
  if (bad) {
    // An infinity or NaN somewhere in the row: redo it on the exact scalar path.
    gated = 0;
    for (int i = 0; i < n; ++i) {
      const bool g = gating && w[i] == 0.0f;
      gated += g;
      acc[i] = g ? save[i] : fma_hf(a, w[i], save[i]);
    }
  }
  return gated;
}

// The array's MAC step on a whole accumulator matrix: mac_row(a[r], w, acc + r*cols, cols, gating)
// for every row r < rows; returns the gated MAC count. Compiled twice (fp16_row.cpp): for the
// baseline instruction set and for AVX2, where the compiler vectorizes 8 lanes wide. Both do the
// same IEEE float operations, so they must give the same bits; tests/numerics runs them side by
// side. mac_rows_avx2 runs only where mac_rows_avx2_available() (compiled for x86-64 with GCC or
// Clang, and the CPU has AVX2); elsewhere it is the portable code. mac_rows uses the AVX2 form
// when available (decided once per process).
#if defined(__x86_64__) && defined(__GNUC__)
#define FLYCOL_MAC_ROW_AVX2 1
#else
#define FLYCOL_MAC_ROW_AVX2 0
#endif
int mac_rows_portable(const float* a, const float* w, float* acc, int rows, int cols, bool gating);
int mac_rows_avx2(const float* a, const float* w, float* acc, int rows, int cols, bool gating);
bool mac_rows_avx2_available();
int mac_rows(const float* a, const float* w, float* acc, int rows, int cols, bool gating);

}  // namespace flycol::fp16
