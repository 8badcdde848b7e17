// On-demand RTL models: Verilates flycol_top for a configuration no built-in model matches, into a
// cache directory shared by later runs, and loads the result with dlopen(). One entry per key:
//   <cache>/<name>-<key16>/model.so     the model (with Verilator's runtime, all symbols hidden)
//   <cache>/<name>-<key16>/build.log    Verilator's and the compiler's output
//   <cache>/<name>-<key16>/<name>_cfg_pkg.sv  the configuration package it was Verilated with
//   <cache>/<name>-<key16>.lock         flock()ed while the entry is looked up or built
//   <cache>/<name>-<key16>.failed.log   the log of the last failed build (no entry is left)
// The entry is built in <name>-<key16>.tmp and renamed into place, so it exists whole or not at all;
// a second process waits on the lock and then finds it.
//
// Verilator's runtime is compiled into each shared object with hidden visibility rather than taken
// from the executable: the executable's copy (linked statically for the built-in models, absent
// from executables without them) is then never mixed with the one the model was compiled against,
// and two loaded models never share runtime state. Only the factory is exported. The model calls
// back into the executable for one flycol function (rtl::pack_command), which is why flycol_rtlsim
// links its users with -rdynamic.
#include "sim/rtlsim/rtl_on_demand.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/export/process.h"
#include "sim/export/sha256.h"
#include "sim/rtlgen/rtl_types.h"
#include "sim/rtlsim/rtl_build_info.h"

