#pragma once
#include <string>

namespace store {

class Status {
 public:
  bool ok() const { return code_ == 0; }
  std::string ToString() const;

 private:
  int code_ = 0;
};

}  // namespace store
