// Splitting a sweep's points into shards that can run on different machines (--shard I/N) and
// checking that a set of shard results covers the sweep exactly once (--merge).
#pragma once

#include <string>
#include <vector>

namespace flycol::sweep {

struct Shard {
  int index = 1;  // 1-based: shard 1/4 .. 4/4
  int count = 1;

  // Points are dealt round-robin (point i goes to shard ((i - 1) mod N) + 1), so that a sweep whose
  // cost grows along its points (dilation 1..31) splits into shards of similar cost.
  bool holds(int point_index) const { return (point_index - 1) % count == index - 1; }
  bool all() const { return count == 1; }
  std::string text() const;  // "2/4", or "all"
};

// Parses "I/N" with 1 <= I <= N <= 10000. Throws InputError(source "--shard").
Shard parse_shard(const std::string& text);

}  // namespace flycol::sweep
