// Reports of a network run: the text tables `flycol net` prints, CSV and JSON files, the SVG plots
// (bytes per operation per layer as in the paper's Fig. 6, bandwidth over time), and the
// Markdown tables that put the paper's Tables II and III next to flycol's (docs/networks.md).
#pragma once

#include <string>
#include <vector>

#include "sim/network/network_run.h"
#include "sim/report/json.h"

namespace flycol::net {

std::string text_report(const NetworkRun& r);
std::string csv_report(const NetworkRun& r);
Json json_report(const NetworkRun& r);
std::string bytes_per_op_svg(const NetworkRun& r);
std::string bandwidth_svg(const NetworkRun& r);

// Writes <dir>/<network>.{txt,csv,json}, <network>_bytes_per_op.svg and <network>_bandwidth.svg,
// each atomically. Returns the paths written.
std::vector<std::string> write_reports(const NetworkRun& r, const std::string& dir);

// The generated part of docs/networks.md for these runs (one per network).
std::string markdown_tables(const std::vector<NetworkRun>& runs);

}  // namespace flycol::net
