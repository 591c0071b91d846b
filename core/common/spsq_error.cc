#include "common/spsq_error.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace spsc_queue {

SpscQueueError make_error(SpscQueueErrorKind kind, SpscQueueOp op,
                          const char* fmt, ...) {
  SpscQueueError error;
  error.kind = kind;
  error.op = op;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(error.message, sizeof(error.message), fmt, args);
  va_end(args);
  return error;
}

void set_error_identity(SpscQueueError* error, uint64_t session_bits,
                        uint64_t transaction_id) {
  if (error->has_identity()) return;  // the text already names it
  error->session_instance_id_bits = session_bits;
  error->transaction_id = transaction_id;
  // The identity also goes into the text, so whoever logs only the message
  // can still correlate the failure with its RegionInstance.
  const size_t used = std::strlen(error->message);
  std::snprintf(error->message + used, sizeof(error->message) - used,
                " [session 0x%016" PRIx64 ", transaction %" PRIu64 "]", session_bits,
                transaction_id);
}

int format_error(const SpscQueueError& error, char* out, size_t out_bytes) {
  return std::snprintf(out, out_bytes, "%s in %s: %s", error_kind_name(error.kind),
                       operation_name(error.op), error.message);
}

}  // namespace spsc_queue
