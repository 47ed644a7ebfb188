// A C++ header: its calls are C++ calls.
#pragma once

class Counter {
 public:
  int next() { return bump(1); }
  int bump(int by) {
    n_ += by;
    return n_;
  }

 private:
  int n_ = 0;
};
