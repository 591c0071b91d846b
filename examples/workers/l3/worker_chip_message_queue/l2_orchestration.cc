// L2 behaviour (spec section 5, with the shipped example's facts):
//   mode 1: held;
//   mode 2: publish kind 20 (its tile + 20), release it, then publish kinds
//           10 and 11 from the held mode-1 input (+10, +11) and release that
//           one - an out-of-order release, so the shared head moves only when
//           both are done;
//   mode 3: held;
//   STOP:   publish kind 30 = request_id of the first held mode-3 input, aux =
//           the second's request_id, tile = the sum of both; release both and
//           STOP; return once input().drained().
// Anything else is answered with an ERROR message (kind 99) and released.
#include "examples/workers/l3/worker_chip_message_queue/l2_orchestration.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"
#include "examples/workers/l3/worker_chip_message_queue/aiv_tile_kernel.h"
#include "examples/workers/l3/worker_chip_message_queue/message_format.h"

namespace worker_chip_message_queue {
namespace {

using Queue = spsc_queue::SpscQueueEndpoint<RegionInstanceView, 4>;
using spsc_queue::SpscQueueInputHandle;
using spsc_queue::SpscQueueOpcode;

// Payload addresses are integers in the runtime's API; L2 code casts them.
const uint8_t* in_bytes(const SpscQueueInputHandle& h) {
  return reinterpret_cast<const uint8_t*>(h.payload.local_addr);
}
uint8_t* out_bytes(const spsc_queue::SpscQueueOutputReservation& r) {
  return reinterpret_cast<uint8_t*>(r.payload.local_addr);
}

// The header is L2 code's own store into the reservation: L2 code flushes it,
// as it must on an endpoint whose publish leaves the flush to L2 code
// (OPEN.FLUSH reading B); on one whose publish flushes it costs a clean line.
void flush_header(const spsc_queue::SpscQueueOutputReservation& r) {
  const RegionCacheHooks hooks = region_default_cache_hooks();
  if (hooks.flush != nullptr) hooks.flush(out_bytes(r), kHeaderBytes);
}

class L2Log {
 public:
  explicit L2Log(bool on) : on_(on) {}
  void operator()(const char* fmt, ...) const __attribute__((format(printf, 2, 3))) {
    if (!on_) return;
    char line[512];
    std::va_list args;
    va_start(args, fmt);
    std::vsnprintf(line, sizeof(line), fmt, args);
    va_end(args);
    // One call per line: L3 prints from another thread (or process) at the
    // same time, and separate calls for the prefix, the text and the newline
    // let its lines land between them.
    std::printf("  L2: %s\n", line);
    std::fflush(stdout);  // the L2 task may be a forked child
  }

