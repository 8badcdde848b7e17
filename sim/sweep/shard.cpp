// --shard I/N parsing (shard.h).
#include "sim/sweep/shard.h"

#include <fmt/format.h>

#include "sim/common/input_error.h"
#include "sim/config/scalars.h"

namespace flycol::sweep {

std::string Shard::text() const { return all() ? "all" : fmt::format("{}/{}", index, count); }

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const auto bad = [&] {
    return InputError("--shard", "",
                      fmt::format("= {}: must be I/N with 1 <= I <= N <= 10000 (shard I of N, e.g. 2/4)", text));
  };
  if (slash == std::string::npos) throw bad();
  const auto i = parse_int_text(text.substr(0, slash)), n = parse_int_text(text.substr(slash + 1));
  if (!i || !n || *n < 1 || *n > 10000 || *i < 1 || *i > *n) throw bad();
  return Shard{int(*i), int(*n)};
}

}  // namespace flycol::sweep
