// Never built into a binary: spsq_mi0_probe (mi0_probe.bzl) compiles it with
// -fsyntax-only against a certification's config, with SPSQ_MI0_PROBE_N 1
// (must compile) and 0. It uses the endpoint the way the construction
// rejection check of l2/s1_create_bind_test.cc does, so MaxInflight 0
// compiles here exactly when that check can be compiled.
#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {

template <uint64_t N>
void ProbeConstruction(Queue& q) {
  using Access = EndpointAccess<EndpointT<N>>;
  auto e = q.make_endpoint_from<N>(q.binding());
  static_cast<void>(e->live());
  static_cast<void>(Access::kind(*e));
  static_cast<void>(Access::op(*e));
  static_cast<void>(Access::message(*e));
  static_cast<void>(Access::message_capacity(*e));
}

template void ProbeConstruction<SPSQ_MI0_PROBE_N>(Queue& q);

}  // namespace spsq_conf
