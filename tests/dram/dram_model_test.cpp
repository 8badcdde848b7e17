// Unit tests of sim/dram/dram_model: the channel rules of sim/dram/README.md checked with hand-
// computed cycles and long streams (bandwidth, latency, order, back-pressure), reproducibility of
// the random profile, byte lanes against a mirror array, region accounting and bad requests.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <stdexcept>
#include <vector>

#include "hw/common/protocol_error.h"
#include "sim/dram/dram_model.h"

namespace {

using flycol::DramModel;
using flycol::DramTiming;
using flycol::hw::MemReq;
using flycol::hw::MemRsp;

DramTiming timing(double bw, int latency) {
  DramTiming t;
  t.bytes_per_cycle = bw;
  t.latency_cycles = latency;
  return t;
}

MemReq read_req(std::uint64_t addr, int bytes) {
  MemReq r;
  r.write = false;
  r.addr = addr;
  r.bytes = bytes;
  return r;
}

MemReq write_req(std::uint64_t addr, int bytes, std::uint8_t fill) {
  MemReq r;
  r.write = true;
  r.addr = addr;
  r.bytes = bytes;
  for (int i = 0; i < bytes; ++i) r.wdata[addr % 32 + std::uint64_t(i)] = std::uint8_t(fill + i);
  return r;
}

// Offers `next` whenever the model is ready, for `cycles` cycles; returns the bytes accepted in
// the second half (after the channel filled up).
template <class Next>
std::uint64_t stream(DramModel& m, std::uint64_t cycles, Next next) {
  std::uint64_t accepted_late = 0;
  for (std::uint64_t t = 0; t < cycles; ++t) {
    m.begin_cycle(t);
    if (m.req_ready()) {
      const MemReq r = next();
      m.end_cycle(&r);
      if (t >= cycles / 2) accepted_late += std::uint64_t(r.bytes);
    } else {
      m.end_cycle(nullptr);
    }
  }
  return accepted_late;
}

}  // namespace

TEST_CASE("long streams of reads and writes reach the configured bandwidth", "[dram]") {
  for (double bw : {0.75, 1.0, 3.7, 11.53, 20.0, 32.0}) {
    for (int bytes : {32, 7, 4}) {
      if (bytes < bw) continue;  // one request per cycle could not saturate the channel
      for (bool write : {false, true}) {
        DramModel m(timing(bw, 12), 1 << 20);
        std::uint64_t addr = 0;
        const std::uint64_t cycles = 40000;
        const std::uint64_t got = stream(m, cycles, [&] {
          MemReq r = write ? write_req(addr, bytes, 1) : read_req(addr, bytes);
          addr = (addr + 32) % (1 << 20);
          return r;
        });
        const double rate = double(got) / double(cycles / 2);
        INFO("bw " << bw << " request bytes " << bytes << " write " << write << " rate " << rate);
        CHECK(rate == Approx(bw).epsilon(0.01));
        // The channel never idles once the stream runs.
        CHECK(double(m.stats().busy_cycles) >= 0.99 * double(cycles));
      }
    }
  }
}

TEST_CASE("a read returns latency cycles after its transfer ends", "[dram]") {
  struct Case {
    double bw;
    int latency, bytes;
    std::uint64_t issue, expect;
  };
  // Hand-computed: the transfer starts at the issue cycle, takes bytes/bw cycles, and the
  // response is valid from ceil(end) + latency on.
  const Case cases[] = {
      {8.0, 20, 32, 5, 5 + 4 + 20},   // 4 cycles of transfer
      {64.0, 20, 32, 5, 5 + 1 + 20},  // half a cycle, rounded up to the cycle boundary
      {64.0, 0, 32, 5, 6},            // never in the cycle of the request
      {3.0, 7, 10, 2, 2 + 4 + 7},     // 3.33 cycles -> ends in cycle 5, so from 6 + 7
      {1.0, 1, 1, 0, 2},
  };
  for (const Case& c : cases) {
    DramModel m(timing(c.bw, c.latency), 4096);
    std::uint64_t seen = 0;
    for (std::uint64_t t = 0; t < 200 && !seen; ++t) {
      m.begin_cycle(t);
      if (m.rsp_valid()) seen = t;
      if (t == c.issue) {
        REQUIRE(m.req_ready());
        const MemReq r = read_req(64, c.bytes);
        m.end_cycle(&r);
      } else {
        m.end_cycle(nullptr);
      }
    }
    INFO("bw " << c.bw << " latency " << c.latency << " bytes " << c.bytes);
    CHECK(seen == c.expect);
  }
}

