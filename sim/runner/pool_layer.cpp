// The conversions between golden::PoolLayer and PoolShape, and the layer's report fields.
#include "sim/runner/pool_layer.h"

namespace flycol {

PoolShape pool_shape(const golden::PoolLayer& l) {
  PoolShape s;
  s.op = l.op == golden::PoolOp::max ? hw::PoolOp::Max : hw::PoolOp::Average;
  s.n = l.n, s.c = l.c, s.h = l.h, s.w = l.w;
  s.ky = l.ky, s.kx = l.kx, s.sy = l.sy, s.sx = l.sx, s.dy = l.dy, s.dx = l.dx;
  s.pt = l.pt, s.pb = l.pb, s.pl = l.pl, s.pr = l.pr;
  s.ceil_mode = l.ceil_mode;
  s.count_include_pad = l.count_include_pad;
  return s;
}

golden::PoolLayer golden_pool_layer(const PoolShape& s) {
  golden::PoolLayer l;
  l.op = s.op == hw::PoolOp::Max ? golden::PoolOp::max : golden::PoolOp::avg;
  l.n = s.n, l.c = s.c, l.h = s.h, l.w = s.w;
  l.ky = s.ky, l.kx = s.kx, l.sy = s.sy, l.sx = s.sx, l.dy = s.dy, l.dx = s.dx;
  l.pt = s.pt, l.pb = s.pb, l.pl = s.pl, l.pr = s.pr;
  l.ceil_mode = s.ceil_mode;
  l.count_include_pad = s.count_include_pad;
  return l;
}

void write_pool_layer_json(Json& j, const golden::PoolLayer& l) {
  j["N"] = l.n, j["C"] = l.c, j["H"] = l.h, j["W"] = l.w;
  j["ky"] = l.ky, j["kx"] = l.kx, j["sy"] = l.sy, j["sx"] = l.sx, j["dy"] = l.dy, j["dx"] = l.dx;
  j["pt"] = l.pt, j["pb"] = l.pb, j["pl"] = l.pl, j["pr"] = l.pr;
  j["ceil_mode"] = l.ceil_mode;
  j["count_include_pad"] = l.count_include_pad;
  j["Ho"] = l.ho(), j["Wo"] = l.wo();
}

}  // namespace flycol
