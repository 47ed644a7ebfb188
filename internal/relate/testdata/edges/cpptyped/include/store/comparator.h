#pragma once

namespace store {

// Comparator orders keys; every implementation overrides Compare.
class Comparator {
 public:
  virtual ~Comparator();
  virtual int Compare(int a, int b) const = 0;
};

}  // namespace store
