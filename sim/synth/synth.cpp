// The synthesis flow (synth.h): write the configuration package and the Yosys script, run Yosys on
// the whole top and on the PE variants, analyze the netlists with the block map, and turn the
// result into the report (JSON and text) and the cache the power proxy reads.
#include "sim/synth/synth.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/find_by.h"
#include "sim/common/input_error.h"
#include "sim/config/yaml_guard.h"
#include "sim/report/json.h"
#include "sim/rtlgen/rtl_types.h"
#include "sim/synth/yosys_run.h"

#ifndef FLYCOL_SOURCE_DIR
#error "FLYCOL_SOURCE_DIR must name the repository root (set by sim/synth/CMakeLists.txt)"
#endif
#ifndef FLYCOL_BINARY_DIR
#error "FLYCOL_BINARY_DIR must name the build directory (set by sim/synth/CMakeLists.txt)"
#endif
#ifndef FLYCOL_YOSYS
#error "FLYCOL_YOSYS must name the yosys binary (set by sim/synth/CMakeLists.txt)"
#endif

namespace flycol::synth {
namespace fs = std::filesystem;

namespace {

// Bump when the analysis or the report changes what a cached report holds.
constexpr const char* kFlowVersion = "flycol-synth-2";
// Files that are macros, not logic: read as blackboxes.
constexpr const char* kMacroFiles[] = {"sram_bank.sv"};
// The PE's arithmetic units: blackboxes in the PE variants (they are the same in every variant).
constexpr const char* kPeArithFiles[] = {"fp16_fma.sv", "int_mac.sv"};

std::string hw(const std::string& rel) { return std::string(FLYCOL_SOURCE_DIR) + "/hw/" + rel; }

std::string read_file(const std::string& path) { return read_input_file(path, "file"); }

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::uint64_t fnv1a(std::uint64_t h, const std::string& s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h ^ 0xff;  // separator, so that ("ab","c") and ("a","bc") differ
}

bool is_one_of(const std::string& path, const char* const* names, std::size_t n) {
  const std::string f = fs::path(path).filename().string();
  for (std::size_t i = 0; i < n; ++i)
    if (f == names[i]) return true;
  return false;
}

std::string find_source(const std::string& file) {
  for (const auto& s : rtl_sources())
    if (fs::path(s).filename() == file) return s;
  throw std::runtime_error("RTL source " + file + " is not registered (flycol_rtl_sources)");
}

std::string join_paths(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& p : v) {
    if (p.find_first_of(" \t\"") != std::string::npos)
      throw InputError(p, "", "paths given to Yosys may not contain blanks or quotes");
    out += (out.empty() ? "" : " ") + p;
  }
  return out;
}

std::string yosys_bin(const SynthOptions& o) { return o.yosys.empty() ? std::string(FLYCOL_YOSYS) : o.yosys; }
std::string liberty_path(const SynthOptions& o) {
  return o.liberty.empty() ? hw("synth/flycol_cells.lib") : o.liberty;
}

struct Job {
  std::string top;
  std::vector<std::string> sources, macros;
  bool flatten = false;
};

// Runs one Yosys job in `dir` with prefix `name`; returns the parsed netlist.
Netlist run_job(const Job& job, const std::string& name, const std::string& dir, const SynthOptions& opt,
                double* seconds) {
  const std::string script = dir + "/" + name + ".ys", log = dir + "/" + name + ".log",
                    netlist = dir + "/" + name + ".blif", stat = dir + "/" + name + ".stat";
  const std::string incdir = join_paths({hw("common")});  // flycol_assert.svh (empty macros under SYNTHESIS)
  const std::map<std::string, std::string> fields = {
      {"LIBERTY", liberty_path(opt)},      {"SOURCES", join_paths(job.sources)},
      {"READ_MACROS", job.macros.empty() ? std::string()
                                         : "read_verilog -sv -DSYNTHESIS -I" + incdir + " -lib " + join_paths(job.macros)},
      {"TOP", job.top},
      {"FLATTEN", job.flatten ? "flatten" : ""}, {"STAT", stat},
      {"NETLIST", netlist},
      {"INCDIR", incdir},
  };
  write_file(script, fill_template(read_file(hw("synth/synth.ys.in")), fields));
  const ProcessResult r = run_yosys(yosys_bin(opt), script, log, dir, opt.timeout_s);
  if (seconds) *seconds += r.seconds;
  if (r.timed_out)
    throw std::runtime_error(fmt::format("yosys ({}) ran past its limit of {} s; log: {}", name, opt.timeout_s, log));
  if (r.exit_code != 0)
    throw std::runtime_error(fmt::format("yosys ({}) failed with exit code {}; end of {}:\n{}", name, r.exit_code,
                                         log, tail_of_file(log, 15) + tail_of_file(log + ".out", 5)));
  return Netlist::load_blif(netlist);
}

// The work directory: the given one, or a fresh temporary one removed at the end.
struct WorkDir {
  std::string path;
  bool remove = false;
  explicit WorkDir(const SynthOptions& o) {
    if (!o.work_dir.empty()) {
      path = fs::absolute(o.work_dir).string();
      fs::create_directories(path);
      return;
    }
    std::string tmpl = (fs::temp_directory_path() / "flycol-synth-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory for Yosys");
    path = tmpl;
    remove = !o.keep_work;
  }
  ~WorkDir() {
    std::error_code ec;
    if (remove) fs::remove_all(path, ec);
  }
};

Json figures_json(const Figures& f, double logic) {
  Json j = Json::object();
  j["nand2_eq"] = f.area;
  j["share"] = logic > 0 ? f.area / logic : 0.0;
  j["flops"] = f.flops;
  j["cells"] = f.cells;
  j["data_cap"] = f.data_cap;
  j["clock_cap"] = f.clock_cap;
  return j;
}

Json path_json(const PathInfo& p) {
  Json j = Json::object();
  j["depth"] = p.depth;
  j["start"] = p.start;
  j["end"] = p.end;
  return j;
}

Figures figures_of(const YAML::Node& n) {
  Figures f;
  f.area = n["nand2_eq"].as<double>();
  f.flops = n["flops"].as<std::uint64_t>();
  f.cells = n["cells"].as<std::uint64_t>();
  f.data_cap = n["data_cap"].as<double>();
  f.clock_cap = n["clock_cap"].as<double>();
  return f;
}

PathInfo path_of(const YAML::Node& n) {
  PathInfo p;
  if (!n) return p;
  p.depth = n["depth"].as<int>();
  p.start = n["start"].as<std::string>();
  p.end = n["end"].as<std::string>();
  return p;
}

std::string thousands(double v) {
  const auto n = static_cast<long long>(v + 0.5);
  std::string s = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return (n < 0 ? "-" : "") + out;
}

}  // namespace

