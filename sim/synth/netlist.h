// A hierarchical gate-level netlist as Yosys writes it in BLIF (`write_blif -cname -blackbox`):
// one model per module, each a list of cell instances (library cells or other modules) on named
// nets, plus the buffers and constants Yosys expresses as `.names`. The analysis (analysis.h)
// reads it; nothing here knows about blocks or cells' meaning.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace flycol::synth {

struct NetlistCell {
  std::string type;  // library cell or module name
  std::string name;  // instance name (.cname), may be empty
  std::vector<std::pair<std::string, int>> pins;  // formal pin -> net of the module
};

struct NetlistModule {
  std::string name;
  bool blackbox = false;
  std::vector<std::string> nets;  // net index -> name
  std::vector<int> inputs, outputs;  // port bits in declaration order (net indices)
  std::vector<NetlistCell> cells;
  std::vector<std::pair<int, int>> buffers;  // (from, to): `to` is another name of `from`
  std::vector<int> const0, const1;           // nets tied to a constant ($false, $undef; $true)

  int net(const std::string& n) const;  // -1 if absent
  int intern(const std::string& n);

private:
  std::unordered_map<std::string, int> index_;
};

class Netlist {
public:
  // Throws InputError (source) on malformed text.
  static Netlist parse_blif(const std::string& text, const std::string& source);
  static Netlist load_blif(const std::string& path);

  const std::vector<NetlistModule>& modules() const { return modules_; }
  const NetlistModule* find(const std::string& name) const;
  // The first model of the file (Yosys writes the top module first).
  const NetlistModule& top() const { return modules_.front(); }

private:
  std::vector<NetlistModule> modules_;
  std::map<std::string, int> index_;
};

// The name a module was written from, without Yosys's parameter decoration:
// "$paramod$0f6b...\pe" -> "pe", "$paramod\fifo\Width=..." -> "fifo", "\top" -> "top".
std::string module_base_name(const std::string& name);
// A net name without its bit index: "gen_row_feed[3].a_q[5]" -> "gen_row_feed[3].a_q".
std::string net_base_name(const std::string& name);
// Shell-style match with '*' as the only wildcard.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace flycol::synth
