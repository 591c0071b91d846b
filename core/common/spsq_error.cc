#include "common/spsq_error.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace spsc_queue {

SpscQueueError make_error(SpscQueueErrorKind kind, SpscQueueOperation op,
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
  error->session_instance_id_bits = session_bits;
  error->transaction_id = transaction_id;
  error->has_identity = true;
}

int format_error(const SpscQueueError& error, char* out, size_t out_bytes) {
  if (error.has_identity) {
    return std::snprintf(out, out_bytes,
                         "%s in %s [session 0x%016" PRIx64 ", transaction %" PRIu64 "]: %s",
                         error_kind_name(error.kind), operation_name(error.op),
                         error.session_instance_id_bits, error.transaction_id,
                         error.message);
  }
  return std::snprintf(out, out_bytes, "%s in %s: %s", error_kind_name(error.kind),
                       operation_name(error.op), error.message);
}

}  // namespace spsc_queue