double SynthReport::logic_nand2_eq() const {
  double a = 0;
  for (const auto& b : blocks) a += b.figures.area;
  return a;
}

std::uint64_t SynthReport::flops() const {
  std::uint64_t n = 0;
  for (const auto& b : blocks) n += b.figures.flops;
  return n;
}

std::uint64_t SynthReport::sram_bits() const {
  std::uint64_t n = 0;
  for (const auto& s : srams) n += s.bits();
  return n;
}

const BlockReport* SynthReport::block(const std::string& id) const { return find_by(blocks, &BlockReport::id, id); }

const PartReport* SynthReport::part(const std::string& id) const { return find_part_by_id(blocks, id); }

Json SynthReport::to_json(bool with_instances) const {
  const double logic = logic_nand2_eq();
  Json j = Json::object();
  j["config"] = config_name;
  j["config_source"] = config_source;
  j["tool"] = yosys_version;
  j["library"] = library;
  j["units"] = "area in NAND2 equivalents of hw/synth/flycol_cells.lib; capacitance in inverter inputs";
  Json& bl = j["blocks"];
  bl = Json::object();
  for (const auto& b : blocks) {
    Json bj = figures_json(b.figures, logic);
    bj["title"] = b.title;
    bj["depth"] = b.path.depth;
    bj["longest_path"] = path_json(b.path);
    Json& pj = bj["parts"];
    pj = Json::object();
    for (const auto& p : b.parts) {
      Json x = figures_json(p.figures, logic);
      x["title"] = p.title;
      x["depth"] = p.path.depth;
      x["note"] = p.note;
      pj[p.id.substr(p.id.find('/') + 1)] = x;
    }
    bl[b.id] = bj;
  }
  j["logic_nand2_eq"] = logic;
  j["flops"] = flops();
  j["pe_instances"] = pe_instances;
  Json& sr = j["srams"];
  sr = Json::object();
  for (const auto& s : srams) {
    Json& x = sr[s.name];
    x["macros"] = s.macros;
    x["words"] = s.words;
    x["word_bits"] = s.word_bits;
    x["bits"] = s.bits();
  }
  j["sram_bits"] = sram_bits();
  j["sram_nand2_per_bit"] = sram_nand2_per_bit;
  j["sram_nand2_eq"] = sram_nand2_eq();
  j["total_nand2_eq"] = logic + sram_nand2_eq();
  j["critical_path"] = path_json(critical);
  j["combinational_loop_cells"] = loop_cells;
  j["seconds"] = seconds;
  j["yosys_seconds"] = yosys_seconds;
  j["cache_key"] = cache_key;
  Json& pl = j["planned_blocks"];
  pl = Json::object();
  for (const auto& b : planned) {
    Json& x = pl[b.id];
    x["title"] = b.title;
    x["note"] = b.note;
    x["copies"] = b.copies;
    x["one"] = figures_json(b.one, logic);
    x["all"] = figures_json(b.all, logic);
  }
  if (with_instances) {
    Json& in = j["instances"];
    in = Json::array();
    for (const auto& i : instances) in.push(Json::Array{i.path, i.module, i.part});
  }
  return j;
}

