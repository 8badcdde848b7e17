// Lookups by a key member in the small tables and lists of the host libraries (configuration
// keys, layer spec keys, the blocks and parts of the synth and power reports), and in maps.
#pragma once

#include <string>

namespace flycol {

// The first item of `items` whose `member` equals `key`, or nullptr.
template <class Items, class Member, class Key>
const typename Items::value_type* find_by(const Items& items, Member Items::value_type::*member, const Key& key) {
  for (const auto& x : items)
    if (x.*member == key) return &x;
  return nullptr;
}

// The value `map` holds under `key`, or nullptr.
template <class Map, class Key>
const typename Map::mapped_type* find_value(const Map& map, const Key& key) {
  const auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

// The part, among the `parts` of every block of `blocks`, whose `id` is `id`, or nullptr.
template <class Blocks>
auto find_part_by_id(const Blocks& blocks, const std::string& id) {
  using Part = typename decltype(Blocks::value_type::parts)::value_type;
  const Part* found = nullptr;
  for (const auto& b : blocks)
    if ((found = find_by(b.parts, &Part::id, id)) != nullptr) break;
  return found;
}

}  // namespace flycol
