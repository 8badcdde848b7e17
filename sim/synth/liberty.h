// The subset of Liberty that flycol's own cell library uses (hw/synth/flycol_cells.lib): per cell
// its area, its pins with direction and input capacitance, and whether it is a flip-flop (an `ff`
// group) with which pin is its clock. Enough to total area and switched capacitance over a mapped
// netlist; not a general Liberty reader.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace flycol::synth {

struct LibPin {
  std::string name;
  bool input = false;
  double capacitance = 0;  // relative input capacitance (0 for outputs)
  bool clock = false;
};

struct LibCell {
  std::string name;
  double area = 0;  // NAND2 equivalents
  bool flop = false;
  std::vector<LibPin> pins;
  const LibPin* pin(const std::string& n) const;
  // Sum of the input capacitances, the clock pin excluded.
  double data_capacitance() const;
  double clock_capacitance() const;
};

class CellLibrary {
public:
  // Throws InputError (source: the file) on text it cannot read.
  static CellLibrary parse(const std::string& text, const std::string& source);
  static CellLibrary load(const std::string& path);

  const std::string& name() const { return name_; }
  const LibCell* find(const std::string& cell) const;
  const std::map<std::string, LibCell>& cells() const { return cells_; }

private:
  std::string name_;
  std::map<std::string, LibCell> cells_;
};

}  // namespace flycol::synth
