// A wire-level L3 peer, written from the spec and wire-contract.md alone (it
// shares no code with any endpoint): it produces the input direction and
// consumes the output direction through a RegionView-shaped view. The
// explorer gives it a SchedView, so each of its shared accesses is a choice
// point too; the stress tests give it a thread-safe view over real memory.
// The layout comes from the suite's wire model (model).
#ifndef SPSQ_SANITIZERS_INTERLEAVE_L3_PEER_H_
#define SPSQ_SANITIZERS_INTERLEAVE_L3_PEER_H_

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "model/wire_model.h"

namespace spsq_sched {

namespace wire = spsq_conf::wire;

struct WireLayout {
  uint64_t depth = 0, in_ring = 0, out_ring = 0;
  uint64_t in_arena = 0, in_bytes = 0, out_arena = 0, out_bytes = 0, payload_bytes = 0;

  // The layout of (depth, in, out) by the suite's wire model; false when the
  // model rejects the parameters.
  static bool from_model(uint64_t depth, uint64_t in, uint64_t out, WireLayout* l) {
    spsq_conf::wire::Layout m;
    if (!spsq_conf::wire::compute_layout(depth, in, out, &m)) return false;
    l->depth = m.depth;
    l->in_ring = m.input_ring;
    l->out_ring = m.output_ring;
    l->in_arena = m.input_arena;
    l->in_bytes = m.input_arena_bytes;
    l->out_arena = m.output_arena;
    l->out_bytes = m.output_arena_bytes;
    l->payload_bytes = m.payload_bytes;
    return true;
  }
};

template <class View>
class BasicL3Peer {
 public:
  enum class Result { OK, NO_PROGRESS, FAILED };

  struct Message {
    uint64_t seq = 0, opcode = 0, offset = 0, nbytes = 0;
    std::vector<uint8_t> bytes;
  };

  BasicL3Peer(View view, const WireLayout& l) : view_(std::move(view)), l_(l) {}

  // Publishes one input message: payload, descriptor bytes 8..31, seq, tail.
  Result try_send(uint64_t opcode, const uint8_t* data, uint64_t n) {
    if (!refresh_input_head()) return Result::FAILED;
    if (in_tail_ - in_head_ == l_.depth) return Result::NO_PROGRESS;
    uint64_t pos = 0, start = in_cursor_, next = in_cursor_;
    if (n != 0) {
      pos = in_cursor_ % l_.in_bytes;
      if (pos + n > l_.in_bytes) {
        start = in_cursor_ + (l_.in_bytes - pos);
        pos = 0;
      }
      next = start + n;
      const bool idle = in_sent_.empty() || in_released_cursor_ == in_cursor_;
      if (!idle && next - in_released_cursor_ > l_.in_bytes) return Result::NO_PROGRESS;
    }
    const uint64_t offset = n != 0 ? l_.in_arena + pos : 0;
    if (n != 0 && !view_.payload().write(offset, data, n)) return Result::FAILED;
    uint8_t body[24];
    wire::store_le64(body, opcode);
    wire::store_le64(body + 8, offset);
    wire::store_le64(body + 16, n);
    const uint64_t slot = (in_tail_ % l_.depth) * 32;
    uint8_t seq[8];
    wire::store_le64(seq, in_tail_ + 1);
    if (!view_.payload().write(slot + 8, body, 24) || !view_.payload().write(slot, seq, 8) ||
        !view_.counter().notify(wire::kInputTail, wire::low32(in_tail_ + 1), 0)) {
      return Result::FAILED;
    }
    ++in_tail_;
    in_sent_.push_back(next);
    in_cursor_ = next;
    return Result::OK;
  }

