// Command line of a block testbench: --seed N plus the options a bench declares (a count such as
// --cycles, flags such as --long, strings such as --config or --view). The seed is printed at the
// start, and a failing run prints one line that reproduces it. `--seed fresh` draws a new seed from
// the system's entropy source (CI's fresh-seed runs); reproduce() names the number drawn.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace flycol::tb {

class Args {
public:
  explicit Args(std::string prog) : prog_(std::move(prog)) {}

  // Options: `--name N` into *out (integers, 0x.. allowed), `--name` sets *out, `--name S` into *out.
  Args& count(const std::string& name, std::uint64_t* out, const std::string& help) {
    opts_.push_back({name, Kind::kCount, out, nullptr, nullptr, help});
    return *this;
  }
  Args& flag(const std::string& name, bool* out, const std::string& help) {
    opts_.push_back({name, Kind::kFlag, nullptr, out, nullptr, help});
    return *this;
  }
  Args& text(const std::string& name, std::string* out, const std::string& help) {
    opts_.push_back({name, Kind::kText, nullptr, nullptr, out, help});
    return *this;
  }

  // Parses argv; on an unknown option or a missing value prints the usage and returns false.
  bool parse(int argc, char** argv) {
    exe_ = argc > 0 ? argv[0] : prog_;
    default_seed_ = seed;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--seed" && i + 1 < argc) {
        const std::string v = argv[++i];
        fresh_ = v == "fresh";
        seed = fresh_ ? fresh_seed() : std::strtoull(v.c_str(), nullptr, 0);
        if (fresh_) fmt::print("{}: fresh seed {} (reproduce with --seed {})\n", prog_, seed, seed);
        continue;
      }
      const Opt* o = find(a);
      if (o == nullptr || (o->kind != Kind::kFlag && i + 1 >= argc)) {
        usage();
        return false;
      }
      args_.push_back(a);
      if (o->kind == Kind::kFlag) {
        *o->flag = true;
      } else {
        const std::string v = argv[++i];
        args_.push_back(v);
        if (o->kind == Kind::kCount) *o->count = std::strtoull(v.c_str(), nullptr, 0);
        else *o->text = v;
      }
    }
    return true;
  }

  void usage() const {
    std::string line = fmt::format("usage: {} [--seed N]", prog_);
    for (const Opt& o : opts_) line += o.kind == Kind::kFlag ? fmt::format(" [--{}]", o.name) : fmt::format(" [--{} X]", o.name);
    fmt::print(stderr, "{}\n  --seed N|fresh: random seed (default {}; fresh: a new one, printed)\n", line,
               default_seed_);
    for (const Opt& o : opts_) fmt::print(stderr, "  --{}: {}\n", o.name, o.help);
  }

  // The command that repeats this run: the program, the options given, and the seed.
  std::string reproduce() const {
    std::string cmd = exe_;
    for (const std::string& a : args_) cmd += " " + a;
    return cmd + fmt::format(" --seed {}", seed);
  }

  bool fresh() const { return fresh_; }

  std::uint64_t seed = 1;  // a bench may set another default before parse()

private:
  enum class Kind { kCount, kFlag, kText };
  struct Opt {
    std::string name;
    Kind kind;
    std::uint64_t* count;
    bool* flag;
    std::string* text;
    std::string help;
  };
  const Opt* find(const std::string& a) const {
    for (const Opt& o : opts_)
      if (a == "--" + o.name) return &o;
    return nullptr;
  }

  static std::uint64_t fresh_seed() {
    std::random_device rd;
    return (std::uint64_t(rd()) << 32 | rd()) % 1'000'000'000'000ull;  // short enough to retype
  }

  std::string prog_, exe_;
  bool fresh_ = false;
  std::uint64_t default_seed_ = 1;
  std::vector<Opt> opts_;
  std::vector<std::string> args_;  // as given, without --seed
};

}  // namespace flycol::tb
