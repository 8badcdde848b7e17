// SHA-256 (FIPS 180-4) of byte strings and files, for the export manifest: each exported file is
// listed with its digest so a flow can check it received the package as written.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace flycol::rtlexport {

// Incremental hashing: update() any number of times, then hex() once.
class Sha256 {
public:
  Sha256();
  void update(const void* data, std::size_t len);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // The digest as 64 lower-case hex digits. Ends the computation (call it once).
  std::string hex();

private:
  void block(const std::uint8_t* p);

  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;  // bytes hashed so far
};

std::string sha256_hex(std::string_view data);
// Throws std::runtime_error naming the file if it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace flycol::rtlexport
