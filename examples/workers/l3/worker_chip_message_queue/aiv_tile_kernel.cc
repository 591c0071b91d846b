#include "examples/workers/l3/worker_chip_message_queue/aiv_tile_kernel.h"

#include <atomic>
#include <cstring>

#include "aicpu/region_instance_view.h"
#include "examples/workers/l3/worker_chip_message_queue/message_format.h"

namespace worker_chip_message_queue {
namespace {

// The AIV data-cache clean of a span: the device's flush hook where one is
// installed (a device build, or the simulation's non-coherent mode), then a
// release fence that orders the block's stores before whatever the caller
// publishes next. The L2 code keeps this flush whatever the endpoint's
// publish does: the example must work on endpoints of either OPEN.FLUSH
// reading.
uint64_t aiv_flush(const uint8_t* addr, uint64_t nbytes) {
  const RegionCacheHooks hooks = region_default_cache_hooks();
  if (hooks.flush != nullptr) hooks.flush(addr, nbytes);
  std::atomic_thread_fence(std::memory_order_release);
  return nbytes;
}

float load(const uint8_t* p, uint64_t i) {
  float v;
  std::memcpy(&v, p + i * sizeof(float), sizeof(v));
  return v;
}

}  // namespace

AivLaunchReport launch_aiv_tile_kernel(const AivTileArgs& args, uint32_t block_dim) {
  AivLaunchReport report;
  if (block_dim == 0 || block_dim > kTileRows) block_dim = 1;
  for (uint32_t block = 0; block < block_dim; ++block) {
    const uint64_t row_begin = kTileRows * block / block_dim;
    const uint64_t row_end = kTileRows * (block + 1) / block_dim;
    for (uint64_t i = row_begin * kTileCols; i < row_end * kTileCols; ++i) {
      const float v = load(args.a, i) + (args.b != nullptr ? load(args.b, i) : 0.0f) + args.addend;
      std::memcpy(args.out + i * sizeof(float), &v, sizeof(v));
    }
    const uint64_t first = row_begin * kTileCols * sizeof(float);
    report.bytes_flushed += aiv_flush(args.out + first, (row_end - row_begin) * kTileCols * sizeof(float));
    ++report.blocks_run;
  }
  return report;
}

}  // namespace worker_chip_message_queue
