// What L2 orchestration code includes to bind the SPSC template: the wire
// layer (binding decode, layout, constants) and SpscQueueEndpoint.
#ifndef SPSQ_COMMON_REGION_TEMPLATE_H_
#define SPSQ_COMMON_REGION_TEMPLATE_H_

#include "common/spsc_queue_endpoint.h"
#include "common/spsq_wire.h"

#endif  // SPSQ_COMMON_REGION_TEMPLATE_H_
