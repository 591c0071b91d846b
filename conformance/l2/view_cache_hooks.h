// Cache hooks handed to an implementation's RegionInstanceView, for the typed
// tests that observe its flushes (a device build's view takes them; the
// reference's is RegionCacheHooks, through its four-argument constructor).
// The hooks type is the implementation's own: a probe converts to any struct
// with `flush` and `invalidate` members taking (const void*, uint64_t).
#ifndef SPSQ_CONFORMANCE_L2_VIEW_CACHE_HOOKS_H_
#define SPSQ_CONFORMANCE_L2_VIEW_CACHE_HOOKS_H_

#include <cstdint>
#include <type_traits>
#include <utility>

namespace spsq_conf {

using CacheHookFn = void (*)(const void* addr, uint64_t nbytes);

template <CacheHookFn kFlush, CacheHookFn kInvalidate>
struct CacheHookProbe {
  template <class T, class = decltype(std::declval<T&>().flush = kFlush),
            class = decltype(std::declval<T&>().invalidate = kInvalidate)>
  operator T() const {  // NOLINT: implicit by design
    T t{};
    t.flush = kFlush;
    t.invalidate = kInvalidate;
    return t;
  }
};

// Whether V is constructible as V(Span, Span, Clock, hooks).
template <class V, class Span, class Clock, class Probe, class = void>
struct TakesCacheHooks : std::false_type {};
template <class V, class Span, class Clock, class Probe>
struct TakesCacheHooks<V, Span, Clock, Probe,
                       std::void_t<decltype(V(std::declval<Span>(), std::declval<Span>(),
                                              std::declval<Clock>(), Probe{}))>>
    : std::true_type {};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L2_VIEW_CACHE_HOOKS_H_