TEST_CASE("back-to-back reads queue on the channel and return one per cycle", "[dram]") {
  // bw 8, latency 10: reads of 32 bytes accepted at cycles 0,1,2 end at 4, 8, 12 -> 14, 18, 22.
  // Reads of 1 byte at 0,1,2 on a fast channel end together-ish and are spaced by one cycle.
  {
    DramModel m(timing(8.0, 10), 4096);
    std::vector<std::uint64_t> rsp_cycles;
    for (std::uint64_t t = 0; t < 60; ++t) {
      m.begin_cycle(t);
      if (m.rsp_valid()) rsp_cycles.push_back(t);
      if (t < 3) {
        const MemReq r = read_req(32 * t, 32);
        m.end_cycle(&r);
      } else {
        m.end_cycle(nullptr);
      }
    }
    CHECK(rsp_cycles == std::vector<std::uint64_t>{14, 18, 22});
  }
  {
    DramTiming tm = timing(32.0, 5);
    tm.random_seed = 99;
    tm.extra_latency_max = 40;  // later reads may draw less extra latency than earlier ones
    DramModel m(tm, 4096);
    std::vector<std::uint64_t> rsp_cycles;
    std::vector<std::uint8_t> order;
    for (std::uint8_t i = 0; i < 64; ++i) {
      const MemReq w = write_req(std::uint64_t(i) * 32, 1, i);
      m.write_bytes(w.addr, &i, 1);
    }
    std::uint64_t issued = 0;
    for (std::uint64_t t = 0; t < 400; ++t) {
      m.begin_cycle(t);
      if (m.rsp_valid()) {
        rsp_cycles.push_back(t);
        order.push_back(m.rsp().rdata[0]);
      }
      if (issued < 64 && m.req_ready()) {
        const MemReq r = read_req(issued * 32, 1);
        m.end_cycle(&r);
        ++issued;
      } else {
        m.end_cycle(nullptr);
      }
    }
    REQUIRE(order.size() == 64);
    for (std::size_t i = 0; i < order.size(); ++i) CHECK(order[i] == i);  // request order
    for (std::size_t i = 1; i < rsp_cycles.size(); ++i) CHECK(rsp_cycles[i] > rsp_cycles[i - 1]);
  }
}

TEST_CASE("req_ready drops when the backlog or the outstanding reads reach their limits", "[dram]") {
  {
    // bw 1, backlog 128, 32-byte writes offered every cycle: at cycle i the backlog is 31*i
    // bytes, so cycles 0..4 accept; the fifth request waits until 160 - t < 128, i.e. t = 33.
    DramModel m(timing(1.0, 0), 4096);
    std::vector<std::uint64_t> accepted;
    for (std::uint64_t t = 0; t < 70; ++t) {
      m.begin_cycle(t);
      if (m.req_ready()) {
        const MemReq r = write_req(0, 32, 0);
        m.end_cycle(&r);
        accepted.push_back(t);
      } else {
        m.end_cycle(nullptr);
      }
    }
    REQUIRE(accepted.size() >= 7);
    CHECK(std::vector<std::uint64_t>(accepted.begin(), accepted.begin() + 7) ==
          std::vector<std::uint64_t>{0, 1, 2, 3, 4, 33, 65});
  }
  {
    DramTiming tm = timing(32.0, 50);
    tm.max_outstanding_reads = 3;
    DramModel m(tm, 4096);
    std::vector<std::uint64_t> accepted, responses;
    for (std::uint64_t t = 0; t < 200; ++t) {
      m.begin_cycle(t);
      if (m.rsp_valid()) responses.push_back(t);
      if (m.req_ready() && accepted.size() < 5) {
        const MemReq r = read_req(0, 8);
        m.end_cycle(&r);
        accepted.push_back(t);
      } else {
        m.end_cycle(nullptr);
      }
    }
    // Reads at 0,1,2 end at 1,2,3 and return at 51,52,53; each response frees a slot for the
    // next cycle.
    CHECK(accepted == std::vector<std::uint64_t>{0, 1, 2, 52, 53});
    CHECK(responses == std::vector<std::uint64_t>{51, 52, 53, 103, 104});
  }
}

