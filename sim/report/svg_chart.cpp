// SVG chart rendering: axes with "nice" tick steps (or decades on a log axis), a legend, a fixed
// palette, and titles and axis labels laid out within the image by a bound of their text width.
#include "sim/report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace flycol::svg {
namespace {

const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&') o += "&amp;";
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

// A tick step of 1, 2 or 5 times a power of ten giving about `n` intervals over `span`.
double nice_step(double span, int n) {
  if (!(span > 0)) return 1;
  const double raw = span / n, p = std::pow(10.0, std::floor(std::log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

// Decade label: 10^e written out for e in -4..5 ("0.001", "100000"), else "1e-7".
std::string decade_label(int e) {
  if (e >= 0 && e <= 5) return "1" + std::string(std::size_t(e), '0');
  if (e < 0 && e >= -4) return "0." + std::string(std::size_t(-e - 1), '0') + "1";
  return fmt::format("1e{}", e);
}

// The code points of a UTF-8 string, one per lead byte (a malformed byte counts as one).
std::vector<std::string> code_points(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    n = std::min(n, s.size() - i);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string num(double v) {
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) return fmt::format("{:.2g}", v);
  return fmt::format("{:g}", std::round(v * 1000) / 1000);
}

// Title and axis-label fonts: the largest size, the smallest a label may shrink to, the lines it
// may wrap into before shrinking further, and the side margin the title keeps.
constexpr double kTitlePx = 15, kTitleMinPx = 10, kLabelPx = 12, kLabelMinPx = 9, kTitleSide = 10;
constexpr int kTitleLines = 2, kLabelLines = 2;
double line_height(double px) { return std::round(px * 1.2); }

struct Frame {
  double l = 70, r = 20, t = 40, b = 60;  // margins
  double w, h;
  double x0, x1, y0, y1;  // on a log y axis y0, y1 are decade exponents
  bool xlog = false, ylog = false;
  FittedText title, xlabel, ylabel;
  double px(double x) const {
    const double u = xlog ? (std::log2(x) - std::log2(x0)) / (std::log2(x1) - std::log2(x0)) : (x - x0) / (x1 - x0);
    return l + u * (w - l - r);
  }
  double py(double y) const {
    const double v = ylog ? std::log10(y) : y;
    return h - b - (v - y0) / (y1 - y0) * (h - t - b);
  }
  double plot_bottom() const { return h - b; }
};

// Fits the title into the width and the axis labels along their axes, growing the top, bottom
// and left margins by the extra lines. Call after the base margins are set.
void lay_out_text(Frame& f, const ChartOptions& o) {
  f.title = fit_text(o.title, f.w - 2 * kTitleSide, kTitlePx, kTitleMinPx, kTitleLines);
  f.t += double(f.title.lines.size() > 1 ? f.title.lines.size() - 1 : 0) * line_height(f.title.font_px);
  // The x label's extra lines take height from the y axis, the y label's width from the x axis:
  // fit both again until the margins settle (they only grow, so this ends; in practice at once).
  const double l0 = f.l, b0 = f.b;
  const auto extra = [](const FittedText& t) {
    return double(t.lines.size() > 1 ? t.lines.size() - 1 : 0) * line_height(t.font_px);
  };
  for (int pass = 0; pass < 8; ++pass) {
    const double l = f.l, b = f.b;
    f.xlabel = fit_text(o.x_label, f.w - f.l - f.r, kLabelPx, kLabelMinPx, kLabelLines);
    f.b = b0 + extra(f.xlabel);
    f.ylabel = fit_text(o.y_label, f.h - f.t - f.b, kLabelPx, kLabelMinPx, kLabelLines);
    f.l = l0 + extra(f.ylabel);
    if (f.l == l && f.b == b) break;
  }
}

std::string header(const ChartOptions& o, const Frame& f) {
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      o.width, o.height);
  const double lh = line_height(f.title.font_px);
  for (std::size_t i = 0; i < f.title.lines.size(); ++i)
    s += fmt::format("<text class=\"title\" x=\"{}\" y=\"{:g}\" text-anchor=\"middle\" font-size=\"{:g}\">{}</text>\n",
                     o.width / 2, 22 + double(i) * lh, f.title.font_px, esc(f.title.lines[i]));
  return s;
}

void y_tick(std::string& s, const Frame& f, double y, const std::string& label) {
  s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", f.l, y,
                   f.w - f.r, y);
  if (!label.empty())
    s += fmt::format("<text class=\"ytick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", f.l - 6, y + 4,
                     label);
}

void y_axis(std::string& s, const Frame& f, int nonpositive) {
  if (f.ylog) {
    // A grid line at every decade, a label on every `every`-th (at most 10 labels).
    const int lo = int(std::lround(f.y0)), hi = int(std::lround(f.y1));
    const int decades = hi - lo + 1, every = std::max(1, (decades + 9) / 10);
    for (int e = lo; e <= hi; ++e)
      y_tick(s, f, f.py(std::pow(10.0, e)), (e - lo) % every == 0 ? decade_label(e) : std::string());
    if (nonpositive > 0)
      s += fmt::format("<text class=\"note\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"10\">log axis: "
                       "{} value{} &lt;= 0 not drawn</text>\n",
                       f.w - f.r, f.t - 5, nonpositive, nonpositive == 1 ? "" : "s");
  } else {
    const double step = nice_step(f.y1 - f.y0, 6);
    for (double v = std::ceil(f.y0 / step) * step; v <= f.y1 + step * 1e-9; v += step) y_tick(s, f, f.py(v), num(v));
  }
  // The y label's lines stack rightwards from x = 16, the x label's downwards to 12 px above the bottom.
  const double ylh = line_height(f.ylabel.font_px), xlh = line_height(f.xlabel.font_px);
  for (std::size_t i = 0; i < f.ylabel.lines.size(); ++i)
    s += fmt::format("<text class=\"ylabel\" transform=\"translate({:g},{:.1f}) rotate(-90)\" text-anchor=\"middle\" "
                     "font-size=\"{:g}\">{}</text>\n",
                     16 + double(i) * ylh, (f.t + f.h - f.b) / 2, f.ylabel.font_px, esc(f.ylabel.lines[i]));
  const std::size_t nx = f.xlabel.lines.size();
  for (std::size_t i = 0; i < nx; ++i)
    s += fmt::format("<text class=\"xlabel\" x=\"{:.1f}\" y=\"{:g}\" text-anchor=\"middle\" font-size=\"{:g}\">{}</text>\n",
                     (f.l + f.w - f.r) / 2, f.h - 12 - double(nx - 1 - i) * xlh, f.xlabel.font_px, esc(f.xlabel.lines[i]));
  s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#333\"/>\n",
                   f.l, f.t, f.w - f.l - f.r, f.h - f.t - f.b);
}

// Entries left to right, starting a new row where the next would cross the plot's right edge.
void legend(std::string& s, const Frame& f, const std::vector<Series>& series) {
  double x = f.l + 10, y = f.t + 8;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const double wd = 30 + text_width_bound(series[i].name, 12);
    if (x > f.l + 10 && x + wd > f.w - f.r) x = f.l + 10, y += 16;
    const char* c = kPalette[i % 8];
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", x, y, c);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x + 16, y + 10, esc(series[i].name));
    x += wd;
  }
}

