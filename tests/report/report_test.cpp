// Report writers: JSON serialization round-trips through a parser, atomic files appear whole,
// SVG charts are complete documents that survive odd data (NaN, one point, empty series), their
// log10 y axis puts values where a hand computation does, and their titles and labels fit.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/common/files.h"
#include "sim/report/json.h"
#include "sim/report/svg_chart.h"

using namespace flycol;

TEST_CASE("JSON output parses back with the same values", "[report]") {
  Json j = Json::object();
  j["name"] = "a \"quoted\"\nline";
  j["n"] = 42;
  j["x"] = 0.1;
  j["nan"] = std::nan("");
  j["list"] = Json::Array{1, 2, 3};
  j["obj"]["inner"] = true;
  const YAML::Node y = YAML::Load(j.dump());
  CHECK(y["name"].as<std::string>() == "a \"quoted\"\nline");
  CHECK(y["n"].as<int>() == 42);
  CHECK(y["x"].as<double>() == 0.1);
  CHECK(y["nan"].IsNull());
  CHECK(y["list"].size() == 3);
  CHECK(y["obj"]["inner"].as<bool>());
  CHECK(YAML::Load(j.dump(0))["n"].as<int>() == 42);
}

TEST_CASE("write_file_atomic creates directories and leaves no temporary file", "[report]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "flycol_report_test" / "deep";
  fs::remove_all(dir.parent_path());
  write_file_atomic((dir / "f.txt").string(), "hello");
  std::ifstream f(dir / "f.txt");
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str() == "hello");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 1);
  CHECK_THROWS(write_file_atomic("/proc/flycol_cannot_write/x", "y"));
}

TEST_CASE("SVG charts are complete documents", "[report]") {
  svg::ChartOptions o;
  o.title = "cycles <vs> dilation";
  o.x_label = "dilation";
  o.y_label = "cycles";
  o.x_log2 = true;
  const std::string line = svg::line_chart({{"stride 1", {1, 2, 4, 8}, {10, 20, std::nan(""), 40}},
                                            {"single", {3}, {5}}, {"empty", {}, {}}}, o);
  CHECK(line.rfind("<svg", 0) == 0);
  CHECK(line.find("</svg>") != std::string::npos);
  CHECK(line.find("cycles &lt;vs&gt; dilation") != std::string::npos);
  CHECK(line.find("stride 1") != std::string::npos);
  CHECK(line.find("nan") == std::string::npos);
  o.categories = {"conv1", "conv2", "conv3"};
  const std::string bars = svg::bar_chart({{"feeder", {}, {1.5, 2.5, 0.5}}, {"explicit", {}, {3, 4}}}, o);
  CHECK(bars.find("<rect") != std::string::npos);
  CHECK(bars.find("conv3") != std::string::npos);
  CHECK(bars.find("</svg>") != std::string::npos);
}

// ---- The log10 y axis --------------------------------------------------------------------------

namespace {

// The SVG elements a test reads back, found by their attributes (the chart writes them in this form).
struct Svg {
  std::string text;
  std::vector<std::smatch> all(const std::string& pattern) const {
    std::vector<std::smatch> out;
    const std::regex re(pattern);
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) out.push_back(*it);
    return out;
  }
};

