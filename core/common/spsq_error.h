// The error value every SPSQ endpoint records: what failed, during which
// operation, and (once the binding was accepted) which RegionInstance it was.
#ifndef SPSQ_COMMON_SPSQ_ERROR_H_
#define SPSQ_COMMON_SPSQ_ERROR_H_

#include <cstddef>
#include <cstdint>

#include "common/spsq_constants.h"

namespace spsc_queue {

inline constexpr size_t kSpscQueueErrorMessageBytes = 256;

struct SpscQueueError {
  SpscQueueErrorKind kind = SpscQueueErrorKind::NONE;
  SpscQueueOp op = SpscQueueOp::NONE;
  uint64_t session_instance_id_bits = 0;
  uint64_t transaction_id = 0;
  char message[kSpscQueueErrorMessageBytes] = {};

  bool ok() const { return kind == SpscQueueErrorKind::NONE; }
  // An accepted binding's transaction_id is nonzero, so a zero one means the
  // error names no RegionInstance.
  bool has_identity() const { return transaction_id != 0; }
};

// Builds an error; `fmt` is printf-style and truncated to fit `message`.
SpscQueueError make_error(SpscQueueErrorKind kind, SpscQueueOp op,
                          const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// Attaches the RegionInstance identity (session bits, transaction id) to the
// fields and to the end of the message text (truncated if it does not fit).
// A second call keeps the first identity.
void set_error_identity(SpscQueueError* error, uint64_t session_bits,
                        uint64_t transaction_id);

// One line: "KIND in OP: message [session 0x.., transaction N]".
// Returns the length it wanted to write (like snprintf).
int format_error(const SpscQueueError& error, char* out, size_t out_bytes);

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_ERROR_H_
