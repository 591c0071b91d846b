// Message integrity for benchmarks: the producer stamps its message index into
// the first and last 8 bytes of every payload, the consumer checks the copy it
// took. This catches loss, reordering, duplication and torn payloads for every
// queue alike at the cost of two 8-byte stores and loads per message.
#ifndef SPSQ_BENCH_STAMP_H_
#define SPSQ_BENCH_STAMP_H_

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace spsq_bench {

// Smallest payload the stamp fits in.
inline constexpr uint64_t kMinPayloadBytes = 8;

inline void stamp(uint8_t* payload, uint64_t nbytes, uint64_t index) {
  std::memcpy(payload, &index, sizeof(index));
  std::memcpy(payload + nbytes - sizeof(index), &index, sizeof(index));
}

class StampChecker {
 public:
  // Checks the next message; remembers the first mismatch only.
  void check(const uint8_t* payload, uint64_t nbytes, uint64_t want_nbytes) {
    uint64_t head = 0, tail = 0;
    if (nbytes == want_nbytes && nbytes >= kMinPayloadBytes) {
      std::memcpy(&head, payload, sizeof(head));
      std::memcpy(&tail, payload + nbytes - sizeof(tail), sizeof(tail));
    }
    if (ok_ && (nbytes != want_nbytes || head != next_ || tail != next_)) {
      ok_ = false;
      std::snprintf(why_, sizeof(why_),
                    "message %llu: %llu bytes (want %llu), stamps %llu/%llu",
                    static_cast<unsigned long long>(next_),
                    static_cast<unsigned long long>(nbytes),
                    static_cast<unsigned long long>(want_nbytes),
                    static_cast<unsigned long long>(head),
                    static_cast<unsigned long long>(tail));
    }
    sum_ += head;
    ++next_;
  }

  bool ok() const { return ok_; }
  const char* why() const { return why_; }
  uint64_t received() const { return next_; }
  // Sum of the stamps seen; 0 + 1 + ... + (received - 1) when nothing was lost.
  uint64_t sum() const { return sum_; }

 private:
  uint64_t next_ = 0;
  uint64_t sum_ = 0;
  bool ok_ = true;
  char why_[160] = {};
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_STAMP_H_
