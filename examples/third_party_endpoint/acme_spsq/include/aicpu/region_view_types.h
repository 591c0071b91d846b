// Value types of the RegionView contract (wire-contract.md, "The RegionView
// contract" and "Source compatibility"). Global namespace, as the runtime's.
//
// Numeric enum values are part of the ABI. Addresses are integers
// (`uint64_t local_addr`); callers cast them where they need a pointer.
#ifndef SPSQ_INDEPENDENT_AICPU_REGION_VIEW_TYPES_H_
#define SPSQ_INDEPENDENT_AICPU_REGION_VIEW_TYPES_H_

#include <cstdint>

// One part (PAYLOAD or COUNTER) of a RegionInstance, as mapped locally.
struct RegionPartLocalSpan {
  uint64_t base = 0;
  uint64_t logical_bytes = 0;
};

enum class RegionNotifyOp : uint32_t { Set = 0, Add = 1 };

enum class RegionWaitCmp : uint32_t { EQ = 0, NE = 1, GT = 2, GE = 3, LT = 4, LE = 5 };

// A borrowed, readable range of the payload part (no copy).
struct RegionPayloadView {
  uint64_t local_addr = 0;
  uint64_t nbytes = 0;
};

struct RegionSignalTestResult {
  bool matched = false;
  int32_t observed = 0;
};

enum class RegionViewErrorKind : uint32_t {
  NONE = 0,
  INVALID_VIEW = 1,
  OUT_OF_BOUNDS = 2,
  INVALID_ENUM = 3,
  TIMEOUT = 4,
  ISSUED_FAILURE = 5,
};

enum class RegionViewOp : uint32_t {
  CONSTRUCT = 1,
  PAYLOAD_READ = 2,
  PAYLOAD_WRITE = 3,
  NOTIFY = 4,
  TEST = 5,
  WAIT = 6,
  COUNTER_ADDR = 7,
};

struct RegionViewError {
  RegionViewErrorKind kind = RegionViewErrorKind::NONE;
  RegionViewOp op{};  // 0 while no error was recorded
  int32_t observed = 0;
  char message[256] = {};
};

// The comparison a test()/wait() evaluates: `observed <cmp> cmp_value`.
// Returns false for a value outside the enum; `known` says which case it was.
inline bool region_wait_cmp_holds(int32_t observed, RegionWaitCmp cmp, int32_t cmp_value,
                                  bool* known) {
  *known = true;
  switch (cmp) {
    case RegionWaitCmp::EQ: return observed == cmp_value;
    case RegionWaitCmp::NE: return observed != cmp_value;
    case RegionWaitCmp::GT: return observed > cmp_value;
    case RegionWaitCmp::GE: return observed >= cmp_value;
    case RegionWaitCmp::LT: return observed < cmp_value;
    case RegionWaitCmp::LE: return observed <= cmp_value;
  }
  *known = false;
  return false;
}

#endif  // SPSQ_INDEPENDENT_AICPU_REGION_VIEW_TYPES_H_
