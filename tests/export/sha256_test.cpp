// SHA-256 of the export manifest against the test vectors of FIPS 180-4 (NIST's "SHA-256"
// examples and the long-message vector), plus incremental updates split at every offset.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "sim/export/sha256.h"

using flycol::rtlexport::Sha256;
using flycol::rtlexport::sha256_file;
using flycol::rtlexport::sha256_hex;

TEST_CASE("SHA-256 of the standard's vectors", "[export][sha256]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                   "mnopqrstnopqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256 around the padding boundaries and in pieces", "[export][sha256]") {
  // 55 bytes fit the length in one block, 56 need a second one; 64 is a whole block.
  CHECK(sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
  std::string msg;
  for (int i = 0; i < 300; ++i) msg += char('A' + i % 53);
  const std::string whole = sha256_hex(msg);
  for (std::size_t cut = 0; cut <= msg.size(); cut += 7) {
    Sha256 h;
    h.update(msg.substr(0, cut));
    h.update(msg.substr(cut));
    CHECK(h.hex() == whole);
  }
}

TEST_CASE("SHA-256 of a file equals that of its bytes", "[export][sha256]") {
  const std::string path = "/tmp/flycol_sha256_test_" + std::to_string(::getpid());
  std::string bytes;
  for (int i = 0; i < 200000; ++i) bytes += char(i * 7 + 3);
  {
    std::ofstream f(path, std::ios::binary);
    f << bytes;
  }
  CHECK(sha256_file(path) == sha256_hex(bytes));
  std::remove(path.c_str());
  CHECK_THROWS(sha256_file(path));
}