std::string unescape(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""},
                                 {"&amp;", "&"}})
    for (std::size_t p; (p = s.find(from)) != std::string::npos;) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("log10 y axis: values where the hand computation puts them, decade ticks, values <= 0 left out", "[report]") {
  svg::ChartOptions o;  // 900 x 460, no title: margins l 70, r 20, t 40, b 60; plot 810 x 360 px
  o.x_label = "x";
  o.y_label = "y";
  o.y_log10 = true;
  // Smallest positive 0.01: the axis starts at the highest decade a tenth of a decade below it,
  // 10^floor(-2 - 0.1) = 0.001. Largest 10: log 1, span 1 - (-3) = 4 decades, raised by 12 % of it
  // to 1.48, so the axis ends at 10^2. Five decades over 360 px: 72 px each, bottom at y = 400.
  const Svg line{svg::line_chart({{"s", {1, 2, 3, 4, 5}, {0.01, 0.05, 1, 10, 0}}}, o)};
  // x: linear 1..5 over 70..880 px, 202.5 px apart. y = 400 - 72 (log10 v + 3):
  //   0.01 -> 328; 0.05 -> 400 - 72 x 1.69897 = 277.674; 1 -> 184; 10 -> 112; 0 -> not drawn.
  std::vector<std::pair<std::string, std::string>> circles;
  for (const auto& m : line.all("<circle cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"")) circles.emplace_back(m[1], m[2]);
  CHECK(circles == std::vector<std::pair<std::string, std::string>>{
                       {"70.0", "328.0"}, {"272.5", "277.7"}, {"475.0", "184.0"}, {"677.5", "112.0"}});
  CHECK(line.text.find("880.0,") == std::string::npos);  // the 0 at x = 5 is in no polyline either
  // Ticks: one per decade 0.001 .. 100, labels 4 px below the grid line (text baseline).
  std::vector<std::pair<std::string, std::string>> ticks;
  for (const auto& m : line.all("<text class=\"ytick\" x=\"[0-9.]+\" y=\"([0-9.]+)\" text-anchor=\"end\">([^<]*)</text>"))
    ticks.emplace_back(m[2], m[1]);
  CHECK(ticks == std::vector<std::pair<std::string, std::string>>{
                     {"0.001", "404.0"}, {"0.01", "332.0"}, {"0.1", "260.0"}, {"1", "188.0"}, {"10", "116.0"}, {"100", "44.0"}});
  CHECK(line.all("<line x1=\"70.0\" y1=\"([0-9.]+)\"").size() == 6);  // a grid line per decade, no other
  CHECK(line.text.find("log axis: 1 value &lt;= 0 not drawn") != std::string::npos);

  // Bars grow from the bottom decade. 0.001 and 0.5 (and -1, NaN not drawn): the axis runs from
  // 10^floor(-3.1) = 10^-4 to 10^ceil(log10 0.5 + 0.12 x 3.69897) = 10^ceil(0.1429) = 10^1, 5 decades,
  // 72 px each. 0.001: top 400 - 72 = 328, height 72. 0.5: top 400 - 72 x 3.69897 = 133.674,
  // height 266.326. Groups 810 / 3 = 270 px wide, bars 80 % of it less 1 px, from 10 % in.
  o.categories = {"a", "b", "c", "d"};
  const Svg bars{svg::bar_chart({{"s", {}, {0.001, 0.5, -1, std::nan("")}}}, o)};
  std::vector<std::string> rects;
  for (const auto& m : bars.all("<rect x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\" fill=\"[^\"]+\"><title>"))
    rects.push_back(std::string(m[1]) + " " + std::string(m[2]) + " " + std::string(m[3]) + " " + std::string(m[4]));
  // Four categories: groups 202.5 px, bars 161 px wide, at 70 + 20.25 and 70 + 202.5 + 20.25.
  CHECK(rects == std::vector<std::string>{"90.2 328.0 161.0 72.0", "292.8 133.7 161.0 266.3"});
  CHECK(bars.text.find("log axis: 1 value &lt;= 0 not drawn") != std::string::npos);  // NaN is no value

  // Labels thin out beyond 10 decades; the grid lines stay. 1e-12 .. 1e6: from 10^floor(-12.1) =
  // 10^-13 to 10^ceil(6 + 0.12 x 19) = 10^9, 23 grid lines; a label on every (23 + 9) / 10 = 3rd.
  const Svg wide{svg::line_chart({{"s", {1, 2}, {1e-12, 1e6}}}, o)};
  std::vector<std::string> labels;
  for (const auto& m : wide.all("<text class=\"ytick\"[^>]*>([^<]*)</text>")) labels.push_back(m[1]);
  CHECK(wide.all("<line x1=\"70.0\"").size() == 23);
  CHECK(labels == std::vector<std::string>{"1e-13", "1e-10", "1e-7", "0.0001", "0.1", "100", "100000", "1e8"});
  CHECK(wide.text.find("not drawn") == std::string::npos);
  // 1e-3 .. 2e4: from 10^-4 to 10^ceil(4.301 + 0.12 x 8.301) = 10^6, 11 grid lines: one too many
  // to label each, so every 2nd: 6 labels.
  const Svg eleven{svg::line_chart({{"s", {1, 2}, {1e-3, 2e4}}}, o)};
  CHECK(eleven.all("<line x1=\"70.0\"").size() == 11);
  CHECK(eleven.all("<text class=\"ytick\"").size() == 6);
}

// ---- Titles that fit ---------------------------------------------------------------------------

TEST_CASE("the character width bound covers DejaVu Sans and Helvetica/Arial glyph by glyph", "[report]") {
  // Advance widths in em of DejaVu Sans (what sans-serif is on Debian), read from the hmtx table of
  // /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf, for every printable ASCII character.
  const std::pair<int, double> dejavu[] = {
    {32, 0.3179}, {33, 0.4009}, {34, 0.4600}, {35, 0.8379}, {36, 0.6362}, {37, 0.9502}, {38, 0.7798},
    {39, 0.2749}, {40, 0.3901}, {41, 0.3901}, {42, 0.5000}, {43, 0.8379}, {44, 0.3179}, {45, 0.3608},
    {46, 0.3179}, {47, 0.3369}, {48, 0.6362}, {49, 0.6362}, {50, 0.6362}, {51, 0.6362}, {52, 0.6362},
    {53, 0.6362}, {54, 0.6362}, {55, 0.6362}, {56, 0.6362}, {57, 0.6362}, {58, 0.3369}, {59, 0.3369},
    {60, 0.8379}, {61, 0.8379}, {62, 0.8379}, {63, 0.5308}, {64, 1.0000}, {65, 0.6841}, {66, 0.6860},
    {67, 0.6982}, {68, 0.7700}, {69, 0.6318}, {70, 0.5752}, {71, 0.7749}, {72, 0.7520}, {73, 0.2949},
    {74, 0.2949}, {75, 0.6558}, {76, 0.5571}, {77, 0.8628}, {78, 0.7480}, {79, 0.7871}, {80, 0.6030},
    {81, 0.7871}, {82, 0.6948}, {83, 0.6348}, {84, 0.6108}, {85, 0.7319}, {86, 0.6841}, {87, 0.9888},
    {88, 0.6851}, {89, 0.6108}, {90, 0.6851}, {91, 0.3901}, {92, 0.3369}, {93, 0.3901}, {94, 0.8379},
    {95, 0.5000}, {96, 0.5000}, {97, 0.6128}, {98, 0.6348}, {99, 0.5498}, {100, 0.6348}, {101, 0.6152},
    {102, 0.3521}, {103, 0.6348}, {104, 0.6338}, {105, 0.2778}, {106, 0.2778}, {107, 0.5791}, {108, 0.2778},
    {109, 0.9741}, {110, 0.6338}, {111, 0.6118}, {112, 0.6348}, {113, 0.6348}, {114, 0.4111}, {115, 0.5210},
    {116, 0.3921}, {117, 0.6338}, {118, 0.5918}, {119, 0.8179}, {120, 0.5918}, {121, 0.5918}, {122, 0.5249},
    {123, 0.6362}, {124, 0.3369}, {125, 0.6362}, {126, 0.8379},
  };
  for (const auto& [c, em] : dejavu) {
    INFO("character " << char(c) << " (" << c << ")");
    CHECK(svg::char_width_bound_em(char32_t(c)) >= em);
  }
  // Helvetica's (= Arial's) widest glyphs per class, from Adobe's published core-font metrics.
  const std::pair<char, double> helvetica[] = {{'W', 0.944}, {'M', 0.833}, {'m', 0.833}, {'w', 0.722}, {'@', 1.015},
                                               {'O', 0.778}, {'%', 0.889}, {'0', 0.556}, {'_', 0.556}, {'!', 0.278}};
  for (const auto& [c, em] : helvetica) {
    INFO("character " << c);
    CHECK(svg::char_width_bound_em(char32_t(c)) >= em);
  }
  // The bound of a string adds its characters': W m space i at 10 px = (0.99 + 0.99 + 0.41 + 0.41) x 10.
  CHECK(svg::text_width_bound("Wm i", 10) == Approx(28.0));
  CHECK(svg::text_width_bound("x\xc3\xa9", 10) == Approx(6.4 + 10.2));  // "xé": é is one code point at 1.02 em
  CHECK(svg::text_width_bound("", 15) == 0);
}

namespace {

// Every title line and axis label of a chart fits: title lines within the width less 10 px a side,
// the x label within the plot's width, the y label within its height. Returns the title's lines.
std::vector<std::string> check_text_fits(const std::string& chart, const svg::ChartOptions& o) {
  const Svg s{chart};
  const auto w = s.all("<svg [^>]*width=\"([0-9]+)\" height=\"([0-9]+)\"");
  REQUIRE(w.size() == 1);
  const double width = std::stod(w[0][1]), height = std::stod(w[0][2]);
  REQUIRE(width == o.width);
  std::vector<std::string> lines;
  for (const auto& m : s.all("<text class=\"title\" x=\"[0-9.]+\" y=\"[0-9.]+\" text-anchor=\"middle\" font-size=\"([0-9.]+)\">([^<]*)</text>")) {
    const double px = std::stod(m[1]);
    const std::string line = unescape(m[2]);
    INFO("title line '" << line << "' at " << px << " px in a " << width << " px wide chart");
    CHECK(px >= 10);
    CHECK(svg::text_width_bound(line, px) <= width - 20);
    lines.push_back(line);
  }
  // The plot frame (the rect with a #333 stroke) gives the axes' lengths.
  const auto frame = s.all("<rect x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\" fill=\"none\" stroke=\"#333\"/>");
  REQUIRE(frame.size() == 1);
  const double plot_w = std::stod(frame[0][3]), plot_h = std::stod(frame[0][4]);
  CHECK(std::stod(frame[0][2]) + plot_h <= height);
  for (const char* cls : {"xlabel", "ylabel"})
    for (const auto& m : s.all(std::string("<text class=\"") + cls + "\"[^>]* font-size=\"([0-9.]+)\">([^<]*)</text>")) {
      const double px = std::stod(m[1]);
      INFO(cls << " line '" << unescape(m[2]) << "' at " << px << " px");
      CHECK(px >= 9);
      CHECK(svg::text_width_bound(unescape(m[2]), px) <= (std::string(cls) == "xlabel" ? plot_w : plot_h));
    }
  return lines;
}

std::string joined(const std::vector<std::string>& lines, const char* sep) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : sep) + l;
  return out;
}

}  // namespace

