// The endpoint's own RegionInstanceView, as the certification's contract
// headers declare it (aicpu/region_instance_view.h: the view the spec's L2
// snippet builds), for the tests that judge it directly over region memory
// the harness owns (own_view_test.cc; own_view_order_test.cc under
// ThreadSanitizer).
//
// Include it after every other header: its using-directive would make an
// unqualified RegionInstanceView ambiguous in code parsed after it.
//
// An endpoint may ship no such view (its headers declare none): the names
// below then resolve to stand-ins, kShipsOwnView is false, and every test of
// the view skips as not applicable. The lookups are qualified (::Name): they
// find the implementation's global declaration first, and the stand-ins only
// through the using-directive when there is none.
#ifndef SPSQ_CONFORMANCE_L2_OWN_VIEW_H_
#define SPSQ_CONFORMANCE_L2_OWN_VIEW_H_

#include "spsq_cert/config.h"  // first: the endpoint's contract headers

#include <cstdint>
#include <type_traits>

#include "testkit/region_memory.h"
#include "gtest/gtest.h"

namespace spsq_own_view_absent {
struct Absent {};
using RegionInstanceView = Absent;
using RegionPartLocalSpan = Absent;
using RegionNotifyOp = Absent;
using RegionWaitCmp = Absent;
}  // namespace spsq_own_view_absent

using namespace spsq_own_view_absent;  // NOLINT(google-build-using-namespace)

namespace spsq_conf {

// The implementation's names (or the stand-ins).
struct OwnViewNames {
  using View = ::RegionInstanceView;
  using Span = ::RegionPartLocalSpan;
  using NotifyOp = ::RegionNotifyOp;
  using WaitCmp = ::RegionWaitCmp;
};

inline constexpr bool kShipsOwnView =
    !std::is_same_v<OwnViewNames::View, spsq_own_view_absent::Absent> &&
    !std::is_same_v<OwnViewNames::Span, spsq_own_view_absent::Absent> &&
    !std::is_same_v<OwnViewNames::NotifyOp, spsq_own_view_absent::Absent> &&
    !std::is_same_v<OwnViewNames::WaitCmp, spsq_own_view_absent::Absent>;

inline constexpr char kNoOwnView[] =
    "not applicable: the endpoint's contract headers declare no RegionInstanceView "
    "(with RegionPartLocalSpan, RegionNotifyOp, RegionWaitCmp): there is no view of its own "
    "to judge";

// A span of `bytes` at `base`, in the implementation's span type.
template <class Span>
Span OwnSpan(const uint8_t* base, uint64_t bytes) {
  Span s{};
  s.base = static_cast<decltype(s.base)>(reinterpret_cast<uintptr_t>(base));
  s.logical_bytes = bytes;
  return s;
}

// The view the spec's snippet builds, over both parts of `m`.
template <class N>
typename N::View OwnViewOver(const RegionMemory& m) {
  using Span = typename N::Span;
  return typename N::View(OwnSpan<Span>(m.payload(), m.payload_bytes()),
                          OwnSpan<Span>(m.counter(), m.counter_bytes()));
}

// Runs Check::run<OwnViewNames>() when the endpoint ships a view, skips as not
// applicable otherwise (inside a template, so a missing view never compiles
// the check).
template <class Check>
void JudgeOwnView() {
  if constexpr (kShipsOwnView) {
    Check::template run<OwnViewNames>();
  } else {
    GTEST_SKIP() << kNoOwnView;
  }
}

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L2_OWN_VIEW_H_
