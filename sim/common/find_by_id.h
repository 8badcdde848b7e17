// Lookups by id in the per-block reports (synth, power): a list of blocks, each with its parts,
// every block and part named by a unique `id`.
#pragma once

#include <string>

namespace flycol {

// The item of `items` whose `id` is `id`, or nullptr.
template <class Items>
const typename Items::value_type* find_by_id(const Items& items, const std::string& id) {
  for (const auto& x : items)
    if (x.id == id) return &x;
  return nullptr;
}

// The part, among the `parts` of every block of `blocks`, whose `id` is `id`, or nullptr.
template <class Blocks>
auto find_part_by_id(const Blocks& blocks, const std::string& id) -> decltype(&blocks.front().parts.front()) {
  for (const auto& b : blocks)
    if (const auto* p = find_by_id(b.parts, id)) return p;
  return nullptr;
}

}  // namespace flycol
