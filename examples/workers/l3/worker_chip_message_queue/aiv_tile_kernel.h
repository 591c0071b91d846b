// A simulated AIV (vector core) kernel: the tile arithmetic the persistent
// L2 task offloads. Rows are split across `block_dim` blocks; each block
// writes its rows straight into the destination (the L2 output reservation)
// and flushes them, because AIV-produced output must be visible before L2
// publishes the descriptor.
#ifndef EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_AIV_TILE_KERNEL_H_
#define EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_AIV_TILE_KERNEL_H_

#include <cstdint>

namespace worker_chip_message_queue {

// out = a + b + addend, elementwise over one 128x128 float32 tile. `b` may be
// null (treated as zeros). Pointers need no alignment.
struct AivTileArgs {
  const uint8_t* a;
  const uint8_t* b;
  float addend;
  uint8_t* out;
};

struct AivLaunchReport {
  uint32_t blocks_run = 0;
  uint64_t bytes_flushed = 0;  // the caller publishes only once this covers the tile
};

AivLaunchReport launch_aiv_tile_kernel(const AivTileArgs& args, uint32_t block_dim);

}  // namespace worker_chip_message_queue

#endif  // EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_AIV_TILE_KERNEL_H_