SynthReport SynthReport::from_json_text(const std::string& text, const std::string& source) {
  SynthReport r;
  try {
    const YAML::Node j = load_yaml(text, source);
    r.config_name = j["config"].as<std::string>();
    r.config_source = j["config_source"].as<std::string>();
    r.yosys_version = j["tool"].as<std::string>();
    r.library = j["library"].as<std::string>();
    const BlockMap& map = BlockMap::standard();
    for (const auto& bi : map.blocks()) {
      const YAML::Node b = j["blocks"][bi.id];
      if (!b) throw InputError(source, "blocks." + bi.id, "missing");
      BlockReport br;
      br.id = bi.id;
      br.title = bi.title;
      br.figures = figures_of(b);
      br.path = path_of(b["longest_path"]);
      for (const auto& pi : map.parts()) {
        if (BlockMap::block_of(pi.id) != bi.id) continue;
        const YAML::Node p = b["parts"][pi.id.substr(pi.id.find('/') + 1)];
        if (!p) throw InputError(source, "blocks." + pi.id, "missing");
        PartReport pr{pi.id, pi.title, pi.note, figures_of(p), {}};
        pr.path.depth = p["depth"].as<int>();
        br.parts.push_back(pr);
      }
      r.blocks.push_back(br);
    }
    for (const auto& s : j["srams"]) {
      SramReport sr;
      sr.name = s.first.as<std::string>();
      sr.macros = s.second["macros"].as<std::uint64_t>();
      sr.words = s.second["words"].as<std::uint64_t>();
      sr.word_bits = s.second["word_bits"].as<std::uint64_t>();
      r.srams.push_back(sr);
    }
    r.sram_nand2_per_bit = j["sram_nand2_per_bit"].as<double>();
    r.pe_instances = j["pe_instances"].as<std::uint64_t>();
    r.critical = path_of(j["critical_path"]);
    r.loop_cells = j["combinational_loop_cells"].as<std::uint64_t>();
    r.seconds = j["seconds"].as<double>();
    r.yosys_seconds = j["yosys_seconds"].as<double>();
    r.cache_key = j["cache_key"].as<std::string>();
    for (const auto& b : j["planned_blocks"]) {
      PlannedBlock pb;
      pb.id = b.first.as<std::string>();
      pb.title = b.second["title"].as<std::string>();
      pb.note = b.second["note"].as<std::string>();
      pb.copies = b.second["copies"].as<int>();
      pb.one = figures_of(b.second["one"]);
      pb.all = figures_of(b.second["all"]);
      r.planned.push_back(pb);
    }
    for (const auto& i : j["instances"])
      r.instances.push_back({i[0].as<std::string>(), i[1].as<std::string>(), i[2].as<std::string>()});
  } catch (const YAML::Exception& e) {
    throw InputError(source, "", std::string("not a flycol synth report: ") + e.what());
  }
  return r;
}

