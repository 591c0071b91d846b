#include "python/l2_registry.h"

#include <iterator>

#include "examples/workers/l3/worker_chip_message_queue/l2_orchestration.h"
#include "python/test_l2.h"

namespace spsq_python {
namespace {

const RegisteredL2 kRegistry[] = {
    {{"echo", &echo_l2},
     "DATA in -> DATA out with the same bytes until STOP; optional gate region at scalars 10-11"},
    {{"error_emitter", &error_emitter_l2},
     "DATA in -> application ERROR out carrying the input bytes, until STOP"},
    {{"abort_raiser", &abort_raiser_l2},
     "acquires one input, releases a forged handle: L2 poisons and raises its abort flag"},
    {worker_chip_message_queue::kWorkerChipMessageQueueL2,
     "the shipped example's persistent L2 (spec section 5): holds, reorders and combines "
     "64-byte-header + 128x128 float32 tile messages; scalar 10 = flags"},
    {{"fill_output", &fill_output_l2},
     "publishes outputs until the output ring or arena is full, then returns"},
};

}  // namespace

const RegisteredL2* registered_l2_begin() { return std::begin(kRegistry); }
const RegisteredL2* registered_l2_end() { return std::end(kRegistry); }

const RegisteredL2* find_registered_l2(const std::string& name) {
  for (const RegisteredL2* r = registered_l2_begin(); r != registered_l2_end(); ++r) {
    if (name == r->handle.name) return r;
  }
  return nullptr;
}

}  // namespace spsq_python
