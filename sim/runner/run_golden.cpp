// `flycol run --model golden`: the golden convolution in the configured arithmetic, checked
// against a float64 reference.
#include "sim/runner/run_golden.h"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "sim/golden/conv.h"
#include "sim/runner/run_common.h"
#include "sim/workload/workload.h"

namespace flycol {
namespace {

struct ErrorStats {
  double max_abs_err = 0, mean_abs_err = 0, max_abs_ref = 0;
  std::int64_t non_finite = 0;  // outputs that overflowed or became NaN in the PE arithmetic
};

ErrorStats compare_to_f64(const std::vector<AccBits>& out, const std::vector<double>& ref, Arithmetic a) {
  ErrorStats s;
  double sum = 0;
  std::int64_t counted = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double v = acc_value(out[i], a);
    // Operands with Inf or NaN (--operands specials) make float64 references Inf or NaN: those
    // outputs have no error to measure (a NaN would poison the mean).
    if (std::isfinite(ref[i])) s.max_abs_ref = std::max(s.max_abs_ref, std::fabs(ref[i]));
    if (!std::isfinite(v)) { ++s.non_finite; continue; }
    if (!std::isfinite(ref[i])) continue;
    const double e = std::fabs(v - ref[i]);
    s.max_abs_err = std::max(s.max_abs_err, e);
    sum += e;
    ++counted;
  }
  s.mean_abs_err = counted ? sum / double(counted) : 0.0;
  return s;
}

}  // namespace

RunOutcome run_golden(const RunRequest& req) {
  const Layer& L = req.layer;
  const Arithmetic arith = req.config.arithmetic;
  const ConvOperands ops = request_operands(req);

  const auto t0 = std::chrono::steady_clock::now();
  golden::ConvOptions opt;
  opt.zero_gating = req.config.zero_gating;
  const std::vector<AccBits> out = golden::conv(ops, opt);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<double> ref = golden::conv_f64(ops);
  const ErrorStats err = compare_to_f64(out, ref, arith);
  const std::uint64_t sum = checksum(out, arith);
  const char* aname = arithmetic_info(arith).name;

  RunOutcome r;
  Json& j = r.report;
  j = Json::object();
  j["model"] = "golden";
  j["layer"] = layer_json(L);
  j["config"] = config_json(req.config);
  j["seed"] = seed_json(req);
  j["operands"] = operands_name(req);
  j["macs"] = L.macs();
  Json& o = j["output"];
  o["shape"] = Json::Array{L.n, L.k, L.ho(), L.wo()};
  o["checksum"] = fmt::format("0x{:016x}", sum);
  Json& c = j["check"];
  c["reference"] = "float64";
  c["max_abs_err"] = err.max_abs_err;
  c["mean_abs_err"] = err.mean_abs_err;
  c["max_abs_ref"] = err.max_abs_ref;
  c["non_finite"] = err.non_finite;
  j["golden_seconds"] = seconds;
  j["golden_macs_per_s"] = seconds > 0 ? double(L.macs()) / seconds : 0.0;

  r.text = fmt::format(
      "flycol run: model golden ({} arithmetic), config {} ({}), seed {}\n"
      "  layer        {}\n"
      "  output       {}x{}x{}x{}\n"
      "  MACs         {}\n"
      "  checksum     0x{:016x}\n"
      "  {} vs f64  max |err| {:.3g}, mean |err| {:.3g} (max |ref| {:.3g}){}\n"
      "  golden time  {:.3f} s ({:.1f} M MAC/s)\n",
      aname, req.config.name, req.config.source, seed_text(req), L.spec(), L.n, L.k, L.ho(), L.wo(),
      L.macs(), sum, aname, err.max_abs_err, err.mean_abs_err, err.max_abs_ref,
      err.non_finite ? fmt::format(", {} non-finite outputs", err.non_finite) : std::string(),
      seconds, seconds > 0 ? double(L.macs()) / seconds / 1e6 : 0.0);
  r.output = out;
  return r;
}

}  // namespace flycol
