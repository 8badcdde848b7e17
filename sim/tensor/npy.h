// NumPy .npy files (format versions 1.0, 2.0, 3.0) in and out of flycol::Tensor: the boundary
// format of `flycol run --ifmap/--weights/--bias/--ofmap/--expect` and of the network tools.
// A strict reader of our own, not xtensor's xnpy: xnpy has no float16, accepts malformed headers
// (it searches the header text for the keys instead of parsing it) and reports errors as bare
// exceptions without the file name; here every bad file is an InputError saying what is allowed.
#pragma once

#include <string>

#include "sim/tensor/tensor.h"

namespace flycol {

// The element types (NumPy descr) read_npy accepts, for messages and docs:
// "<f2 <f4 <f8 |i1 <i1 <i2 <i4".
const char* npy_allowed_descrs();

// Reads a whole .npy file. Accepted: magic "\x93NUMPY", version 1.0 (2-byte header length),
// 2.0 or 3.0 (4-byte length; 3.0's header is utf-8, which for the accepted headers is ASCII);
// a header that is a Python dict literal with exactly the keys 'descr', 'fortran_order' and
// 'shape' (any order, optional trailing comma), 'fortran_order': False, a shape tuple of
// non-negative integers (a 1-tuple needs its comma, as in Python), followed by spaces and one
// '\n' so that the prefix is a multiple of 16 bytes (NumPy pads to 64 since 1.14, 16 before);
// little-endian data of exactly product(shape) elements, nothing after it.
// Anything else: InputError(path, "", what is wrong and what is allowed).
Tensor read_npy(const std::string& path);

// The bytes numpy.save (current NumPy: 2.x and the late 1.x releases that leave spare header space) writes for t: version 1.0, or 2.0 when
// the header does not fit 1.0's 16-bit length; the sorted-key dict header, the spare spaces
// NumPy leaves for growing the first axis, padding to 64 bytes with spaces and '\n'.
// Every value must be exactly representable in t.dtype (integers in range, floats exact in
// float16/float32; NaN and +-Inf allowed for floats): converting is the caller's explicit job,
// so an inexact value is a std::logic_error, not rounded here.
std::string npy_bytes(const Tensor& t);

// Writes npy_bytes(t) to path atomically (write_file_atomic): the file appears whole or not at all.
void write_npy(const std::string& path, const Tensor& t);

// Parses .npy content held in memory; `source` names it in messages (read_npy passes the path).
Tensor parse_npy(const std::string& bytes, const std::string& source);

}  // namespace flycol
