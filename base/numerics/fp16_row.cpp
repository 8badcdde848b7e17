// The compiled forms of fp16::mac_row over the rows of an array (fp16_row.h): one for the baseline
// instruction set and, on x86-64 with GCC or Clang, one for AVX2, both exposed so a test can run
// them side by side on the same inputs; mac_rows picks one once per process.
#include "base/numerics/fp16_row.h"

namespace flycol::fp16 {

namespace {

// The shared loop; flatten (below) inlines it, mac_row and mac_lane_bits into each entry point so
// that each is compiled, and vectorized, for its own target.
inline int rows_loop(const float* a, const float* w, float* acc, int rows, int cols, bool gating) {
  int gated = 0;
  for (int r = 0; r < rows; ++r) gated += mac_row(a[r], w, acc + std::size_t(r) * std::size_t(cols), cols, gating);
  return gated;
}

}  // namespace

__attribute__((flatten)) int mac_rows_portable(const float* a, const float* w, float* acc, int rows, int cols,
                                               bool gating) {
  return rows_loop(a, w, acc, rows, cols, gating);
}

#if FLYCOL_MAC_ROW_AVX2
__attribute__((target("avx2"), flatten)) int mac_rows_avx2(const float* a, const float* w, float* acc, int rows,
                                                            int cols, bool gating) {
  return rows_loop(a, w, acc, rows, cols, gating);
}

bool mac_rows_avx2_available() {
  static const bool cpu_has_avx2 = __builtin_cpu_supports("avx2") != 0;
  return cpu_has_avx2;
}
#else
int mac_rows_avx2(const float* a, const float* w, float* acc, int rows, int cols, bool gating) {
  return rows_loop(a, w, acc, rows, cols, gating);
}

bool mac_rows_avx2_available() { return false; }
#endif

int mac_rows(const float* a, const float* w, float* acc, int rows, int cols, bool gating) {
  static const bool avx2 = mac_rows_avx2_available();
  return avx2 ? mac_rows_avx2(a, w, acc, rows, cols, gating) : mac_rows_portable(a, w, acc, rows, cols, gating);
}

}  // namespace flycol::fp16
