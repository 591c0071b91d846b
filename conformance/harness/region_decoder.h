// The suite's tests include the model by this path; it lives in
// conformance/model, where the shipped tools can use it without the harness.
#ifndef SPSQ_CONFORMANCE_HARNESS_REGION_DECODER_H_
#define SPSQ_CONFORMANCE_HARNESS_REGION_DECODER_H_

#include "conformance/model/region_decoder.h"

#endif  // SPSQ_CONFORMANCE_HARNESS_REGION_DECODER_H_