 private:
  bool on_;
};

void log_failure(const Queue& queue, const char* what) {
  char line[400];
  spsc_queue::format_error(queue.error(), line, sizeof(line));
  std::fprintf(stderr, "  L2: %s failed: %s\n", what, line);
  std::fflush(stderr);
}

// Reserves one output message, lets the AIV kernel fill the tile (flushed),
// writes the header and publishes.
bool publish_tile(Queue& queue, const OutputHeader& header, const AivTileArgs& tile,
                  uint32_t block_dim, const L2Log& log) {
  spsc_queue::SpscQueueOutputReservation r{};
  if (!queue.output().reserve(kMessageBytes, kL2WaitNs, r)) {
    log_failure(queue, "output reserve");
    return false;
  }
  AivTileArgs args = tile;
  args.out = out_bytes(r) + kHeaderBytes;
  const AivLaunchReport aiv = launch_aiv_tile_kernel(args, block_dim);
  write_output_header(header, out_bytes(r));
  flush_header(r);
  if (aiv.bytes_flushed != kTileBytes) {
    std::fprintf(stderr, "  L2: AIV kernel flushed %" PRIu64 " of %" PRIu64 " bytes\n",
                 aiv.bytes_flushed, kTileBytes);
    return false;
  }
  if (!queue.output().publish(r, SpscQueueOpcode::DATA)) {
    log_failure(queue, "output publish");
    return false;
  }
  log("published output (request_id %" PRIu64 ", kind %" PRIu64 ", aux %" PRIu64
      ") from %u AIV blocks",
      header.request_id, header.kind, header.aux, aiv.blocks_run);
  return true;
}

bool publish_rejection(Queue& queue, uint64_t request_id, const L2Log& log) {
  spsc_queue::SpscQueueOutputReservation r{};
  if (!queue.output().reserve(kHeaderBytes, kL2WaitNs, r)) return false;
  write_output_header(OutputHeader{request_id, kKindRejected, 0}, out_bytes(r));
  flush_header(r);
  log("rejecting request %" PRIu64 " with an ERROR message", request_id);
  return queue.output().publish(r, SpscQueueOpcode::ERROR);
}

bool release(Queue& queue, const SpscQueueInputHandle& h, const L2Log& log) {
  if (!queue.input().release(h)) {
    log_failure(queue, "input release");
    return false;
  }
  log("released input seq %" PRIu64, h.seq);
  return true;
}

void serve(Queue& queue, uint32_t block_dim, const L2Log& log) {
  SpscQueueInputHandle held_hold{};
  bool has_hold = false;
  SpscQueueInputHandle held_combine[2] = {};
  int combine_count = 0;

  while (!queue.input().drained()) {
    SpscQueueInputHandle h{};
    if (!queue.input().peek(kL2WaitNs, h)) {
      log_failure(queue, "input peek");
      return;
    }
    if (h.opcode == SpscQueueOpcode::STOP) {
      log("acquired STOP (seq %" PRIu64 ") with %d inputs held", h.seq, combine_count);
      if (combine_count == 2) {
        const OutputHeader out{read_input_header(in_bytes(held_combine[0])).request_id, kKindSum,
                               read_input_header(in_bytes(held_combine[1])).request_id};
        if (!publish_tile(queue, out,
                          AivTileArgs{in_bytes(held_combine[0]) + kHeaderBytes,
                                      in_bytes(held_combine[1]) + kHeaderBytes, 0.0f, nullptr},
                          block_dim, log)) {
          return;
        }
      }
      for (int i = 0; i < combine_count; ++i) {
        if (!release(queue, held_combine[i], log)) return;
      }
      if (has_hold && !release(queue, held_hold, log)) return;
      if (!release(queue, h, log)) return;
      continue;
    }

    if (h.payload_nbytes != kMessageBytes) {
      const uint64_t id = h.payload_nbytes >= 8 ? read_input_header(in_bytes(h)).request_id : 0;
      if (!publish_rejection(queue, id, log) || !release(queue, h, log)) return;
      continue;
    }
    const InputHeader in = read_input_header(in_bytes(h));
    log("acquired input seq %" PRIu64 " (request_id %" PRIu64 ", mode %" PRIu64 ")", h.seq,
        in.request_id, in.mode);
    if (in.mode == kModeHold && !has_hold) {
      held_hold = h;
      has_hold = true;
    } else if (in.mode == kModeRelease) {
      const uint8_t* tile = in_bytes(h) + kHeaderBytes;
      if (!publish_tile(queue, OutputHeader{in.request_id, kKindPlus20, 0},
                        AivTileArgs{tile, nullptr, 20.0f, nullptr}, block_dim, log) ||
          !release(queue, h, log)) {
        return;
      }
      if (has_hold) {
        const InputHeader first = read_input_header(in_bytes(held_hold));
        const uint8_t* held_tile = in_bytes(held_hold) + kHeaderBytes;
        if (!publish_tile(queue, OutputHeader{first.request_id, kKindPlus10, 0},
                          AivTileArgs{held_tile, nullptr, 10.0f, nullptr}, block_dim, log) ||
            !publish_tile(queue, OutputHeader{first.request_id, kKindPlus11, 0},
                          AivTileArgs{held_tile, nullptr, 11.0f, nullptr}, block_dim, log) ||
            !release(queue, held_hold, log)) {
          return;
        }
        has_hold = false;
      }
    } else if (in.mode == kModeCombine && combine_count < 2) {
      held_combine[combine_count++] = h;
    } else {
      if (!publish_rejection(queue, in.request_id, log) || !release(queue, h, log)) return;
    }
  }
  log("input drained; returning");
}

}  // namespace

void worker_chip_message_queue_l2(const spsq_runtime::TaskArgs& orch_args,
                                  const spsq_runtime::ChipCallConfig& cfg) {
  const spsc_queue::MonotonicClock clock{&RegionInstanceView::steady_now_ns};
  const L2Log log((orch_args.scalar(kFlagsScalar) & kFlagVerbose) != 0);

  // Binding decode and endpoint construction, as in the spec's section 1.
  uint64_t scalars[spsc_queue::kSpscQueueEndpointBindingScalarCount];
  for (size_t i = 0; i < spsc_queue::kSpscQueueEndpointBindingScalarCount; ++i) {
    scalars[i] = orch_args.scalar(static_cast<int32_t>(i));
  }

  spsc_queue::SpscQueueEndpointBinding binding{};
  if (!spsc_queue::decode_endpoint_binding(
          scalars, spsc_queue::kSpscQueueEndpointBindingScalarCount, &binding)) {
    return;
  }

  RegionInstanceView view(
      RegionPartLocalSpan{binding.payload_base, binding.payload_bytes},
      RegionPartLocalSpan{binding.counter_base, binding.counter_bytes}
  );
  spsc_queue::SpscQueueEndpoint<RegionInstanceView, 4> queue(binding, std::move(view), clock);
  if (!queue.live()) {
    log_failure(queue, "endpoint construction");
    return;
  }
  log("endpoint live: depth %" PRIu64 ", arenas %" PRIu64 "/%" PRIu64
      " bytes, MaxInflight 4, transaction %" PRIu64,
      binding.depth, binding.input_arena_bytes, binding.output_arena_bytes,
      binding.transaction_id);
  serve(queue, cfg.block_dim, log);
}

}  // namespace worker_chip_message_queue
