// A Network written as a network file (the configs/networks/*.yaml format read by
// parse_network): what `flycol import` writes. parse_network(network_yaml(n)) gives n back, except
// host-op details that the format has no key for (they are written as a comment on the line).
#pragma once

#include <string>

#include "sim/network/network.h"

namespace flycol {

// `header`: comment lines put at the top (each prefixed with "# ").
std::string network_yaml(const Network& n, const std::string& header = "");

}  // namespace flycol
