// Where each piece of the RTL belongs in the paper's breakdown (Fig. 5): the one table that maps
// modules, registers and signals of hw/ to blocks (PE array, data feeder, weight fetcher,
// partial-sums manager, controller/DMA) and their parts. Synthesis (area, flip-flops, depth) and
// the power proxy (toggles) both use it, so their breakdowns line up. docs/synth.md explains the
// choices; a change of the RTL's structure that moves logic must be reflected here.
#pragma once

#include <string>
#include <vector>

namespace flycol::synth {

struct BlockInfo {
  std::string id;     // "pe_array"
  std::string title;  // "PE array"
};

struct PartInfo {
  std::string id;     // "pe_array/reserve_registers"
  std::string title;  // "reserve registers"
  std::string note;   // where it comes from in the RTL
};

// Cells carved out of a module instance into another part: the registers whose names match
// `registers` (flip-flops, with the fanout-free cone of logic that computes their next state) and
// the fanout-free cones of the nets matching `cones`. Patterns use '*' and match net names
// without their bit index ("gen_row_feed[3].a_q"). RTL signals matching either list, or
// `rtl_signals`, are the part's for toggle counting.
struct CarveRule {
  std::string module;  // base module name the rule applies to
  std::string part;
  std::vector<std::string> registers;
  std::vector<std::string> cones;
  std::vector<std::string> rtl_signals;
};

// A part measured as a difference: the module synthesized as configured minus a variant without
// the feature (synth.cpp builds the variants). Its RTL signals are the part's toggles.
struct VariantRule {
  std::string module;  // base module name
  std::string part;    // the part the difference goes to (taken out of the module's own part)
  std::string variant; // "no_reserve", "no_zero_gating" or "no_operand_isolation"
  std::vector<std::string> rtl_signals;
};

class BlockMap {
public:
  static const BlockMap& standard();

  const std::vector<BlockInfo>& blocks() const { return blocks_; }
  const std::vector<PartInfo>& parts() const { return parts_; }
  const std::vector<CarveRule>& carve_rules() const { return carve_; }
  const std::vector<VariantRule>& variant_rules() const { return variants_; }
  int part_index(const std::string& id) const;  // -1 if unknown
  // The block id of a part id ("pe_array/reserve_registers" -> "pe_array").
  static std::string block_of(const std::string& part);

  // Part of the own cells of an instance of `module` (base name) whose parent's own part is
  // `parent_part` and parent module `parent_module` (both empty for the top).
  std::string module_part(const std::string& module, const std::string& parent_module,
                          const std::string& parent_part) const;
  // Part of an RTL signal of an instance of `module` whose own part is `own_part`; `name` is the
  // signal's name inside the instance (generate scopes joined with '.').
  std::string signal_part(const std::string& module, const std::string& name, const std::string& own_part) const;

private:
  struct ModuleRule {
    std::string module, parent, part;  // parent empty: any parent
  };
  std::vector<BlockInfo> blocks_;
  std::vector<PartInfo> parts_;
  std::vector<ModuleRule> modules_;
  std::vector<CarveRule> carve_;
  std::vector<VariantRule> variants_;
};

}  // namespace flycol::synth
