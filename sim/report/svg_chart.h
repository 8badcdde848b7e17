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
  bool y_from_zero = true;   // start the y axis at 0 (otherwise at the data minimum); not on a log axis
  bool x_log2 = false;       // line charts: logarithmic (base 2) x axis, e.g. dilation 1..31
  // Logarithmic (base 10) y axis of whole decades: from the highest decade at least a tenth of a
  // decade below the smallest positive value (bars grow from there, so even the smallest bar is a
  // tenth of a decade tall) up to the decade at or above the largest value raised by 12 % of the
  // span, at least 1 decade (room for the legend). A grid line at every decade, a label on every
  // one (thinned to at most 10 labels). Values <= 0 have no place on it: they are not drawn (no
  // bar, no point; a line joins its neighbours as across a NaN), and a note above the plot's top
  // right corner says how many were left out.
  bool y_log10 = false;
  bool step = false;         // line charts: draw steps (a value that holds until the next x)
  std::vector<std::string> categories;  // bar charts: one label per group
};

std::string line_chart(const std::vector<Series>& series, const ChartOptions& opt);
std::string bar_chart(const std::vector<Series>& series, const ChartOptions& opt);

// ---- Text that fits ------------------------------------------------------------------------------
// SVG does not measure text, so charts lay titles and axis labels out with an upper bound of
// their width. The bound per character, in em (multiples of the font size), is the widest advance
// width in its class over DejaVu Sans (what "sans-serif" resolves to on Debian; measured from its
// hmtx table) and Arial/Helvetica/Liberation Sans (the same metrics):
//   0.41  space and the narrow . , : ; ' ! | ( ) [ ] i j l t f I
//   0.64  digits and lower-case letters other than m and w
//   0.79  upper-case letters other than M and W
//   0.87  w and M
//   0.99  m and W
//   1.02  anything else: other punctuation, symbols, any non-ASCII character (one per code point)
// Rendered text is never wider than the bound with these fonts, so text laid out within a width
// stays inside it.
double char_width_bound_em(char32_t c);
// The bound of a UTF-8 string at `font_px` pixels.
double text_width_bound(const std::string& utf8, double font_px);

struct FittedText {
  double font_px = 0;
  std::vector<std::string> lines;  // each within the width at font_px
};
// Lays `text` out within `max_width` pixels: on one line at `font_px` if it fits, else wrapped
// into at most `max_lines` lines (after the first ": " if both halves fit a line, else at spaces),
// shrinking the font a pixel at a time down to `min_px`;
// if even that fails, wrapped at `min_px` into as many lines as it needs, a word wider than the
// width broken between characters. Every line of the result fits (for max_width >= 1.02 em).
FittedText fit_text(const std::string& text, double max_width, double font_px, double min_px, int max_lines);

}  // namespace flycol::svg