// The y range of the frame (decade exponents on a log axis); returns how many finite values a
// log axis cannot show (<= 0).
int y_range(const std::vector<Series>& series, const ChartOptions& o, Frame& f) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  int nonpositive = 0;
  for (const auto& s : series)
    for (double v : s.y) {
      if (!std::isfinite(v)) continue;
      if (o.y_log10 && v <= 0) {
        ++nonpositive;
        continue;
      }
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
  f.ylog = o.y_log10;
  if (o.y_log10) {
    if (!std::isfinite(lo)) lo = 1, hi = 10;
    f.y0 = std::floor(std::log10(lo) - 0.1);  // a tenth of a decade or more below the smallest value
    const double top = std::log10(hi);
    f.y1 = std::ceil(top + std::max(1.0, top - f.y0) * 0.12);  // room for the legend
    if (f.y1 <= f.y0) f.y1 = f.y0 + 1;
    return nonpositive;
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (o.y_from_zero) lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + 1;
  hi += (hi - lo) * 0.12;  // room for the legend
  f.y0 = lo;
  f.y1 = hi;
  return 0;
}

// Whether a y value is drawn: finite, and positive on a log axis.
bool shown(const Frame& f, double v) { return std::isfinite(v) && (!f.ylog || v > 0); }

}  // namespace