namespace flycol {
namespace fs = std::filesystem;
namespace {

namespace info = rtl_build_info;
using Factory = RtlTop* (*)(const char*, const RtlTopOptions*);

// Bump when the layout of an entry or the way it is built changes (older entries are then ignored).
constexpr const char* kFormat = "flycol-rtl-cache-1";
// Flags of the built-in models (cmake/FlycolRtl.cmake, flycol_verilated_lib).
const std::vector<std::string> kVerilatorFlags = {"--assert", "-Wall", "-Wno-fatal", "--x-assign", "unique",
                                                  "--x-initial", "unique", "--trace"};
// Every object of the shared library: position independent, nothing exported but the factory.
const std::vector<std::string> kCxxFlags = {"-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden"};
// C++ optimization as the built-in models (FLYCOL_VERILATED_CXX_OPT): -O2 on the per-cycle code,
// -O0 on the once-only initialization code (the symbol table alone takes GCC over a minute at -O1).
const std::vector<std::string> kMakeOpts = {"OPT_FAST=-O2", "OPT_SLOW=-O0", "OPT_GLOBAL=-O2", "VM_PARALLEL_BUILDS=1"};
// The headers that fix the ABI between the executable and the model.
const char* const kWrapperFiles[] = {"sim/rtlsim/rtl_top_dso.cpp", "sim/rtlsim/rtl_top_impl.h", "sim/rtlsim/rtl_top.h",
                                     "sim/rtlgen/rtl_types.h",     "hw/common/command.h",       "hw/common/mem_port.h",
                                     "sim/config/config.h"};

std::string source_path(const char* rel) { return std::string(info::kSourceDir) + "/" + rel; }

std::string read_or_throw(const std::string& path, const char* what) {
  std::optional<std::string> s = read_whole_file(path);
  if (!s)
    throw std::runtime_error(fmt::format("cannot read {} '{}' (the on-demand RTL build reads the source "
                                         "tree this flycol was built from)",
                                         what, path));
  return *s;
}

// stdout and stderr of a short command (version queries).
std::string command_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = ::popen((cmd + " 2>&1").c_str(), "r")) {
    char buf[256];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

std::string tool_or_throw(const std::string& program, const char* what) {
  const std::string p = rtlexport::find_program(program);
  if (p.empty())
    throw std::runtime_error(fmt::format("the RTL of this configuration is not built in and must be "
                                         "Verilated on first use, but {} ('{}') is missing; install it (Debian: "
                                         "apt-get install verilator g++ make) or use a built-in configuration",
                                         what, program));
  return p;
}

struct Tools {
  std::string verilator, cxx, launcher, make;
};

// The tool configured at build time, unless the environment names another (FLYCOL_VERILATOR,
// FLYCOL_RTL_CXX: for a moved installation, and for the tests of the error paths).
std::string tool_setting(const char* env, const char* configured) {
  const char* v = std::getenv(env);
  return v && *v ? std::string(v) : std::string(configured);
}

Tools find_tools() {
  Tools t;
  t.verilator = tool_or_throw(tool_setting("FLYCOL_VERILATOR", info::kVerilatorBin), "Verilator");
  t.cxx = tool_or_throw(tool_setting("FLYCOL_RTL_CXX", info::kCxx), "the C++ compiler");
  t.make = tool_or_throw(info::kMake, "make");
  // ccache only speeds up rebuilds of the same entry; its absence is no error.
  if (*info::kCxxLauncher) t.launcher = rtlexport::find_program(info::kCxxLauncher);
  return t;
}

std::string cache_key(const std::string& cfg_pkg, const Tools& tools) {
  rtlexport::Sha256 h;
  auto add = [&h](const std::string& label, const std::string& text) {
    h.update(fmt::format("{}:{}\n", label, text.size()));
    h.update(text);
  };
  add("format", kFormat);
  add("cfg_pkg", cfg_pkg);
  add("flycol_pkg", read_or_throw(info::kFlycolPkg, "the RTL source"));
  for (const char* src : info::kRtlSources) add(fs::path(src).filename().string(), read_or_throw(src, "the RTL source"));
  for (const char* hdr : info::kRtlHeaders) add(fs::path(hdr).filename().string(), read_or_throw(hdr, "the RTL header"));
  for (const char* f : kWrapperFiles) add(f, read_or_throw(source_path(f), "the model wrapper"));
  add("verilator", command_output("'" + tools.verilator + "' --version"));
  for (const auto& f : kVerilatorFlags) add("vflag", f);
  add("cxx", tools.cxx + "\n" + command_output("'" + tools.cxx + "' --version"));
  for (const auto& f : kCxxFlags) add("cxxflag", f);
  for (const auto& f : kMakeOpts) add("makeopt", f);
  return h.hex();
}

// A file name made of the configuration's name (letters, digits, '_', '-' kept).
std::string safe_name(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return s.empty() ? std::string("config") : s;
}

struct Entry {
  std::string name;    // <name>-<key16>
  std::string prefix;  // the Verilated class, unique per key
  std::string cfg_pkg;
  Tools tools;
};

Entry make_entry(const Config& config) {
  Entry e;
  e.tools = find_tools();
  e.cfg_pkg = rtl::generate_cfg_pkg(config);
  const std::string key = cache_key(e.cfg_pkg, e.tools);
  e.name = safe_name(config.name) + "-" + key.substr(0, 16);
  e.prefix = "Vflycol_top_k" + key.substr(0, 16);
  return e;
}

// flock() on <cache>/<entry>.lock, released when destroyed (or when the process dies).
class FileLock {
public:
  FileLock(const std::string& path, const std::string& what) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error(fmt::format("cannot open the lock file '{}': {}", path, std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    fmt::print(stderr, "flycol: waiting for another flycol that is building {} (lock {})...\n", what, path);
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const int err = errno;
        ::close(fd_);
        throw std::runtime_error(fmt::format("cannot lock '{}': {}", path, std::strerror(err)));
      }
    }
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

private:
  int fd_ = -1;
};

int build_jobs() {
  if (const char* j = std::getenv("FLYCOL_RTL_JOBS")) {
    const int n = std::atoi(j);
    if (n >= 1 && n <= 256) return n;
    throw InputError("FLYCOL_RTL_JOBS", "", fmt::format("= '{}': must be an integer in [1, 256]", j));
  }
  return int(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
}

// Builds <cache>/<entry> through <cache>/<entry>.tmp; the caller holds the entry's lock.
void build_entry(const Entry& e, const Config& config, const fs::path& cache) {
  const fs::path dir = cache / e.name;
  const fs::path tmp = cache / (e.name + ".tmp");
  const fs::path obj = tmp / "obj";
  const std::string log = (tmp / "build.log").string();
  const std::string failed_log = (cache / (e.name + ".failed.log")).string();
  std::error_code ec;
  fs::remove_all(tmp, ec);  // left by a build that was killed
  fs::create_directories(obj);
  const auto t0 = std::chrono::steady_clock::now();
  fmt::print(stderr, "flycol: Verilating the RTL of '{}' into {} (first use, about 1-2 min on 2 cores; later runs reuse it)...\n",
             config.name, dir.string());
  const auto fail = [&](const std::string& step, const rtlexport::ProcessOutcome& out) {
    fs::copy_file(log, failed_log, fs::copy_options::overwrite_existing, ec);
    fs::remove_all(tmp, ec);
    throw std::runtime_error(fmt::format("building the RTL of '{}' failed at {} ({}); the log is {}",
                                         config.name, step, out.describe(), failed_log));
  };
  const auto step = [&](int n, const std::string& what, const std::vector<std::string>& argv) {
    const auto ts = std::chrono::steady_clock::now();
    fmt::print(stderr, "flycol:   [{}/3] {}...\n", n, what);
    {
      FILE* f = std::fopen(log.c_str(), "a");
      if (f) {
        std::string cmd;
        for (const auto& a : argv) cmd += a + " ";
        fmt::print(f, "\n# step {}: {}\n", n, cmd);
        std::fclose(f);
      }
    }
    const rtlexport::ProcessOutcome out = rtlexport::run_process(argv, tmp.string(), log);
    if (!out.ok()) fail(what, out);
    fmt::print(stderr, "flycol:   [{}/3] done in {:.0f} s\n", n,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count());
  };

  const std::string cfg_pkg = (tmp / (safe_name(config.name) + "_cfg_pkg.sv")).string();
  write_file_atomic(cfg_pkg, e.cfg_pkg);

  std::vector<std::string> v = {e.tools.verilator, "--compiler", "gcc", "--cc", "--prefix", e.prefix, "--Mdir",
                                obj.string(), "--top", "flycol_top"};
  v.insert(v.end(), kVerilatorFlags.begin(), kVerilatorFlags.end());
  v.push_back(std::string("-I") + info::kRtlIncludeDir);  // the assertion macros (flycol_assert.svh)
  for (const auto& f : kCxxFlags) v.insert(v.end(), {"-CFLAGS", f});
  v.push_back(info::kFlycolPkg);
  v.push_back(cfg_pkg);
  for (const char* s : info::kRtlSources) v.push_back(s);
  step(1, "Verilator", v);

  std::vector<std::string> m = {e.tools.make, "-C", obj.string(), "-f", e.prefix + ".mk",
                                fmt::format("-j{}", build_jobs()), e.prefix + "__ALL.a", "verilated.o",
                                "verilated_vcd_c.o", "verilated_threads.o", "CXX=" + e.tools.cxx};
  m.insert(m.end(), kMakeOpts.begin(), kMakeOpts.end());
  if (!e.tools.launcher.empty()) m.push_back("OBJCACHE=" + e.tools.launcher);
  step(2, "compiling the Verilated C++", m);

  const std::string vroot = info::kVerilatorRoot;
  std::vector<std::string> l = {e.tools.cxx, "-std=c++17", "-O2", "-shared"};
  l.insert(l.end(), kCxxFlags.begin(), kCxxFlags.end());
  l.insert(l.end(), {"-DVM_TRACE=1", "-DVM_TRACE_VCD=1", "-DVM_TRACE_FST=0", "-DVM_COVERAGE=0", "-DVM_SC=0",
                     "-DFLYCOL_VTOP=" + e.prefix, "-DFLYCOL_VTOP_HEADER=\"" + e.prefix + ".h\"",
                     std::string("-I") + info::kSourceDir, "-I" + obj.string(), "-isystem", vroot + "/include",
                     "-isystem", vroot + "/include/vltstd", source_path("sim/rtlsim/rtl_top_dso.cpp"),
                     "-Wl,--whole-archive", (obj / (e.prefix + "__ALL.a")).string(), "-Wl,--no-whole-archive",
                     (obj / "verilated.o").string(), (obj / "verilated_vcd_c.o").string(),
                     (obj / "verilated_threads.o").string(), "-pthread", "-o", (tmp / "model.so").string()});
  step(3, "linking the model", l);

  fs::remove_all(obj, ec);  // 20+ MB of objects nobody needs again
  fs::remove_all(dir, ec);  // an entry someone emptied by hand (no model.so): replaced
  fs::rename(tmp, dir);     // atomic: the entry appears whole
  fs::remove(failed_log, ec);
  fmt::print(stderr, "flycol: the RTL of '{}' is ready ({:.0f} s), cached in {}\n", config.name,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), dir.string());
}

std::mutex g_mutex;                     // one builder per process (threads), beside the file lock
// Entries loaded in this process (never unloaded), by configuration package text: a model is made
// per layer, and the key (which reads the sources and asks the tools' versions) is computed once.
std::map<std::string, Factory> g_loaded;

}  // namespace

std::string rtl_cache_dir() {
  if (const char* d = std::getenv("FLYCOL_RTL_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/flycol/rtl";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/flycol/rtl";
  throw InputError("FLYCOL_RTL_CACHE", "", "is not set, and neither XDG_CACHE_HOME nor HOME is: name a directory");
}

std::unique_ptr<RtlTop> make_rtl_top_on_demand(const Config& config, const RtlTopOptions& opt) {
  std::lock_guard<std::mutex> guard(g_mutex);
  const std::string cfg_pkg = rtl::generate_cfg_pkg(config);
  Factory make = nullptr;
  if (auto it = g_loaded.find(cfg_pkg); it != g_loaded.end()) {
    make = it->second;
  } else {
    const Entry e = make_entry(config);
    const fs::path cache = rtl_cache_dir();
    std::error_code ec;
    fs::create_directories(cache, ec);
    if (ec)
      throw InputError("FLYCOL_RTL_CACHE", "",
                       fmt::format("cannot create the RTL cache directory '{}': {}", cache.string(), ec.message()));
    const fs::path so = cache / e.name / "model.so";
    {
      FileLock lock((cache / (e.name + ".lock")).string(), fmt::format("the RTL of '{}'", config.name));
      if (!fs::exists(so)) build_entry(e, config, cache);
    }
    void* h = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
      throw std::runtime_error(fmt::format("cannot load the cached RTL model {}: {} (delete {} to rebuild it)",
                                           so.string(), ::dlerror(), (cache / e.name).string()));
    make = reinterpret_cast<Factory>(::dlsym(h, "flycol_rtl_top_make"));
    if (!make)
      throw std::runtime_error(fmt::format("{} has no factory flycol_rtl_top_make (delete {} to rebuild it)",
                                           so.string(), (cache / e.name).string()));
    g_loaded[cfg_pkg] = make;
  }
  return std::unique_ptr<RtlTop>(make(config.name.c_str(), &opt));
}

}  // namespace flycol
