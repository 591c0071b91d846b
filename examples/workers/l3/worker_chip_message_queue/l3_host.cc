#include "examples/workers/l3/worker_chip_message_queue/l3_host.h"

#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "examples/workers/l3/worker_chip_message_queue/l2_orchestration.h"
#include "examples/workers/l3/worker_chip_message_queue/message_format.h"
#include "runtime/orchestrator.h"

namespace worker_chip_message_queue {
namespace {

using spsc_queue::WorkerChipQueueStatus;
using spsq_runtime::ChipCallConfig;
using spsq_runtime::Orchestrator;
using spsq_runtime::OrchestratorOptions;
using spsq_runtime::TaskArgs;

// Generous: L2 runs concurrently and a healthy step takes microseconds.
constexpr auto kTimeout = std::chrono::seconds(30);

class Run {
 public:
  Run(spsq_runtime::ChipWorkerMode mode, bool verbose) : mode_(mode), verbose_(verbose) {}

  ExampleRun go() {
    result_.ok = body();
    return std::move(result_);
  }

 private:
  void log(const char* fmt, ...) const __attribute__((format(printf, 2, 3))) {
    if (!verbose_) return;
    char line[512];
    std::va_list args;
    va_start(args, fmt);
    std::vsnprintf(line, sizeof(line), fmt, args);
    va_end(args);
    // One call per line: the L2 task prints from another thread (or process)
    // at the same time.
    std::printf("L3: %s\n", line);
    std::fflush(stdout);
  }

  bool fail(const char* what, const spsc_queue::SpscQueueError& e) {
    char line[400];
    spsc_queue::format_error(e, line, sizeof(line));
    result_.error = std::string(what) + ": " + line;
    return false;
  }

  bool enqueue(spsc_queue::WorkerChipQueue& q, uint64_t request_id, uint64_t mode, float base) {
    const std::vector<uint8_t> msg = example_input(request_id, mode, base);
    if (q.input().enqueue(msg.data(), msg.size(), kTimeout) != WorkerChipQueueStatus::OK) {
      return fail("enqueue", q.last_error());
    }
    log("enqueued request_id %" PRIu64 " mode %" PRIu64 " (tile base %g, %zu bytes)", request_id,
        mode, static_cast<double>(base), msg.size());
    return true;
  }

  bool dequeue(spsc_queue::WorkerChipQueue& q) {
    // peek / read_into / release, the spec's long form.
    spsc_queue::WorkerChipMessage m{};
    if (q.output().peek(kTimeout, &m) != WorkerChipQueueStatus::OK) {
      return fail("output peek", q.last_error());
    }
    ReceivedOutput out;
    out.seq = m.seq;
    out.opcode = static_cast<uint64_t>(m.opcode);
    out.payload.resize(m.payload_nbytes);
    if (q.output().read_into(m, out.payload.data(), out.payload.size()) !=
            WorkerChipQueueStatus::OK ||
        q.output().release(m) != WorkerChipQueueStatus::OK) {
      return fail("output read/release", q.last_error());
    }
    if (out.payload.size() >= kHeaderBytes) {
      const OutputHeader h = read_output_header(out.payload.data());
      log("dequeued output seq %" PRIu64 " %s: request_id %" PRIu64 ", kind %" PRIu64
          ", aux %" PRIu64 ", tile[0] %g, tile[127] %g",
          out.seq, spsc_queue::opcode_name(out.opcode), h.request_id, h.kind, h.aux,
          out.payload.size() == kMessageBytes ? tile_at(out.payload.data(), 0) : 0.0,
          out.payload.size() == kMessageBytes ? tile_at(out.payload.data(), 127) : 0.0);
    }
    result_.outputs.push_back(std::move(out));
    return true;
  }

  bool body() {
    OrchestratorOptions options;
    options.mode = mode_;
    spsc_queue::SpscQueueError e;
    auto orch = Orchestrator::create(options, &e);
    if (!orch) return fail("orchestrator", e);

    auto queue = orch->create_worker_chip_queue(0, kDepth, kArenaBytes, kArenaBytes, &e);
    if (!queue) return fail("create_worker_chip_queue", e);
    const auto& l = queue->layout();
    log("queue on worker 0 (%s mode): depth %" PRIu64 ", payload %" PRIu64
        " bytes (input arena @%" PRIu64 ", output arena @%" PRIu64 "), transaction %" PRIu64,
        spsq_runtime::chip_worker_mode_name(mode_), l.depth, l.payload_bytes,
        l.input_arena_offset, l.output_arena_offset, queue->binding().transaction_id);

    TaskArgs l2_args;
    for (uint64_t value : queue->chip_task_arg_scalars()) l2_args.add_scalar(value);
    l2_args.add_scalar(verbose_ ? kFlagVerbose : 0);
    if (!orch->submit_next_level(kWorkerChipMessageQueueL2, l2_args, ChipCallConfig{kAivBlocks},
                                 0, &e)) {
      return fail("submit_next_level", e);
    }
    log("submitted the persistent L2 task with %zu scalars", l2_args.scalar_count());

    if (!enqueue(*queue, 0, kModeHold, 1.0f) || !enqueue(*queue, 0, kModeRelease, 100.0f)) {
      return false;
    }
    for (int i = 0; i < 3; ++i) {
      if (!dequeue(*queue)) return false;
    }
    if (!enqueue(*queue, 0, kModeCombine, 1000.0f) || !enqueue(*queue, 7, kModeCombine, 2000.0f)) {
      return false;
    }
    if (queue->request_stop(kTimeout) != WorkerChipQueueStatus::OK) {
      return fail("request_stop", queue->last_error());
    }
    log("STOP published");
    if (!dequeue(*queue)) return false;
    queue->free();
    log("queue freed (logical); waiting for the worker to drain");

    result_.worker = orch->worker(0).run();
    result_.live_regions_after_drain = orch->ledger().live();
    log("worker drained: %" PRIu64 " L2 task(s) returned, %" PRIu64
        " failed; live RegionInstances: %" PRIu64,
        result_.worker.tasks_completed, result_.worker.tasks_failed,
        result_.live_regions_after_drain);
    if (!result_.worker.ok()) {
      result_.error = "L2 task failed: " + result_.worker.first_failure;
      return false;
    }
    return true;
  }

  const spsq_runtime::ChipWorkerMode mode_;
  const bool verbose_;
  ExampleRun result_;
};

}  // namespace

std::vector<uint8_t> example_input(uint64_t request_id, uint64_t mode, float base) {
  std::vector<uint8_t> msg(kMessageBytes);
  write_input_header(InputHeader{request_id, mode}, msg.data());
  for (uint64_t i = 0; i < kTileElems; ++i) {
    const float v = base + static_cast<float>(i % kTileCols);
    std::memcpy(msg.data() + kHeaderBytes + i * sizeof(float), &v, sizeof(v));
  }
  return msg;
}

ExampleRun run_example(spsq_runtime::ChipWorkerMode mode, bool verbose) {
  return Run(mode, verbose).go();
}

}  // namespace worker_chip_message_queue
