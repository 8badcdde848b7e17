// Timing of one RUN command in the analytic model (docs/microarchitecture.md sections 8-10,
// sim/analytic/README.md): the feeder's reads and lane holds per interest-region row, the lane
// FIFOs between feeder and array, the window rules of the issue stage and the pipeline fill and
// drain. A RUN's timing depends only on its descriptor, so results are cached per descriptor.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "hw/common/command.h"
#include "hw/common/hw_params.h"

namespace flycol::analytic {

// What a RUN costs, counted like the SystemC model's cycle classes (spec section 10).
struct RunTiming {
  std::uint64_t cycles = 0;  // from the start cycle s to the completing cycle (done at s + cycles)
  std::uint64_t mac = 0, feeder_stall = 0, weight_stall = 0, context_stall = 0, pipeline = 0;
  std::uint64_t pool = 0;  // a pooling RUN's element steps (section 16); its mac is 0
  std::uint64_t ifmap_reads = 0;   // feeder SRAM reads
  std::uint64_t weight_reads = 0;  // weight fetcher SRAM reads
  std::uint64_t psum_reads = 0, psum_writes = 0;  // preload reads, result writes
};

// Where a pooling RUN's window elements come from. `feeder`: the hardware (section 16), the data
// feeder's lanes. `strided`: the seed's baseline, pooling without im2col (docs/networks.md,
// "Pooling on chip"), modelled, not built: the same ROWS pool lanes, ifmap SRAM, tiles and divider,
// but a direct strided-access address generator instead of the feeder. Each window step (one
// element per lane) reads every ifmap word that holds one of the ROWS lanes' elements, one word per
// cycle, and keeps nothing for the next step, so a step costs as many cycles as it touches words.
enum class PoolFeed { feeder, strided };

class RunTimer {
public:
  explicit RunTimer(const hw::HwParams& p, PoolFeed pool_feed = PoolFeed::feeder);

  // The timing of `r` (buffer indices are ignored); computed once per distinct descriptor.
  const RunTiming& timing(const hw::RunDesc& r);

  std::size_t distinct_runs() const { return cache_.size(); }

private:
  // Feeder behaviour of one interest-region row, by its global word offset and the lanes' fill
  // level at the row start, as the lanes take it without a full FIFO (section 9.2): SEL cycles and
  // SRAM reads, each word's SEL cycles, and every lane's pushes. Each lane takes its elements of a
  // word on its own; it needs the word one cycle more per group it pushes while elements remain,
  // and the word leaves once every lane is done with it. Lanes whose pushes in a word are the same
  // (cycles and groups) are held alike, so each word keeps one copy of them with their count.
  struct LanePush {
    int word = 0;   // the word of the row in which the lanes push
    int group = 0;  // the group, counted from the first one completed in the row
    int lane = 0;   // the first of the lanes (their holds in this word are kept under its index)
    int lanes = 0;  // how many lanes push alike
    int at = 0;     // SEL cycle of the push, relative to the word's first cycle
    int len = 0;    // SEL cycles the lanes need the word (without holds)
  };
  struct RowShape {
    int cycles = 0;
    int reads = 0;
    int columns = 0;                // kernel columns of the row (elements per lane)
    int groups = 0;                 // groups completed in the row (not counting a final flush)
    std::vector<int> word_cycles;   // per word: the most any lane needs it
    std::vector<LanePush> pushes;   // in (word, group, lane) order
    std::vector<LanePush> flush;    // the RUN's last group, if partial: pushed in the last word
  };
  // A region row is one kernel-column chunk (spec 9.2): its pattern and region width.
  // Index go * M + fill; `ox` is the context's first pixel column (pixel packing, 0 without):
  // the lanes' local offsets depend on it.
  std::vector<RowShape> row_shapes(const hw::RunDesc& r, std::uint64_t pattern, std::uint32_t region,
                                   std::uint32_t ox) const;
  RunTiming compute(const hw::RunDesc& r) const;
  RunTiming strided_pool(const hw::RunDesc& r) const;  // PoolFeed::strided, a pooling RUN

  hw::HwParams p_;
  PoolFeed pool_feed_;
  using Key = std::tuple<bool, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                         std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                         std::uint32_t, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t,
                         std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                         std::uint32_t, std::uint32_t, std::uint32_t>;
  std::map<Key, RunTiming> cache_;
};

}  // namespace flycol::analytic