TEST_CASE("the random profile is reproducible from its seed", "[dram]") {
  DramTiming tm = timing(5.5, 30);
  tm.random_seed = 1234;
  tm.not_ready_prob = 0.3;
  tm.extra_latency_max = 25;
  const auto run = [](const DramTiming& t) {
    DramModel m(t, 1 << 16);
    std::vector<std::uint64_t> trace;
    std::mt19937_64 offer(7);  // the same offered traffic for every run
    for (std::uint64_t c = 0; c < 20000; ++c) {
      m.begin_cycle(c);
      trace.push_back((std::uint64_t(m.req_ready()) << 1) | std::uint64_t(m.rsp_valid()));
      const std::uint64_t o = offer();
      if (m.req_ready() && (o & 3) != 0) {
        const MemReq r = (o & 4) ? write_req((o >> 8) % 2048 * 32, 32, 1) : read_req((o >> 8) % 2048 * 32, 32);
        m.end_cycle(&r);
      } else {
        m.end_cycle(nullptr);
      }
    }
    return std::make_pair(trace, m.stats().not_ready_cycles);
  };
  const auto a = run(tm), b = run(tm);
  CHECK(a.first == b.first);
  tm.random_seed = 4321;
  const auto c = run(tm);
  CHECK(a.first != c.first);
  // A zero seed means no randomness at all, whatever the probabilities say.
  DramTiming quiet = tm;
  quiet.random_seed = 0;
  DramTiming plain = timing(5.5, 30);
  CHECK(run(quiet).first == run(plain).first);

  // The coin alone: on an idle channel the share of not-ready cycles is the probability.
  DramTiming coin = timing(32.0, 1);
  coin.random_seed = 77;
  coin.not_ready_prob = 0.3;
  DramModel m(coin, 4096);
  for (std::uint64_t k = 0; k < 100000; ++k) {
    m.begin_cycle(k);
    m.end_cycle(nullptr);
  }
  CHECK(double(m.stats().not_ready_cycles) / 100000.0 == Approx(0.3).margin(0.01));
}

TEST_CASE("byte lanes: writes update the strobed bytes, reads return them on their lanes", "[dram]") {
  const std::uint64_t size = 4096;
  DramModel m(timing(13.0, 3), size);
  std::vector<std::uint8_t> mirror(size);
  std::mt19937_64 rng(5);
  for (auto& b : mirror) b = std::uint8_t(rng());
  m.write_bytes(0, mirror.data(), size);

  struct Expect {
    std::uint64_t addr;
    int bytes;
    std::uint8_t data[32];
  };
  std::deque<Expect> expect;
  std::uint64_t checked = 0;
  for (std::uint64_t t = 0; t < 20000; ++t) {
    m.begin_cycle(t);
    if (m.rsp_valid()) {
      REQUIRE(!expect.empty());
      const Expect& e = expect.front();
      const MemRsp& r = m.rsp();
      const unsigned lane = unsigned(e.addr % 32);
      for (unsigned i = 0; i < 32; ++i) {
        const bool in = i >= lane && i < lane + unsigned(e.bytes);
        CHECK(r.rdata[i] == (in ? e.data[i - lane] : 0));
      }
      expect.pop_front();
      ++checked;
    }
    const std::uint64_t o = rng();
    if (m.req_ready() && (o & 1)) {
      const unsigned lane = unsigned((o >> 8) % 32);
      const int bytes = 1 + int((o >> 16) % (32 - lane));
      const std::uint64_t addr = (o >> 24) % (size / 32) * 32 + lane;
      MemReq r;
      r.write = (o >> 2) & 1;
      r.addr = addr;
      r.bytes = bytes;
      for (int i = 0; i < 32; ++i) r.wdata[i] = std::uint8_t(rng());  // other lanes are noise
      if (r.write) {
        for (int i = 0; i < bytes; ++i) mirror[addr + std::uint64_t(i)] = r.wdata[lane + unsigned(i)];
      } else {
        Expect e{addr, bytes, {}};
        std::memcpy(e.data, &mirror[addr], std::size_t(bytes));  // sampled at acceptance
        expect.push_back(e);
      }
      m.end_cycle(&r);
    } else {
      m.end_cycle(nullptr);
    }
  }
  CHECK(checked > 1000);
  std::vector<std::uint8_t> now(size);
  m.read_bytes(0, now.data(), size);
  CHECK(now == mirror);
}

TEST_CASE("traffic is accounted per region", "[dram]") {
  DramModel m(timing(32.0, 2), 4096);
  m.add_region("ifmap", 0, 100);
  m.add_region("ofmap", 100, 100);
  const MemReq reqs[] = {read_req(0, 32), read_req(96, 8), write_req(128, 16, 0), write_req(300, 4, 0),
                         read_req(64, 30)};
  std::uint64_t t = 0;
  for (const MemReq& r : reqs) {
    for (;; ++t) {
      m.begin_cycle(t);
      if (m.req_ready()) {
        m.end_cycle(&r);
        ++t;
        break;
      }
      m.end_cycle(nullptr);
    }
  }
  const auto& in = m.region("ifmap");
  const auto& out = m.region("ofmap");
  CHECK(in.reads == 3);
  CHECK(in.bytes_read == 32 + 4 + 30);
  CHECK(out.reads == 1);
  CHECK(out.bytes_read == 4);
  CHECK(out.writes == 1);
  CHECK(out.bytes_written == 16);
  CHECK(in.writes == 0);
  CHECK(m.stats().reads == 3);
  CHECK(m.stats().writes == 2);
  CHECK(m.stats().bytes_read == 70);
  CHECK(m.stats().bytes_written == 20);  // 4 bytes outside every region
  CHECK_THROWS_AS(m.region("weights"), std::out_of_range);
  CHECK_THROWS_AS(m.add_region("overlap", 150, 100), std::invalid_argument);
  CHECK_THROWS_AS(m.add_region("ifmap", 1000, 10), std::invalid_argument);
  CHECK_THROWS_AS(m.add_region("outside", 4000, 200), std::invalid_argument);
}

