// The SPSC queue Region Template, L2 side: the wire vocabulary (constants,
// enums, binding, layout, descriptor codec, counters) and the endpoint
// SpscQueueEndpoint<RegionView, MaxInflight>, all in namespace spsc_queue.
//
// Written from l3-l2-message-queue.md and wire-contract.md only; see
// ../../README.md for the reading chosen at each open point.
#ifndef SPSQ_INDEPENDENT_COMMON_REGION_TEMPLATE_H_
#define SPSQ_INDEPENDENT_COMMON_REGION_TEMPLATE_H_

#include "common/spsq_wire.h"
#include "common/spsq_endpoint.h"

#endif  // SPSQ_INDEPENDENT_COMMON_REGION_TEMPLATE_H_
