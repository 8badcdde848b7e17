// Dependency-free SVG charts for flycol's reports: line charts (a value against a swept
// parameter, bandwidth over time) and grouped bar charts (per-layer figures, model against
// model). Output is a complete standalone SVG document.
#pragma once

#include <string>
#include <vector>

namespace flycol::svg {

struct Series {
  std::string name;
  std::vector<double> x, y;  // line charts: points; bar charts: y per category (x unused)
};

struct ChartOptions {
  std::string title, x_label, y_label;
  int width = 900, height = 460;
  bool y_from_zero = true;   // start the y axis at 0 (otherwise at the data minimum)
  bool x_log2 = false;       // line charts: logarithmic (base 2) x axis, e.g. dilation 1..31
  bool step = false;         // line charts: draw steps (a value that holds until the next x)
  std::vector<std::string> categories;  // bar charts: one label per group
};

std::string line_chart(const std::vector<Series>& series, const ChartOptions& opt);
std::string bar_chart(const std::vector<Series>& series, const ChartOptions& opt);

}  // namespace flycol::svg
