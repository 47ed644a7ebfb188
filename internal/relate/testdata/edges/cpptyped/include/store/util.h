#pragma once

namespace store {
namespace util {

inline int clamp(int x) { return x < 0 ? 0 : x; }

namespace detail {
template <int N>
inline int widen(int x) { return x * N; }
}  // namespace detail

}  // namespace util
}  // namespace store
