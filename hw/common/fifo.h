// FIFO core (docs/microarchitecture.md, section 6): fixed capacity, run-time depth, push and pop
// in the same cycle, full/empty from the registered count. A cycle's evaluation sets the push/pop
// requests (setting again overwrites, so an evaluation may be repeated, as SystemC delta cycles
// do); tick() checks the protocol and applies them, like the RTL's always_ff.
#pragma once

#include "hw/common/protocol_error.h"

namespace flycol::hw {

template <class T, int Capacity>
class Fifo {
public:
  explicit Fifo(const char* name = "fifo", int depth = Capacity) : name_(name) { configure(depth); }

  void configure(int depth) {
    if (depth < 1 || depth > Capacity) protocol_error(name_, "depth out of range");
    depth_ = depth;
    reset();
  }
  void reset() {
    head_ = count_ = 0;
    push_req_ = pop_req_ = false;
  }

  int depth() const { return depth_; }
  int count() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool full() const { return count_ == depth_; }
  const T& front() const { return at(0); }
  const T& at(int i) const {
    if (i < 0 || i >= count_) protocol_error(name_, "read past the valid entries");
    return buf_[(head_ + i) % depth_];
  }

  // Requests for this cycle. The pushing block and the popping block each set their own request
  // (again and again if they are evaluated again); tick() applies and clears both.
  void set_push(bool en, const T& v = T{}) {
    push_req_ = en;
    if (en) push_val_ = v;
  }
  void set_pop(bool en) { pop_req_ = en; }
  void push(const T& v) { set_push(true, v); }
  void pop() { set_pop(true); }
  bool pushing() const { return push_req_; }
  bool popping() const { return pop_req_; }

  void tick() {
    if (push_req_ && full()) protocol_error(name_, "push while full");
    if (pop_req_ && empty()) protocol_error(name_, "pop while empty");
    if (pop_req_) {
      head_ = (head_ + 1) % depth_;
      --count_;
    }
    if (push_req_) {
      buf_[(head_ + count_) % depth_] = push_val_;
      ++count_;
    }
    push_req_ = pop_req_ = false;
  }

private:
  const char* name_;
  T buf_[Capacity]{};
  T push_val_{};
  int depth_ = Capacity, head_ = 0, count_ = 0;
  bool push_req_ = false, pop_req_ = false;
};

}  // namespace flycol::hw
