#pragma once

namespace store {
namespace util {

inline int clamp(int x) { return x < 0 ? 0 : x; }

namespace detail {
template <int N>
inline int widen(int x) { return x * N; }
}  // namespace detail

namespace stdx {
inline int narrow(int x) { return x & 0xff; }
}  // namespace stdx

}  // namespace util
}  // namespace store
