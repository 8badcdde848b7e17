// SVG chart rendering: axes with "nice" tick steps, a legend, and a fixed palette.
#include "sim/report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

std::string num(double v) {
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) return fmt::format("{:.2g}", v);
  return fmt::format("{:g}", std::round(v * 1000) / 1000);
}

struct Frame {
  double l = 70, r = 20, t = 40, b = 60;  // margins
  double w, h;
  double x0, x1, y0, y1;
  bool xlog = false;
  double px(double x) const {
    const double u = xlog ? (std::log2(x) - std::log2(x0)) / (std::log2(x1) - std::log2(x0)) : (x - x0) / (x1 - x0);
    return l + u * (w - l - r);
  }
  double py(double y) const { return h - b - (y - y0) / (y1 - y0) * (h - t - b); }
};

std::string header(const ChartOptions& o) {
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      o.width, o.height);
  s += fmt::format("<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n", o.width / 2,
                   esc(o.title));
  return s;
}

void y_axis(std::string& s, const Frame& f, const ChartOptions& o) {
  const double step = nice_step(f.y1 - f.y0, 6);
  for (double v = std::ceil(f.y0 / step) * step; v <= f.y1 + step * 1e-9; v += step) {
    const double y = f.py(v);
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", f.l, y,
                     f.w - f.r, y);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", f.l - 6, y + 4, num(v));
  }
  s += fmt::format("<text transform=\"translate(16,{:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                   (f.t + f.h - f.b) / 2, esc(o.y_label));
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", (f.l + f.w - f.r) / 2,
                   f.h - 12, esc(o.x_label));
  s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#333\"/>\n",
                   f.l, f.t, f.w - f.l - f.r, f.h - f.t - f.b);
}

void legend(std::string& s, const Frame& f, const std::vector<Series>& series) {
  double x = f.l + 10;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* c = kPalette[i % 8];
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", x, f.t + 8, c);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x + 16, f.t + 18, esc(series[i].name));
    x += 30 + 7.0 * double(series[i].name.size());
  }
}

void y_range(const std::vector<Series>& series, const ChartOptions& o, double& lo, double& hi) {
  lo = std::numeric_limits<double>::infinity();
  hi = -lo;
  for (const auto& s : series)
    for (double v : s.y)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (o.y_from_zero) lo = std::min(lo, 0.0);
  if (hi <= lo) hi = lo + 1;
  hi += (hi - lo) * 0.12;  // room for the legend
}

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
  y_range(series, o, f.y0, f.y1);
  std::string s = header(o);
  y_axis(s, f, o);
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
      if (!std::isfinite(se.y[k])) continue;
      if (o.step && !pts.empty()) pts += fmt::format("{:.1f},{:.1f} ", f.px(se.x[k]), f.py(se.y[k - 1]));
      pts += fmt::format("{:.1f},{:.1f} ", f.px(se.x[k]), f.py(se.y[k]));
    }
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", kPalette[i % 8], pts);
    if (se.x.size() <= 64)
      for (std::size_t k = 0; k < se.x.size() && k < se.y.size(); ++k)
        if (std::isfinite(se.y[k]))
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
  y_range(series, o, f.y0, f.y1);
  std::string s = header(o);
  y_axis(s, f, o);
  const double group = (f.w - f.l - f.r) / f.x1, bw = group * 0.8 / double(std::max<std::size_t>(1, series.size()));
  for (std::size_t c = 0; c < o.categories.size(); ++c) {
    const double gx = f.l + group * double(c) + group * 0.1;
    for (std::size_t i = 0; i < series.size(); ++i) {
      if (c >= series[i].y.size() || !std::isfinite(series[i].y[c])) continue;
      const double y = f.py(std::max(series[i].y[c], f.y0)), y0 = f.py(std::max(0.0, f.y0));
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

}  // namespace flycol::svg
