// The differential harness's second target when a certification builds it:
// SPSQ_CERT_ENDPOINT (the endpoint under test, from the certification's
// "spsq_cert/config.h") at MaxInflight 1 or 4, driven by diff_endpoint.h.
//
// This file is linked into a shared object of its own whose only exported
// name is spsq_diff_make_second_target (fuzz/diff_second.lds). An endpoint
// under test uses the same global names as the reference the harness links
// (spsc_queue::..., RegionPartLocalSpan, ...); in one executable the two
// would be one definition each, silently merged. Inside the shared object every
// name binds locally, so the two copies never meet.
#include "spsq_cert/config.h"  // first: the endpoint's own headers and names

#include <cstdint>

#include "fuzz/diff_endpoint.h"
#include "fuzz/diff_target.h"

// The shared object's one exported name (C linkage: the version script names
// it, and nothing about it depends on either side's C++ names).
extern "C" spsq_fuzz::DiffTarget* spsq_diff_make_second_target(const spsq_fuzz::DiffWorld* w,
                                                                uint64_t max_inflight) {
  using spsq_fuzz::FuzzView;
  return spsq_fuzz::make_endpoint_target<SPSQ_CERT_ENDPOINT<FuzzView, 1>,
                                         SPSQ_CERT_ENDPOINT<FuzzView, 4>>(*w, max_inflight,
                                                                          "endpoint under test");
}
