// The hazard checker against deliberately broken programs (dropped or lowered waits, waits on
// later commands, accesses outside a buffer), and a soundness check that does not trust it:
// whenever it accepts a program, every random execution order that the wait thresholds and
// in-order engines allow must give the golden result.
#include <catch2/catch.hpp>

#include "tests/compiler/compiler_support.h"

using namespace flycol;
using namespace flycol::test;

namespace {

// Compiles with forced small tiles so that the program has channel slices, several output-channel
// and column tiles, and reuses resident tiles.
Program broken_base(const Config& cfg, const std::string& order) {
  CompileOptions o;
  o.tile_c = 3;
  o.tile_kg = 1;
  o.tile_h = 2;
  o.tile_w = 4;
  o.order = order;
  return compile_layer(parse_layer_spec("name=hz,C=7,H=9,W=11,K=6,k=3,p=1"), cfg, o);
}

// The message must name both commands by their stream index.
void expect_hazard(const Program& p, std::size_t earlier, std::size_t later) {
  try {
    check_hazards(p);
    FAIL("check_hazards accepted the broken program:\n" << p.listing());
  } catch (const std::logic_error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK_THAT(m, Catch::Contains(fmt::format("#{} ", earlier)));
    CHECK_THAT(m, Catch::Contains(fmt::format("#{} ", later)));
  }
}

std::size_t find(const Program& p, hw::Opcode op, std::size_t from = 0) {
  for (std::size_t i = from; i < p.commands.size(); ++i)
    if (p.commands[i].op == op) return i;
  FAIL("no such command");
  return 0;
}

// Stream index of the `ordinal`-th (1-based) command of an engine.
std::size_t command_of(const Program& p, hw::Engine e, std::uint32_t ordinal) {
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < p.commands.size(); ++i)
    if (hw::engine_of(p.commands[i].op) == e && ++n == ordinal) return i;
  FAIL("no such ordinal");
  return 0;
}

// A random order in which the hardware could complete the commands, each run atomically: engines
// take their commands in stream order, and a command may go once its waits are met.
std::vector<std::size_t> random_schedule(const Program& p, std::mt19937_64& rng) {
  std::array<std::vector<std::size_t>, 3> queue;
  for (std::size_t i = 0; i < p.commands.size(); ++i) queue[std::size_t(hw::engine_of(p.commands[i].op))].push_back(i);
  std::array<std::size_t, 3> head{};
  std::array<std::uint32_t, 3> done{};
  std::vector<std::size_t> order;
  while (order.size() < p.commands.size()) {
    std::vector<std::size_t> ready;
    for (std::size_t e = 0; e < 3; ++e) {
      if (head[e] == queue[e].size()) continue;
      const hw::Command& c = p.commands[queue[e][head[e]]];
      if (done[0] >= c.wait_ld && done[1] >= c.wait_ex && done[2] >= c.wait_ps) ready.push_back(e);
    }
    REQUIRE(!ready.empty());  // a deadlock
    const std::size_t e = ready[std::size_t(uniform(rng, 0, int(ready.size()) - 1))];
    order.push_back(queue[e][head[e]++]);
    ++done[e];
  }
  return order;
}

// Interprets the program in `order` and compares with golden::conv.
std::string run_in_order(const Program& p, const std::vector<std::size_t>& order, std::uint64_t seed) {
  Program q = p;
  for (std::size_t i = 0; i < order.size(); ++i) {
    q.commands[i] = p.commands[order[i]];
    q.notes[i] = p.notes[order[i]];
  }
  const ConvOperands ops = make_random_operands(p.layer, p.config.arithmetic, seed);
  std::vector<std::uint8_t> dram = build_dram_image(p, ops);
  try {
    interpret(q, dram);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  golden::ConvOptions go;
  go.zero_gating = p.config.zero_gating;
  return first_mismatch(extract_outputs(p, dram.data()), golden::conv(ops, go), p.layer);
}

}  // namespace

TEST_CASE("the hazard checker catches a RUN that does not wait for its loads", "[compiler][hazards]") {
  Program p = broken_base(small_config(), "output_stationary");
  const std::size_t run = find(p, hw::Opcode::Run);
  p.commands[run].wait_ld = 0;
  expect_hazard(p, find(p, hw::Opcode::LoadIfmap), run);  // the first conflict found: its ifmap
}

TEST_CASE("the hazard checker catches a store that does not wait for its RUN", "[compiler][hazards]") {
  Program p = broken_base(small_config(), "output_stationary");
  const std::size_t store = find(p, hw::Opcode::StorePsums);
  const std::size_t run = command_of(p, hw::Engine::EX, p.commands[store].wait_ex);
  p.commands[store].wait_ex -= 1;
  expect_hazard(p, run, store);
}

TEST_CASE("the hazard checker catches a load that overwrites a buffer a RUN still reads", "[compiler][hazards]") {
  Program p = broken_base(small_variant(Arithmetic::fp16, 1, 1, 1), "output_stationary");
  // The second ifmap load into the single buffer waits for the RUN that read the first tile.
  const std::size_t load = find(p, hw::Opcode::LoadIfmap, find(p, hw::Opcode::LoadIfmap) + 1);
  REQUIRE(p.commands[load].wait_ex > 0);
  const std::size_t run = command_of(p, hw::Engine::EX, p.commands[load].wait_ex);
  p.commands[load].wait_ex -= 1;
  expect_hazard(p, run, load);
}

