#include "python/test_l2.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"
#include "runtime/l2_binding.h"

namespace spsq_python {
namespace {

using spsc_queue::SpscQueueInputHandle;
using spsc_queue::SpscQueueOpcode;
using spsc_queue::SpscQueueOutputReservation;
using Endpoint = spsc_queue::SpscQueueEndpoint<RegionInstanceView>;

constexpr int32_t kGateScalar = 10;
constexpr int32_t kFillBytesScalar = 10;

void log_failure(const Endpoint& queue, const char* task, const char* what) {
  char line[400];
  spsc_queue::format_error(queue.error(), line, sizeof(line));
  std::fprintf(stderr, "L2 %s: %s failed: %s\n", task, what, line);
  std::fflush(stderr);  // the task may be a forked child
}

// Decodes the binding and runs `body` on a live endpoint; a bad binding or a
// refused construction ends the task, as the spec's L2 snippet does.
template <class Body>
void with_endpoint(const spsq_runtime::TaskArgs& args, const char* task, Body&& body) {
  const spsc_queue::MonotonicClock clock{&RegionInstanceView::steady_now_ns};
  spsc_queue::SpscQueueEndpointBinding binding{};
  if (!spsq_runtime::decode_task_binding(args, &binding)) {
    std::fprintf(stderr, "L2 %s: the ten binding scalars do not decode\n", task);
    return;
  }
  Endpoint queue(binding, spsq_runtime::binding_view(binding), clock);
  if (!queue.live()) {
    log_failure(queue, task, "endpoint construction");
    return;
  }
  body(queue);
}

// Answers each DATA input with one output of `opcode` and the same bytes,
// until STOP has been drained.
void answer_until_stop(Endpoint& queue, SpscQueueOpcode opcode, const char* task) {
  while (!queue.input().drained()) {
    SpscQueueInputHandle h{};
    if (!queue.input().peek(kTestL2WaitNs, h)) return log_failure(queue, task, "input peek");
    if (h.opcode == SpscQueueOpcode::DATA) {
      SpscQueueOutputReservation r{};
      if (!queue.output().reserve(h.payload_nbytes, kTestL2WaitNs, r)) {
        return log_failure(queue, task, "output reserve");
      }
      if (h.payload_nbytes != 0) std::memcpy(spsc_queue::payload_data(r), spsc_queue::payload_data(h), h.payload_nbytes);
      if (!queue.output().publish(r, opcode)) return log_failure(queue, task, "output publish");
    }
    if (!queue.input().release(h)) return log_failure(queue, task, "input release");
  }
}

}  // namespace

void echo_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig&) {
  if (args.scalar_count() > static_cast<size_t>(kGateScalar + 1)) {
    // The gate lives in a primitive region: only its counter part is used.
    RegionInstanceView gate(RegionPartLocalSpan{},
                            RegionPartLocalSpan{args.scalar(kGateScalar),
                                                args.scalar(kGateScalar + 1)});
    int32_t observed = 0;
    if (!gate.counter().wait(0, 0, RegionWaitCmp::NE, kTestL2WaitNs, observed)) {
      std::fprintf(stderr, "L2 echo: gate did not open: %s\n",
                   gate.failed() ? gate.error().message : "timed out");
      return;
    }
  }
  with_endpoint(args, "echo", [](Endpoint& queue) {
    answer_until_stop(queue, SpscQueueOpcode::DATA, "echo");
  });
}

void error_emitter_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig&) {
  with_endpoint(args, "error_emitter", [](Endpoint& queue) {
    answer_until_stop(queue, SpscQueueOpcode::ERROR, "error_emitter");
  });
}

void abort_raiser_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig&) {
  with_endpoint(args, "abort_raiser", [](Endpoint& queue) {
    SpscQueueInputHandle h{};
    if (!queue.input().peek(kTestL2WaitNs, h)) {
      return log_failure(queue, "abort_raiser", "input peek");
    }
    SpscQueueInputHandle forged = h;
    forged.seq += 1;
    // Expected to fail: the endpoint poisons and raises its abort flag.
    if (queue.input().release(forged)) {
      std::fprintf(stderr, "L2 abort_raiser: a forged handle was accepted\n");
    }
  });
}

void fill_output_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig&) {
  const uint64_t nbytes =
      args.scalar_count() > static_cast<size_t>(kFillBytesScalar) ? args.scalar(kFillBytesScalar)
                                                                  : 8;
  with_endpoint(args, "fill_output", [nbytes](Endpoint& queue) {
    for (uint64_t k = 0;; ++k) {
      SpscQueueOutputReservation r{};
      if (!queue.output().try_reserve(nbytes, r)) {
        if (!queue.live()) log_failure(queue, "fill_output", "output try_reserve");
        return;  // full: ordinary no-progress ends the task
      }
      for (uint64_t i = 0; i < nbytes; ++i) spsc_queue::payload_data(r)[i] = static_cast<uint8_t>(7 * k + i);
      if (!queue.output().publish(r, SpscQueueOpcode::DATA)) {
        return log_failure(queue, "fill_output", "output publish");
      }
    }
  });
}

}  // namespace spsq_python
