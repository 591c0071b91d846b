// Never built into a binary: spsq_mi0_probe (mi0_probe.bzl) compiles it with
// -fsyntax-only against a certification's config, with SPSQ_MI0_PROBE_N 0
// and, when that fails, 1 (which must compile). It instantiates what the certification's adapter
// (conformance/l2/l2_adapter.cc) instantiates for MaxInflight 0, so the adapter builds
// window 0 exactly when this compiles.
#include "conformance/l2/l2_adapter.h"

namespace spsq_conf {

template class l2_typed::ConstructedOnly<SPSQ_CERT_ENDPOINT<HarnessView, SPSQ_MI0_PROBE_N>>;

}  // namespace spsq_conf