TEST_CASE("the hazard checker catches a RUN that overwrites psums before they are stored", "[compiler][hazards]") {
  Program p = broken_base(small_variant(Arithmetic::fp16, 2, 2, 1), "output_stationary");
  const std::size_t store = find(p, hw::Opcode::StorePsums);
  std::size_t run = store + 1;
  while (p.commands[run].op != hw::Opcode::Run) ++run;
  REQUIRE(p.commands[run].wait_ps == 1);
  p.commands[run].wait_ps = 0;
  expect_hazard(p, store, run);
}

TEST_CASE("the hazard checker catches spilled psums reloaded or used out of order", "[compiler][hazards]") {
  const Program base = broken_base(small_variant(Arithmetic::fp16, 2, 2, 1), "spill");
  const std::size_t load = find(base, hw::Opcode::LoadPsums);
  {
    // The psum load waits for the RUN that last used the single psum buffer; that RUN's store
    // precedes the load on the in-order PS engine and waited for it too, so the checker must see
    // that the lowered wait is still implied (guarantees are transitive).
    Program p = base;
    REQUIRE(p.commands[load].wait_ex > 0);
    REQUIRE(p.commands[load - 3].op == hw::Opcode::StorePsums);
    p.commands[load].wait_ex -= 1;
    CHECK_NOTHROW(check_hazards(p));
    p.commands[load - 3].wait_ex -= 1;  // now nothing orders that RUN before the store or the load
    expect_hazard(p, std::size_t(load - 4), load - 3);
  }
  {
    // The preloading RUN must wait for the psum load.
    Program p = base;
    const std::size_t run = find(p, hw::Opcode::Run, load);
    REQUIRE(p.commands[run].run.preload);
    p.commands[run].wait_ps -= 1;
    expect_hazard(p, load, run);
  }
}

TEST_CASE("the hazard checker rejects a wait on a later command and accesses outside a buffer", "[compiler][hazards]") {
  const Program base = broken_base(small_config(), "output_stationary");
  {
    Program p = base;
    const std::size_t run = find(p, hw::Opcode::Run);
    p.commands[run].wait_ps = 1;  // no PS command precedes the first RUN
    CHECK_THROWS_WITH(check_hazards(p), Catch::Contains("later command") && Catch::Contains(fmt::format("#{} ", run)));
  }
  {
    Program p = base;
    const std::size_t load = find(p, hw::Opcode::LoadIfmap);
    p.commands[load].wait_ld = 1;  // itself
    CHECK_THROWS_WITH(check_hazards(p), Catch::Contains("later command"));
  }
  {
    Program p = base;
    p.commands[find(p, hw::Opcode::Run)].run.n_cy = 500;
    CHECK_THROWS_WITH(check_hazards(p), Catch::Contains("the feeder reads ifmap word"));
  }
  {
    Program p = base;
    p.commands[find(p, hw::Opcode::LoadWeights)].dma.tail = 5000;
    CHECK_THROWS_WITH(check_hazards(p), Catch::Contains("the stream has"));
  }
  {
    Program p = base;
    p.commands[find(p, hw::Opcode::StorePsums)].dma.dram_addr = p.dram.total_bytes - 2;
    CHECK_THROWS_WITH(check_hazards(p), Catch::Contains("outside"));
  }
  {
    Program p = base;
    p.commands[find(p, hw::Opcode::Run)].run.step_cx = 1u << 24;
    CHECK_THROWS_WITH(check_hazards(p), Catch::Contains("step_cx"));
  }
  {
    // An ifmap load reading DRAM bytes that an earlier store writes, without waiting for it.
    Program p = base;
    const std::size_t store = find(p, hw::Opcode::StorePsums);
    const std::size_t load = find(p, hw::Opcode::LoadIfmap, store);
    p.commands[load].dma.dram_addr = p.commands[store].dma.dram_addr;
    REQUIRE(p.commands[load].wait_ps == 0);
    expect_hazard(p, store, load);
  }
}

TEST_CASE("programs the hazard checker accepts give golden results in every execution order", "[compiler][hazards]") {
  std::mt19937_64 rng(99);
  int accepted = 0, rejected = 0;
  const Config configs[] = {small_config(), small_variant(Arithmetic::fp16, 1, 1, 1),
                            small_variant(Arithmetic::int16, 1, 2, 1)};
  for (const Config& cfg : configs)
    for (const char* order : {"output_stationary", "spill"}) {
      const Program base = broken_base(cfg, order);
      INFO(cfg.name << " " << order);
      check_hazards(base);
      for (int s = 0; s < 3; ++s) REQUIRE(run_in_order(base, random_schedule(base, rng), 5) == "");
      // Every wait dropped to 0, one at a time: either the checker objects, or every allowed
      // order still computes the right result.
      for (std::size_t i = 0; i < base.commands.size(); ++i)
        for (int f = 0; f < 3; ++f) {
          Program p = base;
          std::uint32_t& w = f == 0 ? p.commands[i].wait_ld : f == 1 ? p.commands[i].wait_ex : p.commands[i].wait_ps;
          if (w == 0) continue;
          w = 0;
          bool ok = true;
          try {
            check_hazards(p);
          } catch (const std::logic_error&) {
            ok = false;
          }
          if (!ok) {
            ++rejected;
            continue;
          }
          ++accepted;
          INFO("accepted with wait " << f << " of command #" << i << " dropped");
          for (int s = 0; s < 3; ++s) REQUIRE(run_in_order(p, random_schedule(p, rng), 6) == "");
        }
    }
  fmt::print("dropped waits: {} caught by the hazard checker, {} redundant (and harmless in random orders)\n",
             rejected, accepted);
  CHECK(rejected > 0);
}
