// Report writers: JSON serialization round-trips through a parser, atomic files appear whole,
// and SVG charts are complete documents that survive odd data (NaN, one point, empty series).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

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
