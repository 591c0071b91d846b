// The suite's tests include the model by this path; it lives in
// conformance/model, where the shipped tools can use it without the harness.
#ifndef SPSQ_CONFORMANCE_HARNESS_WIRE_MODEL_H_
#define SPSQ_CONFORMANCE_HARNESS_WIRE_MODEL_H_

#include "conformance/model/wire_model.h"

#endif  // SPSQ_CONFORMANCE_HARNESS_WIRE_MODEL_H_