std::string line_chart(const std::vector<Series>& series, const ChartOptions& o) {
  Frame f;
  f.w = o.width;
  f.h = o.height;
  f.xlog = o.x_log2;
  f.x0 = std::numeric_limits<double>::infinity();
  f.x1 = -f.x0;
  for (const auto& s : series)
    for (double v : s.x)
      if (std::isfinite(v) && (!o.x_log2 || v > 0)) f.x0 = std::min(f.x0, v), f.x1 = std::max(f.x1, v);
  if (!std::isfinite(f.x0)) f.x0 = 0, f.x1 = 1;
  if (f.x1 <= f.x0) f.x1 = f.x0 + 1;
  const int nonpositive = y_range(series, o, f);
  lay_out_text(f, o);
  std::string s = header(o, f);
  y_axis(s, f, nonpositive);
  if (o.x_log2) {
    for (double v = std::exp2(std::ceil(std::log2(f.x0))); v <= f.x1 * (1 + 1e-9); v *= 2)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", f.px(v), f.h - f.b + 16,
                       num(v));
  } else {
    const double step = nice_step(f.x1 - f.x0, 8);
    for (double v = std::ceil(f.x0 / step) * step; v <= f.x1 + step * 1e-9; v += step)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", f.px(v), f.h - f.b + 16,
                       num(v));
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& se = series[i];
    std::string pts;
    for (std::size_t k = 0; k < se.x.size() && k < se.y.size(); ++k) {
      if (!shown(f, se.y[k])) continue;
      if (o.step && !pts.empty() && shown(f, se.y[k - 1]))
        pts += fmt::format("{:.1f},{:.1f} ", f.px(se.x[k]), f.py(se.y[k - 1]));
      pts += fmt::format("{:.1f},{:.1f} ", f.px(se.x[k]), f.py(se.y[k]));
    }
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", kPalette[i % 8], pts);
    if (se.x.size() <= 64)
      for (std::size_t k = 0; k < se.x.size() && k < se.y.size(); ++k)
        if (shown(f, se.y[k]))
          s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", f.px(se.x[k]), f.py(se.y[k]),
                           kPalette[i % 8]);
  }
  legend(s, f, series);
  return s + "</svg>\n";
}

