#pragma once

namespace store {
namespace util {

inline int clamp(int x) { return x < 0 ? 0 : x; }

}  // namespace util
}  // namespace store