std::string SynthReport::text() const {
  const double logic = logic_nand2_eq();
  std::string out = fmt::format("flycol synth: config {} ({}), {}, library {}\n", config_name, config_source,
                                yosys_version, library);
  out += fmt::format("  {:<46} {:>12} {:>8} {:>8} {:>6}\n", "block / part", "NAND2 eq", "share", "flops", "depth");
  auto depth = [](int d) { return d < 0 ? std::string("-") : std::to_string(d); };
  for (const auto& b : blocks) {
    out += fmt::format("  {:<46} {:>12} {:>7.2f}% {:>8} {:>6}\n", b.title, thousands(b.figures.area),
                       logic > 0 ? 100 * b.figures.area / logic : 0.0, b.figures.flops, depth(b.path.depth));
    for (const auto& p : b.parts)
      out += fmt::format("    {:<44} {:>12} {:>7.2f}% {:>8} {:>6}\n", p.title, thousands(p.figures.area),
                         logic > 0 ? 100 * p.figures.area / logic : 0.0, p.figures.flops, depth(p.path.depth));
  }
  out += fmt::format("  {:<46} {:>12} {:>7.2f}% {:>8}\n", "logic", thousands(logic), 100.0, flops());
  for (const auto& b : planned)
    out += fmt::format("  {:<46} {:>12} {:>7.2f}% {:>8} {:>6}   not in the logic above: {}, {} NAND2 eq each\n",
                       b.title, thousands(b.all.area), logic > 0 ? 100 * b.all.area / logic : 0.0, b.all.flops, "-",
                       b.note, thousands(b.one.area));
  std::string srams_text;
  for (const auto& s : srams)
    srams_text += fmt::format("{}{} {} x {} x {}", srams_text.empty() ? "" : ", ", s.name, s.macros, s.words,
                              s.word_bits);
  out += fmt::format("  SRAM macros   {} bits ({}): about {} NAND2 eq at {} per bit (an estimate, not synthesized)\n",
                     thousands(double(sram_bits())), srams_text, thousands(sram_nand2_eq()), sram_nand2_per_bit);
  out += fmt::format("  logic + SRAM  {} NAND2 eq; logic is {:.1f} % of it\n", thousands(logic + sram_nand2_eq()),
                     logic + sram_nand2_eq() > 0 ? 100 * logic / (logic + sram_nand2_eq()) : 0.0);
  out += fmt::format("  longest path  {} cells, from {} to {}\n", critical.depth, critical.start, critical.end);
  if (loop_cells) out += fmt::format("  WARNING      {} cells on combinational loops (left out of the depths)\n", loop_cells);
  out += fmt::format("  time          {:.1f} s ({:.1f} s in Yosys)\n", seconds, yosys_seconds);
  return out;
}

