// How a layer's tiling is chosen: the compiler's fixed heuristic or the tiling search (the
// Planner, plan_choice.h). The one place that says which one `flycol run`, `flycol sweep` and
// `flycol net` use when not told: every default in the code base is written in terms of kDefaultTiling.
#pragma once

#include <optional>
#include <string>

namespace flycol::analytic {

enum class Tiling { heuristic, search };

// The search by default (issue 17): it never picks a slower plan than the heuristic (whose plan is
// among its candidates) and avoids the heuristic's DRAM-bound tilings of dilated and strided layers.
constexpr Tiling kDefaultTiling = Tiling::search;

inline const char* tiling_name(Tiling t) { return t == Tiling::search ? "search" : "heuristic"; }

// "heuristic" or "search"; nullopt for anything else (callers name their option in the error).
inline std::optional<Tiling> tiling_named(const std::string& name) {
  if (name == tiling_name(Tiling::search)) return Tiling::search;
  if (name == tiling_name(Tiling::heuristic)) return Tiling::heuristic;
  return std::nullopt;
}

// The allowed names for messages and --help, the default first: "search or heuristic".
inline std::string tiling_choices() {
  const Tiling other = kDefaultTiling == Tiling::search ? Tiling::heuristic : Tiling::search;
  return std::string(tiling_name(kDefaultTiling)) + " or " + tiling_name(other);
}

}  // namespace flycol::analytic