std::string bar_chart(const std::vector<Series>& series, const ChartOptions& o) {
  Frame f;
  f.w = o.width;
  f.h = o.height;
  f.x0 = 0;
  f.x1 = double(std::max<std::size_t>(1, o.categories.size()));
  f.b = o.categories.size() > 12 ? 110 : 60;  // room for rotated labels
  const int nonpositive = y_range(series, o, f);
  lay_out_text(f, o);
  std::string s = header(o, f);
  y_axis(s, f, nonpositive);
  const double group = (f.w - f.l - f.r) / f.x1, bw = group * 0.8 / double(std::max<std::size_t>(1, series.size()));
  for (std::size_t c = 0; c < o.categories.size(); ++c) {
    const double gx = f.l + group * double(c) + group * 0.1;
    for (std::size_t i = 0; i < series.size(); ++i) {
      if (c >= series[i].y.size() || !shown(f, series[i].y[c])) continue;
      // Bars grow from 0, or on a log axis from its lowest decade.
      const double y = f.ylog ? f.py(series[i].y[c]) : f.py(std::max(series[i].y[c], f.y0));
      const double y0 = f.ylog ? f.plot_bottom() : f.py(std::max(0.0, f.y0));
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}: {}</title></rect>\n",
                       gx + bw * double(i), std::min(y, y0), std::max(bw - 1, 1.0), std::fabs(y0 - y),
                       kPalette[i % 8], esc(o.categories[c]), num(series[i].y[c]));
    }
    const double lx = gx + group * 0.4, ly = f.h - f.b + 14;
    if (o.categories.size() > 12)
      s += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-60)\" text-anchor=\"end\" font-size=\"10\">{}</text>\n",
                       lx, ly, esc(o.categories[c]));
    else
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", lx, ly,
                       esc(o.categories[c]));
  }
  legend(s, f, series);
  return s + "</svg>\n";
}

double char_width_bound_em(char32_t c) {
  if (c > 0x7E) return 1.02;
  if (c == ' ' || (c != 0 && std::string(".,:;'!|()[]ijltfI").find(char(c)) != std::string::npos)) return 0.41;
  if (c == 'm' || c == 'W') return 0.99;
  if (c == 'w' || c == 'M') return 0.87;
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) return 0.64;
  if (c >= 'A' && c <= 'Z') return 0.79;
  return 1.02;
}

double text_width_bound(const std::string& utf8, double font_px) {
  double em = 0;
  for (const std::string& cp : code_points(utf8))
    em += char_width_bound_em(cp.size() == 1 ? char32_t(static_cast<unsigned char>(cp[0])) : char32_t(0x80));
  return em * font_px;
}

namespace {

// Greedy wrap at spaces; a word wider than the width gets a line of its own (and does not fit)
// unless `break_words`, which splits it between code points.
std::vector<std::string> wrap(const std::string& text, double max_width, double px, bool break_words) {
  std::vector<std::string> words, lines;
  for (std::size_t i = 0; i <= text.size();) {
    const std::size_t sp = std::min(text.find(' ', i), text.size());
    if (sp > i) words.push_back(text.substr(i, sp - i));
    i = sp + 1;
  }
  std::string line;
  for (const std::string& word : words) {
    const std::string joined = line.empty() ? word : line + " " + word;
    if (text_width_bound(joined, px) <= max_width) {
      line = joined;
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    line.clear();
    if (!break_words || text_width_bound(word, px) <= max_width) {
      line = word;
      continue;
    }
    for (const std::string& cp : code_points(word)) {
      if (!line.empty() && text_width_bound(line + cp, px) > max_width) lines.push_back(line), line.clear();
      line += cp;
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

FittedText fit_text(const std::string& text, double max_width, double font_px, double min_px, int max_lines) {
  FittedText out;
  // A title "subject: what" reads best broken after its first colon, when both halves fit a line.
  const std::size_t colon = text.find(": ");
  for (double px = font_px; px >= min_px; px -= 1) {
    out.font_px = px;
    if (colon != std::string::npos && max_lines >= 2 && text_width_bound(text, px) > max_width) {
      const std::string head = text.substr(0, colon + 1), rest = text.substr(colon + 2);
      if (text_width_bound(head, px) <= max_width && text_width_bound(rest, px) <= max_width) {
        out.lines = {head, rest};
        return out;
      }
    }
    out.lines = wrap(text, max_width, px, false);
    bool fits = int(out.lines.size()) <= std::max(1, max_lines);
    for (const std::string& l : out.lines) fits = fits && text_width_bound(l, px) <= max_width;
    if (fits) return out;
  }
  out.font_px = min_px;
  out.lines = wrap(text, max_width, min_px, true);
  return out;
}

}  // namespace flycol::svg
