// The manifest of an exported package (manifest.json): the flycol version and configuration that
// produced it, the tools, and every file with its size and SHA-256.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/export/package_text.h"
#include "sim/report/json.h"

namespace flycol::rtlexport {

struct ManifestEntry {
  std::string path;  // relative to the package root, '/'-separated
  std::uint64_t bytes = 0;
  std::string sha256;
};

// Every regular file under `root` but `exclude` (a relative path), sorted by path.
std::vector<ManifestEntry> hash_tree(const std::string& root, const std::string& exclude);

// A YAML document (flycol's configuration text) as JSON: mappings to objects, sequences to
// arrays, scalars to booleans, integers or numbers where they read as such, else strings.
Json yaml_text_to_json(const std::string& yaml);

Json manifest_json(const PackageInfo& p, const std::vector<ManifestEntry>& files);

}  // namespace flycol::rtlexport
