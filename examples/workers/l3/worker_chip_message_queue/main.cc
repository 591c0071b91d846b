// bazel run //examples/workers/l3/worker_chip_message_queue [-- thread|process]
// Runs the section-5 scenario and prints both sides as they go.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "examples/workers/l3/worker_chip_message_queue/l3_host.h"
#include "examples/workers/l3/worker_chip_message_queue/message_format.h"

namespace {

using spsq_runtime::ChipWorkerMode;
using worker_chip_message_queue::ExampleRun;

int run(ChipWorkerMode mode) {
  std::printf("=== worker_chip_message_queue, L2 in %s mode ===\n",
              spsq_runtime::chip_worker_mode_name(mode));
  std::fflush(stdout);
  const ExampleRun r = worker_chip_message_queue::run_example(mode, /*verbose=*/true);
  if (!r.ok) {
    std::printf("FAILED: %s\n", r.error.c_str());
    return 1;
  }
  std::printf("outputs (request_id, kind, aux):");
  for (const auto& o : r.outputs) {
    const auto h = worker_chip_message_queue::read_output_header(o.payload.data());
    std::printf(" (%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")", h.request_id, h.kind, h.aux);
  }
  std::printf("\n\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool thread = true, process = true;
  if (argc == 2 && std::strcmp(argv[1], "thread") == 0) {
    process = false;
  } else if (argc == 2 && std::strcmp(argv[1], "process") == 0) {
    thread = false;
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [thread|process]\n", argv[0]);
    return 2;
  }
  int rc = 0;
  if (thread) rc |= run(ChipWorkerMode::kThread);
  if (process) rc |= run(ChipWorkerMode::kProcess);
  return rc;
}