  // Acquires the next output message (window 1); the caller releases it.
  Result try_receive(Message* m) {
    if (holding_) return fail("try_receive while holding a message");
    if (out_next_ == out_tail_) {
      int32_t observed = 0;
      if (!read_counter(wire::kOutputTail, &observed)) return Result::FAILED;
      uint64_t tail = 0;
      if (!advance(out_tail_, observed, &tail) || tail - out_head_ > l_.depth) {
        return fail("impossible output tail counter " + std::to_string(observed));
      }
      out_tail_ = tail;
      if (out_next_ == out_tail_) return Result::NO_PROGRESS;
    }
    PeerBytes d;
    const uint64_t slot = l_.out_ring + (out_next_ % l_.depth) * 32;
    if (!view_.payload().read(slot, 32, d)) return fail("descriptor read failed");
    m->seq = wire::load_le64(d.local_addr);
    m->opcode = wire::load_le64(d.local_addr + 8);
    m->offset = wire::load_le64(d.local_addr + 16);
    m->nbytes = wire::load_le64(d.local_addr + 24);
    if (m->seq != out_next_ + 1) {
      return fail("output seq " + std::to_string(m->seq) + ", want " +
                  std::to_string(out_next_ + 1));
    }
    if (m->opcode != wire::kData && m->opcode != wire::kError) {
      return fail("output opcode " + std::to_string(m->opcode));
    }
    uint64_t next = out_cursor_;
    if (m->nbytes == 0) {
      if (m->offset != 0) return fail("zero-byte output with offset " + std::to_string(m->offset));
    } else {
      if (m->nbytes > l_.out_bytes) return fail("output larger than its arena");
      uint64_t pos = out_cursor_ % l_.out_bytes, start = out_cursor_;
      if (pos + m->nbytes > l_.out_bytes) {
        start += l_.out_bytes - pos;
        pos = 0;
      }
      next = start + m->nbytes;
      if (m->offset != l_.out_arena + pos) {
        return fail("output payload offset " + std::to_string(m->offset) +
                    ", the arena rule says " +
                    std::to_string(l_.out_arena + pos));
      }
      PeerBytes p;
      if (!view_.payload().read(m->offset, m->nbytes, p)) return fail("payload read failed");
      m->bytes.assign(p.local_addr, p.local_addr + m->nbytes);
    }
    out_cursor_ = next;
    ++out_next_;
    holding_ = true;
    return Result::OK;
  }

  Result release() {
    if (!holding_) return fail("release without a held message");
    if (!view_.counter().notify(wire::kOutputHead, wire::low32(out_head_ + 1), 0)) {
      return fail("head notify failed");
    }
    ++out_head_;
    holding_ = false;
    return Result::OK;
  }

  uint64_t outputs_released() const { return out_head_; }
  const std::string& error() const { return error_; }
  // Reads an abort flag (for the final check; not a protocol step).
  int32_t flag(uint64_t offset) {
    int32_t v = 0;
    read_counter(offset, &v);
    return v;
  }

 private:
  struct PeerBytes {
    const uint8_t* local_addr = nullptr;
    uint64_t nbytes = 0;
  };
  struct Sample {
    bool matched = false;
    int32_t observed = 0;
  };

  bool advance(uint64_t local, int32_t observed, uint64_t* out) const {
    return wire::reconstruct(local, observed, l_.depth, out);
  }

  bool read_counter(uint64_t offset, int32_t* v) {
    Sample s;
    if (!view_.counter().test(offset, 0, 3, s)) return false;
    *v = s.observed;
    return true;
  }

  bool refresh_input_head() {
    int32_t observed = 0;
    if (!read_counter(wire::kInputHead, &observed)) return false;
    uint64_t head = 0;
    if (!advance(in_head_, observed, &head) || head > in_tail_) {
      fail("impossible input head counter " + std::to_string(observed));
      return false;
    }
    for (; in_head_ < head; ++in_head_) {
      in_released_cursor_ = in_sent_.front();
      in_sent_.pop_front();
    }
    return true;
  }

  Result fail(const std::string& why) {
    if (error_.empty()) error_ = why;
    return Result::FAILED;
  }

  View view_;
  WireLayout l_;
  std::string error_;
  // Input (produced): tail, reconstructed head, arena cursors per message.
  uint64_t in_tail_ = 0, in_head_ = 0, in_cursor_ = 0, in_released_cursor_ = 0;
  std::deque<uint64_t> in_sent_;  // cursor after each unreleased message
  // Output (consumed).
  uint64_t out_tail_ = 0, out_next_ = 0, out_head_ = 0, out_cursor_ = 0;
  bool holding_ = false;
};

}  // namespace spsq_sched

#endif  // SPSQ_SANITIZERS_INTERLEAVE_L3_PEER_H_