std::string synth_cache_key(const Config& cfg, const SynthOptions& opt) {
  std::uint64_t h = 1469598103934665603ull;
  h = fnv1a(h, kFlowVersion);
  h = fnv1a(h, rtl::generate_cfg_pkg(cfg));
  h = fnv1a(h, read_file(rtl_package()));
  for (const auto& s : rtl_sources()) h = fnv1a(fnv1a(h, fs::path(s).filename().string()), read_file(s));
  h = fnv1a(h, read_file(liberty_path(opt)));
  h = fnv1a(h, read_file(hw("synth/synth.ys.in")));
  h = fnv1a(h, read_file(hw("common/flycol_assert.svh")));
  h = fnv1a(h, read_file(hw("synth/pe_no_reserve.sv")));
  h = fnv1a(h, yosys_version(yosys_bin(opt)));
  h = fnv1a(h, fmt::format("{}:{}", opt.variants, opt.sram_nand2_per_bit));
  return fmt::format("{:016x}", h);
}

SynthReport synthesize(const Config& cfg, const SynthOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string yosys = yosys_bin(opt);
  if (!fs::exists(yosys)) throw std::runtime_error("yosys not found at " + yosys);
  const CellLibrary lib = CellLibrary::load(liberty_path(opt));
  const BlockMap& map = BlockMap::standard();
  WorkDir work(opt);

  // The configuration package and the design's sources.
  const std::string cfg_pkg = work.path + "/" + cfg.name + "_cfg_pkg.sv";
  write_file(cfg_pkg, rtl::generate_cfg_pkg(cfg));
  Job main;
  main.top = "flycol_top";
  main.sources = {rtl_package(), cfg_pkg};
  for (const auto& s : rtl_sources())
    (is_one_of(s, kMacroFiles, std::size(kMacroFiles)) ? main.macros : main.sources).push_back(s);
  double yosys_s = 0;
  const Netlist nl = run_job(main, "design", work.path, opt, &yosys_s);
  Analysis an = analyze(nl, lib, map);

  SynthReport r;
  r.config_name = cfg.name;
  r.config_source = cfg.source;
  r.yosys_version = yosys_version(yosys);
  r.library = lib.name();
  r.pe_instances = an.instances_of("pe");
  r.sram_nand2_per_bit = opt.sram_nand2_per_bit;

  // The PE variants: reserve registers, zero gating and operand isolation measured as differences.
  if (opt.variants && r.pe_instances > 0) {
    Job pe;
    pe.top = "pe";
    pe.flatten = true;
    pe.sources = {rtl_package(), cfg_pkg, find_source("pe.sv")};
    for (const char* f : kPeArithFiles) pe.macros.push_back(find_source(f));
    const Figures configured = own_figures(run_job(pe, "pe", work.path, opt, &yosys_s).top(), lib);
    const int own = map.part_index(map.module_part("pe", "array", "pe_array/array_edge"));
    // The PE synthesized with another configuration package (one key switched off).
    const auto pe_twin = [&](const Config& twin, const std::string& name) {
      const std::string pkg = work.path + "/" + name + "_cfg_pkg.sv";
      write_file(pkg, rtl::generate_cfg_pkg(twin));
      Job j = pe;
      j.sources[1] = pkg;
      return own_figures(run_job(j, name, work.path, opt, &yosys_s).top(), lib);
    };
    for (const VariantRule& v : map.variant_rules()) {
      Figures without = configured;
      if (v.variant == "no_reserve") {
        Job j = pe;
        j.top = "pe_no_reserve";
        j.sources.push_back(hw("synth/pe_no_reserve.sv"));
        without = own_figures(run_job(j, "pe_no_reserve", work.path, opt, &yosys_s).top(), lib);
      } else if (v.variant == "no_zero_gating") {
        if (cfg.zero_gating) {
          Config ungated = cfg;
          ungated.zero_gating = false;
          without = pe_twin(ungated, "pe_ungated");
        }
      } else if (v.variant == "no_operand_isolation") {
        if (cfg.operand_isolation) {
          Config plain = cfg;
          plain.operand_isolation = false;
          without = pe_twin(plain, "pe_no_isolation");
        }
      } else {
        throw std::logic_error("block map: unknown PE variant " + v.variant);
      }
      Figures diff = configured;
      diff -= without;
      if (diff.area < 0) diff = Figures{};
      const Figures all = diff.scaled(double(r.pe_instances));
      an.parts[std::size_t(map.part_index(v.part))] += all;
      an.parts[std::size_t(own)] -= all;
    }
  }

  // Planned blocks (r.planned): none today. The pooling unit (issue 18) was one until it joined
  // flycol_top; a block built and tested alone but not yet instantiated would be synthesized here,
  // flattened, and reported beside the logic total.

  for (const auto& bi : map.blocks()) {
    BlockReport b;
    b.id = bi.id;
    b.title = bi.title;
    for (std::size_t p = 0; p < map.parts().size(); ++p) {
      const PartInfo& pi = map.parts()[p];
      if (BlockMap::block_of(pi.id) != bi.id) continue;
      b.parts.push_back({pi.id, pi.title, pi.note, an.parts[p], an.part_paths[p]});
      b.figures += an.parts[p];
      if (an.part_paths[p].depth > b.path.depth) b.path = an.part_paths[p];
    }
    r.blocks.push_back(b);
  }
  r.critical = an.critical;
  r.loop_cells = an.loop_cells;
  r.instances = an.instances;
  for (const auto& m : an.macros) r.instances.push_back({m.path, m.module, ""});  // part "": a macro

  // SRAM macros: the banks' shapes are the configuration's.
  const std::pair<const char*, const SramConfig*> kinds[] = {
      {"ifmap", &cfg.ifmap}, {"weights", &cfg.weights}, {"psums", &cfg.psums}};
  const char* inst_names[] = {"u_ifmap", "u_weight", "u_psum"};
  for (int k = 0; k < 3; ++k) {
    SramReport s;
    s.name = kinds[k].first;
    s.words = std::uint64_t(kinds[k].second->words());
    s.word_bits = std::uint64_t(kinds[k].second->word_bits);
    for (const auto& m : an.macros) {
      const std::string leaf = m.path.substr(m.path.rfind('.') == std::string::npos ? 0 : m.path.rfind('.') + 1);
      s.macros += leaf == inst_names[k];
    }
    r.srams.push_back(s);
  }
  r.yosys_seconds = yosys_s;
  r.cache_key = synth_cache_key(cfg, opt);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string default_cache_dir() {
  const char* env = std::getenv("FLYCOL_SYNTH_CACHE");
  if (env && *env) return env;
  return std::string(FLYCOL_BINARY_DIR) + "/synth-cache";
}

SynthReport synthesize_cached(const Config& cfg, const std::string& cache_dir, bool* ran, const SynthOptions& opt,
                              const std::function<void(const std::string&)>& note) {
  const std::string key = synth_cache_key(cfg, opt);
  const std::string path = (fs::path(cache_dir) / (cfg.name + "-" + key + ".json")).string();
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    try {
      SynthReport r = SynthReport::from_json_text(read_text_file(path), path);
      if (r.cache_key == key) {
        if (ran) *ran = false;
        return r;
      }
    } catch (const InputError&) {
      // A damaged cache entry is rebuilt below.
    }
  }
  if (note)
    note(fmt::format("synthesizing configuration {} for the power proxy (once; cached in {})", cfg.name, cache_dir));
  SynthReport r = synthesize(cfg, opt);
  write_file_atomic(path, r.to_json(true).dump());
  if (ran) *ran = true;
  return r;
}

}  // namespace flycol::synth