TEST_CASE("the channel counts the cycles it moves data", "[dram]") {
  DramModel m(timing(8.0, 2), 4096);
  for (std::uint64_t t = 0; t < 100; ++t) {
    m.begin_cycle(t);
    if (t == 10 || t == 11 || t == 50) {
      const MemReq r = read_req(0, 32);
      m.end_cycle(&r);
    } else {
      m.end_cycle(nullptr);
    }
  }
  // 10..13 and 14..17 (queued behind the first), then 50..53.
  CHECK(m.stats().busy_cycles == 12);
  CHECK(m.stats().cycles == 100);
}

TEST_CASE("bad requests and call sequences are rejected", "[dram]") {
  using flycol::hw::ProtocolError;
  const auto first_cycle_with = [](const MemReq& r) {
    DramModel m(timing(8.0, 2), 1000);
    m.begin_cycle(0);
    m.end_cycle(&r);
  };
  CHECK_THROWS_AS(first_cycle_with(read_req(0, 0)), ProtocolError);
  CHECK_THROWS_AS(first_cycle_with(read_req(0, 33)), ProtocolError);
  CHECK_THROWS_AS(first_cycle_with(read_req(20, 13)), ProtocolError);  // crosses a beat
  CHECK_THROWS_AS(first_cycle_with(write_req(1024, 4, 0)), ProtocolError);
  CHECK_THROWS_AS(first_cycle_with(read_req(992, 16)), ProtocolError);  // ends past 1000 bytes
  CHECK_NOTHROW(first_cycle_with(read_req(984, 8)));

  {  // accepted while not ready
    DramTiming tm = timing(1.0, 2);
    tm.backlog_bytes = 1;
    DramModel m(tm, 1024);
    m.begin_cycle(0);
    const MemReq r = read_req(0, 32);
    m.end_cycle(&r);
    m.begin_cycle(1);
    CHECK_FALSE(m.req_ready());
    CHECK_THROWS_AS(m.end_cycle(&r), ProtocolError);
  }
  {  // call order
    DramModel m(timing(8.0, 2), 1024);
    CHECK_THROWS_AS(m.end_cycle(nullptr), std::logic_error);
    m.begin_cycle(3);
    m.begin_cycle(3);  // a repeated evaluation is harmless
    CHECK_THROWS_AS(m.begin_cycle(4), std::logic_error);
    m.end_cycle(nullptr);
    CHECK_THROWS_AS(m.end_cycle(nullptr), std::logic_error);
    CHECK_THROWS_AS(m.begin_cycle(3), std::logic_error);
    CHECK_THROWS_AS(m.begin_cycle(2), std::logic_error);
    m.begin_cycle(10);  // cycles may be skipped
    m.end_cycle(nullptr);
  }
  {  // backdoor bounds
    DramModel m(timing(8.0, 2), 1024);
    std::uint8_t buf[8] = {};
    CHECK_THROWS_AS(m.write_bytes(1020, buf, 8), std::out_of_range);
    CHECK_THROWS_AS(m.read_bytes(2000, buf, 1), std::out_of_range);
    CHECK_NOTHROW(m.read_bytes(1016, buf, 8));
  }
  // Impossible timings.
  CHECK_THROWS_AS(DramModel(timing(0.0, 1), 64), std::invalid_argument);
  CHECK_THROWS_AS(DramModel(timing(-1.0, 1), 64), std::invalid_argument);
  CHECK_THROWS_AS(DramModel(timing(1.0, -1), 64), std::invalid_argument);
  DramTiming t = timing(1.0, 1);
  t.not_ready_prob = 1.0;
  CHECK_THROWS_AS(DramModel(t, 64), std::invalid_argument);
  t = timing(1.0, 1);
  t.backlog_bytes = 0;
  CHECK_THROWS_AS(DramModel(t, 64), std::invalid_argument);
}

TEST_CASE("the reference configuration's DRAM in accelerator cycles", "[dram]") {
  flycol::Config c;  // fornt16 values: 6.4 GB/s at 555 MHz, 50 ns
  const DramTiming t = DramTiming::from(c);
  CHECK(t.bytes_per_cycle == Approx(6400.0 / 555.0));
  CHECK(t.latency_cycles == 28);
}
