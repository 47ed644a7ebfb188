#include "store/comparator.h"

namespace store {

class BytewiseComparator : public Comparator {
 public:
  int Compare(int a, int b) const override { return a - b; }
};

}  // namespace store
