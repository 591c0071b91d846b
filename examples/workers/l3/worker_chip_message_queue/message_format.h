// Payload formats of the example. The queue carries opaque bytes; request ids
// and kinds live in these application headers, never in the transport seq.
//
//   input  = 64-byte header {u64 request_id, u64 mode, zero padding}
//            + 128x128 float32 tile
//   output = 64-byte header {u64 request_id, u64 kind, u64 aux, zero padding}
//            + 128x128 float32 tile
// All fields little-endian.
#ifndef EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_MESSAGE_FORMAT_H_
#define EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_MESSAGE_FORMAT_H_

#include <cstdint>
#include <cstring>

#include "common/spsq_descriptor.h"

namespace worker_chip_message_queue {

inline constexpr uint64_t kTileRows = 128;
inline constexpr uint64_t kTileCols = 128;
inline constexpr uint64_t kTileElems = kTileRows * kTileCols;
inline constexpr uint64_t kTileBytes = kTileElems * sizeof(float);
inline constexpr uint64_t kHeaderBytes = 64;
inline constexpr uint64_t kMessageBytes = kHeaderBytes + kTileBytes;  // both directions

// Input modes (what L2 does with the input).
inline constexpr uint64_t kModeHold = 1;       // held until a mode-2 input arrives
inline constexpr uint64_t kModeRelease = 2;    // answered at once, then frees the held one
inline constexpr uint64_t kModeCombine = 3;    // held; combined pairwise on STOP

// Output kinds.
inline constexpr uint64_t kKindPlus20 = 20;
inline constexpr uint64_t kKindPlus10 = 10;
inline constexpr uint64_t kKindPlus11 = 11;
inline constexpr uint64_t kKindSum = 30;
inline constexpr uint64_t kKindRejected = 99;  // sent as an ERROR message

struct InputHeader {
  uint64_t request_id;
  uint64_t mode;
};

struct OutputHeader {
  uint64_t request_id;
  uint64_t kind;
  uint64_t aux;
};

inline void write_input_header(const InputHeader& h, uint8_t* out) {
  std::memset(out, 0, kHeaderBytes);
  spsc_queue::store_le64(out + 0, h.request_id);
  spsc_queue::store_le64(out + 8, h.mode);
}

inline InputHeader read_input_header(const uint8_t* in) {
  return InputHeader{spsc_queue::load_le64(in + 0), spsc_queue::load_le64(in + 8)};
}

inline void write_output_header(const OutputHeader& h, uint8_t* out) {
  std::memset(out, 0, kHeaderBytes);
  spsc_queue::store_le64(out + 0, h.request_id);
  spsc_queue::store_le64(out + 8, h.kind);
  spsc_queue::store_le64(out + 16, h.aux);
}

inline OutputHeader read_output_header(const uint8_t* in) {
  return OutputHeader{spsc_queue::load_le64(in + 0), spsc_queue::load_le64(in + 8),
                      spsc_queue::load_le64(in + 16)};
}

// Tile element i (row-major) of a message starting at `msg`.
inline float tile_at(const uint8_t* msg, uint64_t i) {
  float v;
  std::memcpy(&v, msg + kHeaderBytes + i * sizeof(float), sizeof(v));
  return v;
}

}  // namespace worker_chip_message_queue

#endif  // EXAMPLES_WORKER_CHIP_MESSAGE_QUEUE_MESSAGE_FORMAT_H_
