// The text of configs/fornt16.yaml, compiled into the library by sim/config/embed_text.cmake so
// that the built-in default and the shipped file can never drift apart.
#pragma once

namespace flycol::detail {
extern const char kDefaultConfigYaml[];
}  // namespace flycol::detail
