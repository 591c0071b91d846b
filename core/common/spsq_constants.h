// SPSQ ABI 1.0 wire constants and enumerations (wire-contract.md, "Constants"
// and "Enumerations"). Every numeric value here is part of the wire: changing
// one breaks interoperability with endpoints built elsewhere.
#ifndef SPSQ_COMMON_SPSQ_CONSTANTS_H_
#define SPSQ_COMMON_SPSQ_CONSTANTS_H_

#include <cstddef>
#include <cstdint>

namespace spsc_queue {

inline constexpr uint32_t kSpscQueueMagic = 0x53505351u;  // "SPSQ"
inline constexpr uint16_t kSpscQueueAbiMajor = 1;
inline constexpr uint16_t kSpscQueueAbiMinor = 0;
inline constexpr uint64_t kSpscQueueMagicVersion =
    (static_cast<uint64_t>(kSpscQueueMagic) << 32) |
    (static_cast<uint64_t>(kSpscQueueAbiMajor) << 16) |
    static_cast<uint64_t>(kSpscQueueAbiMinor);
static_assert(kSpscQueueMagicVersion == 0x5350535100010000ull, "packed magic_version");

inline constexpr size_t kSpscQueueEndpointBindingScalarCount = 10;
inline constexpr uint64_t kDescriptorBytes = 32;
inline constexpr uint64_t kDescriptorRingAlignment = 8;
inline constexpr uint64_t kArenaAlignment = 64;
inline constexpr uint64_t kCounterStride = 64;
inline constexpr uint64_t kCounterBytes = 384;
inline constexpr uint64_t kMaxDepth = uint64_t{1} << 30;

// Signal offsets inside the counter region; each slot is one int32.
inline constexpr uint64_t kInputDescTailOffset = 0;       // writer: L3
inline constexpr uint64_t kInputDescHeadOffset = 64;      // writer: L2
inline constexpr uint64_t kOutputDescTailOffset = 128;    // writer: L2
inline constexpr uint64_t kOutputDescHeadOffset = 192;    // writer: L3
inline constexpr uint64_t kInitiatorAbortOffset = 256;  // writer: L3
inline constexpr uint64_t kPeerAbortOffset = 320;       // writer: L2

// Descriptor field byte offsets (little-endian uint64 each).
inline constexpr uint64_t kDescriptorSeqOffset = 0;
inline constexpr uint64_t kDescriptorOpcodeOffset = 8;
inline constexpr uint64_t kDescriptorPayloadOffsetOffset = 16;
inline constexpr uint64_t kDescriptorPayloadNbytesOffset = 24;

enum class SpscQueueOpcode : uint64_t {
  INVALID = 0,
  DATA = 1,
  STOP = 2,
  ERROR = 3,
};

enum class SpscQueueErrorKind : uint32_t {
  NONE = 0,
  BAD_ARGUMENT = 1,
  BAD_BINDING = 2,
  INVALID_DESCRIPTOR = 3,
  OWNERSHIP = 4,
  REMOTE_ABORTED = 5,
  ENDPOINT_ERROR = 6,
};

// Operation in progress when an error was recorded. 1..6 are the ABI values of
// the L2 endpoint; 7.. name the L3 queue's operations (an extension of this
// implementation: the contract fixes no values for the L3 side).
enum class SpscQueueOp : uint32_t {
  NONE = 0,
  INIT = 1,
  TIMEOUT = 2,
  INPUT_TRY_PEEK = 3,
  INPUT_RELEASE = 4,
  OUTPUT_TRY_RESERVE = 5,
  OUTPUT_PUBLISH = 6,
  L3_ENQUEUE = 7,
  L3_REQUEST_STOP = 8,
  L3_OUTPUT_PEEK = 9,
  L3_OUTPUT_READ = 10,
  L3_OUTPUT_RELEASE = 11,
};

const char* opcode_name(uint64_t opcode);
const char* error_kind_name(SpscQueueErrorKind kind);
const char* operation_name(SpscQueueOp op);

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_CONSTANTS_H_
