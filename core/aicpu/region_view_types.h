// Value types of the RegionView contract (wire-contract.md, "The RegionView
// contract"). Endpoints only name these through a view's member functions, so
// a harness view may bring look-alike types of its own.
#ifndef SPSQ_AICPU_REGION_VIEW_TYPES_H_
#define SPSQ_AICPU_REGION_VIEW_TYPES_H_

#include <cstddef>
#include <cstdint>

// One part (PAYLOAD or COUNTER) of a RegionInstance as seen from this side.
struct RegionPartLocalSpan {
  uint64_t base = 0;           // local address of byte 0
  uint64_t logical_bytes = 0;  // bytes the part spans
};

enum class RegionNotifyOp : uint32_t { Set = 0, Add = 1 };

enum class RegionWaitCmp : uint32_t { EQ = 0, NE = 1, GT = 2, GE = 3, LT = 4, LE = 5 };

// Result of counter().test().
struct RegionSignalTestResult {
  bool matched = false;
  int32_t observed = 0;
};

// Result of payload().read(): a borrowed view of the span, valid until the
// next read or write of the view. The address is an integer, as in the
// shipped runtime; L2 code casts it to fill output reservations.
struct RegionPayloadView {
  uint64_t local_addr = 0;
  uint64_t nbytes = 0;
};

inline constexpr size_t kRegionViewErrorMessageBytes = 256;

enum class RegionViewErrorKind : uint32_t {
  NONE = 0,
  INVALID_VIEW = 1,
  OUT_OF_BOUNDS = 2,
  INVALID_ENUM = 3,
  TIMEOUT = 4,
  ISSUED_FAILURE = 5,
};

// The view call that failed.
enum class RegionViewOp : uint32_t {
  NONE = 0,
  CONSTRUCT = 1,
  PAYLOAD_READ = 2,
  PAYLOAD_WRITE = 3,
  NOTIFY = 4,
  TEST = 5,
  WAIT = 6,
  COUNTER_ADDR = 7,
};

// The first failure of a view (views fail stickily).
struct RegionViewError {
  RegionViewErrorKind kind = RegionViewErrorKind::NONE;
  RegionViewOp op = RegionViewOp::NONE;
  int32_t observed = 0;  // the counter value a failed wait last saw
  char message[kRegionViewErrorMessageBytes] = {};
};

// True for the six comparisons the contract defines; test and wait refuse
// any other value (INVALID_ENUM) rather than answer it.
inline bool region_wait_cmp_known(RegionWaitCmp cmp) {
  return static_cast<uint32_t>(cmp) <= static_cast<uint32_t>(RegionWaitCmp::LE);
}

// Evaluates `observed CMP cmp_value` for a RegionWaitCmp.
inline bool region_wait_cmp_holds(int32_t observed, RegionWaitCmp cmp, int32_t cmp_value) {
  switch (cmp) {
    case RegionWaitCmp::EQ: return observed == cmp_value;
    case RegionWaitCmp::NE: return observed != cmp_value;
    case RegionWaitCmp::GT: return observed > cmp_value;
    case RegionWaitCmp::GE: return observed >= cmp_value;
    case RegionWaitCmp::LT: return observed < cmp_value;
    case RegionWaitCmp::LE: return observed <= cmp_value;
  }
  return false;
}

#endif  // SPSQ_AICPU_REGION_VIEW_TYPES_H_
