// What one publication wrote to the region, in access-log order: the payload
// span, descriptor bytes 8..31, the seq (bytes 0..7) and the tail notify. The
// L2 and L3 producer-sequence tests judge the order of these indices, so the
// reading of the log lives here once for both sides.
#ifndef SPSQ_CONFORMANCE_HARNESS_PUBLISH_ORDER_H_
#define SPSQ_CONFORMANCE_HARNESS_PUBLISH_ORDER_H_

#include <cstddef>
#include <cstdint>

#include "testkit/access_log.h"

namespace spsq_conf {

struct PublishOrder {
  static constexpr size_t npos = AccessLog::npos;
  size_t payload_done = npos;  // the write completing the payload span (npos: none)
  size_t payload_last = npos;  // the last write touching the payload span
  size_t stray = npos;         // a write to the arena outside the message's span
  size_t body_first = npos;    // first write touching descriptor bytes 8..31
  size_t body_done = npos;     // the write completing bytes 8..31
  size_t body_last = npos;
  size_t seq_first = npos;     // first write touching bytes 0..7
  size_t seq_done = npos;      // the write completing bytes 0..7
  bool seq_with_body = false;  // one write touched both
  size_t tail = npos;          // first successful notify of the tail counter
};

// A successful payload write overlapping [off, off + n).
inline bool WriteTouches(const Access& a, uint64_t off, uint64_t n) {
  return a.kind == AccessKind::kWrite && a.ok && n != 0 && a.offset < off + n &&
         off < a.offset + a.nbytes;
}

// The publication of the message at descriptor slot `slot` with payload
// [off, off + n) in the arena [arena, arena + arena_bytes), from log index
// `from` on; `tail_offset` is the direction's tail counter.
inline PublishOrder FindPublishOrder(const AccessLog& log, size_t from, uint64_t slot,
                                     uint64_t arena, uint64_t arena_bytes, uint64_t off,
                                     uint64_t n, uint64_t tail_offset) {
  PublishOrder s;
  if (n != 0) s.payload_done = log.written_by(from, off, n);
  s.body_done = log.written_by(from, slot + 8, 24);
  s.seq_done = log.written_by(from, slot, 8);
  for (size_t i = from; i < log.size(); ++i) {
    const Access& a = log[i];
    if (WriteTouches(a, off, n)) s.payload_last = i;
    if (WriteTouches(a, arena, arena_bytes) &&
        (n == 0 || a.offset < off || a.offset + a.nbytes > off + n) &&
        s.stray == PublishOrder::npos) {
      s.stray = i;
    }
    const bool body = WriteTouches(a, slot + 8, 24);
    const bool seq = WriteTouches(a, slot, 8);
    if (body) {
      if (s.body_first == PublishOrder::npos) s.body_first = i;
      s.body_last = i;
    }
    if (seq && s.seq_first == PublishOrder::npos) s.seq_first = i;
    if (seq && body) s.seq_with_body = true;
    if (a.kind == AccessKind::kNotify && a.ok && a.offset == tail_offset &&
        s.tail == PublishOrder::npos) {
      s.tail = i;
    }
  }
  return s;
}

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_PUBLISH_ORDER_H_
