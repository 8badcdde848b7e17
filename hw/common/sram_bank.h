// Single-port SRAM bank core (docs/microarchitecture.md, section 6): one read or one write per
// cycle, read data valid from the next cycle and held until the next read, element write mask,
// read/write counters. Storage is behavioural (an ASIC flow replaces the RTL twin with a macro).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/hw_params.h"
#include "hw/common/protocol_error.h"

namespace flycol::hw {

class SramBank {
public:
  SramBank(std::string name, int depth, int elems_per_word)
      : name_(std::move(name)), depth_(depth), epw_(elems_per_word),
        mem_(std::size_t(depth) * std::size_t(elems_per_word), 0) {
    if (elems_per_word < 1 || elems_per_word > kMaxWordElems) protocol_error(name_, "word width out of range");
  }

  // Who is asking, for conflict checks.
  enum Client { kDma = 0, kCompute = 1, kTestbench = 2 };

  const std::string& name() const { return name_; }
  int depth() const { return depth_; }
  int elems_per_word() const { return epw_; }

  // Requests for this cycle, performed (and cleared) at tick(). A client that is evaluated again
  // in the same cycle replaces its own request; a request from a second client in the same cycle
  // is a port conflict.
  void read(int client, int addr) {
    check_request(client, addr);
    op_ = Op::read;
    addr_ = addr;
  }
  // Writes elements i of `data` where bit i of `mask` is set.
  void write(int client, int addr, const word_elem_t* data, std::uint64_t mask) {
    check_request(client, addr);
    op_ = Op::write;
    addr_ = addr;
    mask_ = mask;
    for (int i = 0; i < epw_; ++i) wdata_[i] = data[i];
  }
  bool busy_this_cycle() const { return op_ != Op::none; }

  // Data of the last read (held).
  const word_elem_t* rdata() const { return rdata_; }

  void tick() {
    if (op_ == Op::read) {
      const word_elem_t* w = &mem_[std::size_t(addr_) * epw_];
      for (int i = 0; i < epw_; ++i) rdata_[i] = w[i];
      ++reads_;
    } else if (op_ == Op::write) {
      word_elem_t* w = &mem_[std::size_t(addr_) * epw_];
      for (int i = 0; i < epw_; ++i)
        if ((mask_ >> i) & 1u) w[i] = wdata_[i];
      ++writes_;
    }
    op_ = Op::none;
  }

  std::uint64_t reads() const { return reads_; }
  std::uint64_t writes() const { return writes_; }

  // Port view, for a block whose SRAM port is signals (the structural top): the request the
  // block's core issued this cycle, dropped once it is on the signals, and the held read data
  // loaded from the real bank's output signal.
  bool pending_read() const { return op_ == Op::read; }
  bool pending_write() const { return op_ == Op::write; }
  int pending_addr() const { return addr_; }
  const word_elem_t* pending_wdata() const { return wdata_; }
  std::uint64_t pending_mask() const { return mask_; }
  void drop_request() { op_ = Op::none; }
  void load_rdata(const word_elem_t* data) {
    for (int i = 0; i < epw_; ++i) rdata_[i] = data[i];
  }

  // Backdoor access for testbenches and debugging (no cycle, no counters).
  word_elem_t peek(int addr, int elem) const { return mem_[std::size_t(addr) * epw_ + std::size_t(elem)]; }
  void poke(int addr, int elem, word_elem_t v) { mem_[std::size_t(addr) * epw_ + std::size_t(elem)] = v; }

private:
  enum class Op { none, read, write };
  void check_request(int client, int addr) {
    if (op_ != Op::none && client != client_)
      protocol_error(name_, "two clients access the single port in one cycle");
    if (addr < 0 || addr >= depth_) protocol_error(name_, "address " + std::to_string(addr) + " out of range");
    client_ = client;
  }

  std::string name_;
  int depth_, epw_;
  std::vector<word_elem_t> mem_;
  word_elem_t rdata_[kMaxWordElems]{};
  word_elem_t wdata_[kMaxWordElems]{};
  Op op_ = Op::none;
  int client_ = -1;
  int addr_ = 0;
  std::uint64_t mask_ = 0;
  std::uint64_t reads_ = 0, writes_ = 0;
};

}  // namespace flycol::hw
