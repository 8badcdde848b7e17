// A sweep file (configs/sweeps/*.yaml): the set of points to compare (a cartesian product and/or an
// explicit list over layer and accelerator parameters), the base configuration they modify, and
// how the sweep is reported and guarded. Parsing validates every key and expands the points.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flycol::sweep {

// Parameter values keep the text the sweep file gave ("3", "same", "int8"), in file order.
using Params = std::vector<std::pair<std::string, std::string>>;
const std::string* find_param(const Params& p, const std::string& key);
void set_param(Params& p, const std::string& key, const std::string& value);

// What a parameter key sets: a layer dimension (compact layer keys N C H W K k ky kx s sy sx d dy
// dx p pt pb pl pr), a configuration key (dotted path as in configs/*.yaml, e.g.
// feeder.fifo_depth, or arithmetic), or how the compiler plans (`order`: its loop order; `tiling`:
// search, the default, or heuristic, as `flycol run --tiling`).
enum class ParamKind { layer, config, compiler };
std::optional<ParamKind> param_kind(const std::string& key);
// Short name for tables, plot axes and point names: feeder.intermediate_regs -> M,
// feeder.fifo_depth -> FD, array.rows -> rows; layer keys stay as they are.
std::string param_label(const std::string& key);

struct PlotSpec {
  std::string x;               // a swept key with numeric values (else the chart is a bar chart)
  std::vector<std::string> y;  // metric names (see metrics in results.h); one chart each
  bool log2_x = false;
  Params where;                // only points whose swept values match these
};

struct Point {
  int index = 0;         // 1-based position in the expanded sweep: stable for --shard
  std::string name;      // unique, [A-Za-z0-9_.-]
  Params own;            // the values this point sets (product or explicit entry), as written
  Params merged;         // fixed values overridden by `own`, shorthand keys expanded (k -> ky, kx)
};

struct SweepSpec {
  std::string file;          // path as given (for messages and reports)
  std::string name;          // [A-Za-z0-9_-], 1..64: CTest label, report and baseline names
  std::string description;
  std::string config = "fornt16";  // base configuration: a name in configs/ or a path (resolved)
  std::string model = "sc";        // default model; --model overrides
  std::uint64_t seed = 1;          // operand seed of every point
  std::vector<std::string> labels;  // extra CTest labels, e.g. slow
  double timeout_s = 600;           // per point, wall clock
  double tolerance_percent = 1.0;   // regression guard: allowed cycle change against the baseline
  Params fixed;
  std::vector<Point> points;
  std::vector<std::string> swept_keys;  // keys some point sets itself, in order of first use
  std::vector<PlotSpec> plots;
  std::string text_hash;  // FNV-1a of the file text: shards merge only if they ran the same file
};

// Parses sweep YAML; `file` names it in messages and resolves a relative `config` path. Throws
// InputError naming the file, the key (e.g. "product.d[2]") and what is allowed.
SweepSpec parse_sweep_text(const std::string& text, const std::string& file);
SweepSpec load_sweep_file(const std::string& path);

// A stable 64-bit FNV-1a hash, as 16 hex digits.
std::string text_hash(const std::string& text);

}  // namespace flycol::sweep
