// Static sensitivity to an input port or a vector of them, for the shared bases that register a
// block's processes from a list of its inputs (ScCoreModule, the RTL adapters); RunIn adds its own.
#pragma once

#include <systemc>

namespace flycol::hw {

template <class T>
void sense(sc_core::sc_sensitive& s, sc_core::sc_in<T>& in) {
  s << in;
}

template <class T>
void sense(sc_core::sc_sensitive& s, sc_core::sc_vector<sc_core::sc_in<T>>& ins) {
  for (auto& in : ins) s << in;
}

}  // namespace flycol::hw
