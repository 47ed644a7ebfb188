#include "store/status.h"

namespace store {

std::string Status::ToString() const {
  return ok() ? "OK" : "error";
}

}  // namespace store
