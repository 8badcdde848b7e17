// The charts of the network report (sim/network/network_report.cpp) on the four shipped networks:
// every title fits its image, and the bytes-per-operation chart's log axis keeps every
// convolution visible beside the fully connected layers (on a linear axis they sat at zero).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "sim/config/config.h"
#include "sim/network/network.h"
#include "sim/network/network_report.h"
#include "sim/network/network_run.h"
#include "sim/report/svg_chart.h"

using namespace flycol;

namespace {

// The title lines of a chart with their font sizes, and the chart's width.
struct Title {
  double width = 0;
  std::vector<std::pair<double, std::string>> lines;
};

Title title_of(const std::string& svg) {
  Title t;
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, std::regex("<svg [^>]*width=\"([0-9]+)\"")));
  t.width = std::stod(m[1]);
  const std::regex line("<text class=\"title\" [^>]*font-size=\"([0-9.]+)\">([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), line), end; it != end; ++it)
    t.lines.emplace_back(std::stod((*it)[1]), (*it)[2]);
  return t;
}

}  // namespace

TEST_CASE("network report charts: titles fit on all four networks, bytes per FLOP on a log axis", "[report][network]") {
  const Config cfg = load_config_by_name_or_path("fornt16");
  const std::vector<std::string> names = network_names();
  CHECK(names.size() >= 4);
  double longest = 0;
  for (const std::string& name : names) {
    INFO("network " << name);
    const net::NetworkRun r = net::run_network(load_network(name), cfg, net::RunOptions{});
    for (const std::string& svg : {net::bytes_per_op_svg(r), net::bandwidth_svg(r)}) {
      const Title t = title_of(svg);
      REQUIRE_FALSE(t.lines.empty());
      std::string text;
      for (const auto& [px, line] : t.lines) {
        INFO("title line '" << line << "' at " << px << " px, chart " << t.width << " px wide");
        CHECK(px >= 10);
        CHECK(svg::text_width_bound(line, px) <= t.width - 20);
        text += (text.empty() ? "" : " ") + line;
      }
      CHECK(text.rfind(r.net.title + ": ", 0) == 0);  // nothing of the title is lost
      longest = std::max(longest, svg::text_width_bound(text, 15) / t.width);
    }

    // Bars (one per layer and lowering, each with a <title> tooltip): on the log axis the
    // smallest is still a tenth of a decade tall, however far below the largest it is.
    const std::string bpo = net::bytes_per_op_svg(r);
    CHECK(bpo.find("(log scale)") != std::string::npos);
    const std::regex bar("<rect x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"[0-9.]+\" height=\"([0-9.]+)\" fill=\"[^\"]+\"><title>[^:<]*: ([^<]*)</title>");
    double lo = INFINITY, hi = 0, min_height = INFINITY;
    int bars = 0;
    for (std::sregex_iterator it(bpo.begin(), bpo.end(), bar), end; it != end; ++it, ++bars) {
      lo = std::min(lo, std::stod((*it)[2]));
      hi = std::max(hi, std::stod((*it)[2]));
      min_height = std::max(0.0, std::min(min_height, std::stod((*it)[1])));
    }
    CHECK(bars == 2 * int(r.feeder.layers.size()));
    CHECK(min_height >= 2.0);
    if (name == "resnet50" || name == "vgg16") {
      // Their fully connected layers: on a linear axis the smallest bar would be under 1 % of the
      // tallest (under 3 px of about 290), which is what this chart fixes.
      CHECK(lo / hi < 0.01);
      CHECK(min_height >= 10.0);
    }
  }
  // The longest title needs wrapping or shrinking at 15 px (ResNet-50's): the case is exercised.
  CHECK(longest > 1.0);
}

// libsystemc's own main() refers to sc_main; Catch2 provides main() and SystemC runs as a library.
extern "C" int sc_main(int, char*[]) { return 2; }
