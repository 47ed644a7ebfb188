#include <string>
#include <vector>

#include "store/comparator.h"
#include "store/status.h"
#include "store/util.h"

namespace store {

class Table {
 public:
  int size() const { return n_; }

  std::string Describe(const Status& s, const Comparator* cmp) {
    std::vector<int> rows;
    rows.push_back(util::clamp(cmp->Compare(1, 2)));
    rows.push_back(util::detail::widen<2>(1));
    rows.push_back(util::stdx::narrow(3));
    std::string out = s.ToString();
    return out.size() > 0 ? out : "";
  }

 private:
  int n_ = 0;
};

}  // namespace store