TEST_CASE("titles and axis labels fit the image: kept, wrapped, shrunk or broken as needed", "[report]") {
  svg::ChartOptions o;
  o.x_label = "dilation";
  o.y_label = "cycles";
  const std::vector<svg::Series> data = {{"a", {1, 2, 3}, {3, 1, 2}}};
  SECTION("a short title stays one line at 15 px") {
    o.title = "cycles against dilation";
    const std::vector<std::string> lines = check_text_fits(svg::line_chart(data, o), o);
    CHECK(lines == std::vector<std::string>{o.title});
    CHECK(svg::line_chart(data, o).find("font-size=\"15\">cycles against dilation<") != std::string::npos);
  }
  SECTION("a synthetic long title wraps, then shrinks, never losing a word") {
    std::string title;
    for (int i = 0; i < 40; ++i) title += (i ? " " : "") + std::string(i % 3 ? "Wmwm" : "convolution") + std::to_string(i);
    REQUIRE(svg::text_width_bound(title, 15) > 3 * 880);  // more than 2 lines at 15 px
    o.title = title;
    for (const char* x_label : {"dilation", "a long x label: MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM"}) {
      o.x_label = x_label;
      o.y_label = std::string("a long y label ") + std::string(60, 'W') + " <and> " + std::string(30, 'm');
      for (int width : {900, 420}) {
        o.width = width;
        const std::string chart = svg::line_chart(data, o);
        const std::vector<std::string> lines = check_text_fits(chart, o);
        CHECK(joined(lines, " ") == title);
        CHECK(check_text_fits(svg::bar_chart({{"a", {}, {1, 2}}}, o), o).size() >= 2);
      }
    }
  }
  SECTION("one word wider than the image at the smallest size is broken between characters") {
    o.title = std::string(300, 'W') + "\xc3\xa9";
    o.width = 500;
    const std::vector<std::string> lines = check_text_fits(svg::line_chart(data, o), o);
    CHECK(lines.size() >= 7);  // 300 x 0.99 x 10 px over 480 px
    CHECK(joined(lines, "") == o.title);
  }
  SECTION("fit_text keeps the largest size that fits in the allowed lines") {
    const svg::FittedText one = svg::fit_text("abc def", 1000, 15, 10, 2);
    CHECK(one.font_px == 15);
    CHECK(one.lines == std::vector<std::string>{"abc def"});
    // "aaaa bbbb" at 15 px: each word 4 x 0.64 x 15 = 38.4 px, joined 86.1: in 50 px two lines at 15 px.
    const svg::FittedText two = svg::fit_text("aaaa bbbb", 50, 15, 10, 2);
    CHECK(two.font_px == 15);
    CHECK(two.lines == std::vector<std::string>{"aaaa", "bbbb"});
    // Two lines: after the colon rather than greedily (which would give "Subject: aaaa" / "bbbb").
    const svg::FittedText colon = svg::fit_text("Subject: aaaa bbbb", 90, 15, 10, 2);
    CHECK(colon.font_px == 15);
    CHECK(colon.lines == std::vector<std::string>{"Subject:", "aaaa bbbb"});
    // One line allowed: shrink until 86.1 x px / 15 fits 70 px: px = 12 (68.88 px; 13 gives 74.6).
    const svg::FittedText shrunk = svg::fit_text("aaaa bbbb", 70, 15, 10, 1);
    CHECK(shrunk.font_px == 12);
    CHECK(shrunk.lines.size() == 1);
  }
}
