// Decodes one queue region (PAYLOAD bytes and COUNTER bytes) into what a
// person debugging a failure needs: every counter with its reconstructed
// 64-bit position, every descriptor slot with its validity, the abort flags.
// `spsq inspect` prints it for a dump file; a failing conformance test prints
// it for the region it ran on.
//
// A dump has no history, so positions are reconstructed from the descriptors
// themselves: the 64-bit position of a tail is the seq of the newest
// descriptor whose low 32 bits match; with no such descriptor the raw value
// is taken as a count below 2^31.
#ifndef SPSQ_CONFORMANCE_MODEL_REGION_DECODER_H_
#define SPSQ_CONFORMANCE_MODEL_REGION_DECODER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/wire_model.h"

namespace spsq_conf {

struct DecodedSlot {
  uint64_t slot = 0;
  uint64_t ring_offset = 0;  // payload offset of the slot
  wire::Descriptor d;
  std::string state;     // "unused", "published", "released", "stale", "future"
  std::vector<std::string> problems;  // empty: valid
};

struct DecodedDirection {
  const char* name = "";
  int32_t tail_raw = 0;
  int32_t head_raw = 0;
  uint64_t tail = 0;  // reconstructed positions
  uint64_t head = 0;
  const char* tail_basis = "";
  uint64_t slots_skipped = 0;  // deep rings: slots not decoded
  std::vector<std::string> problems;
  std::vector<DecodedSlot> slots;
};

struct DecodedRegion {
  bool layout_ok = false;
  wire::Layout layout;
  std::vector<std::string> problems;  // region-wide (sizes, layout)
  DecodedDirection input;
  DecodedDirection output;
  int32_t initiator_flag = 0;
  int32_t peer_flag = 0;
};

// payload_bytes/counter_bytes are the sizes actually available. Rings deeper
// than max_slots are decoded only around the head and tail positions.
DecodedRegion decode_region(const uint8_t* payload, uint64_t payload_bytes,
                            const uint8_t* counter, uint64_t counter_bytes, uint64_t depth,
                            uint64_t input_arena_bytes, uint64_t output_arena_bytes,
                            uint64_t max_slots = 4096);

std::string region_to_text(const DecodedRegion& r);
std::string region_to_json(const DecodedRegion& r);

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_MODEL_REGION_DECODER_H_
