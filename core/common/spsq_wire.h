// The whole SPSQ wire layer in one include: constants, errors, binding,
// layout, descriptor bytes, counters, the arena rule and the clock type.
#ifndef SPSQ_COMMON_SPSQ_WIRE_H_
#define SPSQ_COMMON_SPSQ_WIRE_H_

#include "common/spsq_arena.h"
#include "common/spsq_binding.h"
#include "common/spsq_clock.h"
#include "common/spsq_constants.h"
#include "common/spsq_counter.h"
#include "common/spsq_descriptor.h"
#include "common/spsq_error.h"
#include "common/spsq_layout.h"

#endif  // SPSQ_COMMON_SPSQ_WIRE_H_
