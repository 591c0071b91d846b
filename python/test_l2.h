// C++ L2 orchestration tasks the Python tests launch by name. Each decodes
// the ten binding scalars at TaskArgs offset 0, exactly as the spec's L2
// snippet does, and touches nothing but the RegionInstance memory the
// scalars name, so it runs the same on a worker thread or in a forked child.
#ifndef SPSQ_PYTHON_TEST_L2_H_
#define SPSQ_PYTHON_TEST_L2_H_

#include <cstdint>

#include "runtime/chip_worker.h"
#include "runtime/task_args.h"

namespace spsq_python {

// How long an L2 task waits for one input or output slot before giving up.
inline constexpr uint64_t kTestL2WaitNs = 30ull * 1000 * 1000 * 1000;

// Persistent: answers each DATA input with a DATA output of the same bytes
// (zero-byte in, zero-byte out) and returns once STOP is drained. Optional
// gate: scalars 10 and 11 are the counter base and size of a primitive
// region; the task starts only after counter slot 0 turns nonzero.
void echo_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig& cfg);

// Persistent: answers each DATA input with an application ERROR message
// carrying the input bytes; returns once STOP is drained.
void error_emitter_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig& cfg);

// Acquires one input, then releases a forged handle (seq + 1): the L2
// endpoint poisons itself with OWNERSHIP and raises peer_abort_flag, which
// L3 reports as a remote abort. Returns right after.
void abort_raiser_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig& cfg);

// Publishes DATA outputs with try_reserve until the output ring or arena is
// full, then returns without waiting for input. Output k (0-based) has
// scalar 10 bytes (default 8), byte i being (7 * k + i) mod 256.
void fill_output_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig& cfg);

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_TEST_L2_H_
