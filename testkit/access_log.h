// The recording instrument: an ordered log of every shared access a harness
// view performs for an endpoint (payload reads and writes, which flush, and
// counter notify/test/wait), plus what the harness noticed in between
// (stores that bypassed the view, bounds violations, injected faults, stores
// made by the test playing "L2 code"). Tests assert on order ("payload flush
// before seq before tail") and on absence ("no shared access").
#ifndef SPSQ_CONFORMANCE_HARNESS_ACCESS_LOG_H_
#define SPSQ_CONFORMANCE_HARNESS_ACCESS_LOG_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spsq_conf {

enum class AccessKind : int {
  kRead,              // payload().read: span lent to the endpoint
  kWrite,             // payload().write: copy + flush
  kNotify,            // counter().notify
  kTest,              // counter().test
  kWait,              // counter().wait
  kUnaccountedStore,  // bytes changed with no view write: no flush happened
  kL2CodeStore,       // the test, as L2 code, stored into a lent span
  kViolation,         // out-of-span access or contract misuse (view fails)
  kInjectedFault,     // a FaultPlan made this call fail
};

const char* access_kind_name(AccessKind kind);

struct Access {
  AccessKind kind = AccessKind::kRead;
  int part = 0;  // RegionMemory::Part: 0 payload, 1 counter
  uint64_t offset = 0;
  uint64_t nbytes = 0;
  int32_t value = 0;     // notify value / compare value
  uint32_t op = 0;       // RegionNotifyOp or RegionWaitCmp as its number
  uint64_t timeout_ns = 0;
  int32_t observed = 0;  // test/wait result
  bool ok = true;        // what the call returned (test: matched)
  uint64_t time_ns = 0;  // virtual time at the call
  std::string note;

  // True for the five calls that touch shared memory.
  bool is_shared_access() const {
    return kind == AccessKind::kRead || kind == AccessKind::kWrite ||
           kind == AccessKind::kNotify || kind == AccessKind::kTest || kind == AccessKind::kWait;
  }
  // True when this is a write covering [offset, offset + n) of the payload.
  bool writes_payload(uint64_t off, uint64_t n) const {
    return kind == AccessKind::kWrite && offset <= off && off - offset <= nbytes &&
           n <= nbytes - (off - offset);
  }
  std::string describe() const;
};

// Holds at most capacity() entries: an endpoint that never stops calling
// its view (a spin, a wait past its deadline) must cost a bounded amount of
// memory. Entries past the cap are counted, not kept; dropped() > 0 means the
// log is incomplete, which the suite reports as a failure of the test.
class AccessLog {
 public:
  // ~100 bytes an entry: about 100 MiB at most, 100 times what any test of
  // the suites records.
  static constexpr size_t kDefaultCapacity = size_t{1} << 20;
  // Listings (dump) show at most this many entries, the first and the last.
  static constexpr size_t kDumpEntries = 200;

  void add(const Access& a) {
    if (entries_.size() < capacity_) {
      entries_.push_back(a);
    } else {
      ++dropped_;
    }
  }
  void add(Access&& a) {
    if (entries_.size() < capacity_) {
      entries_.push_back(std::move(a));
    } else {
      ++dropped_;
    }
  }
  void clear() {
    entries_.clear();
    dropped_ = 0;
  }
  size_t capacity() const { return capacity_; }
  void set_capacity(size_t n) { capacity_ = n; }
  // Entries not kept since the log was full.
  uint64_t dropped() const { return dropped_; }

  const std::vector<Access>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  const Access& operator[](size_t i) const { return entries_[i]; }

  // A position to measure "since" from.
  size_t mark() const { return entries_.size(); }

  // Shared accesses at or after `from`.
  size_t shared_accesses_since(size_t from) const;
  // (Templates, not std::function: this header is in every source compiled
  // against an endpoint, and <functional> is a large one.)
  template <class Pred>
  size_t count(const Pred& pred, size_t from = 0) const {
    size_t n = 0;
    for (size_t i = from; i < entries_.size(); ++i) n += pred(entries_[i]) ? 1 : 0;
    return n;
  }
  size_t count_kind(AccessKind kind, size_t from = 0) const;
  // Index of the first entry at or after `from` matching pred, or npos.
  template <class Pred>
  size_t find(const Pred& pred, size_t from = 0) const {
    for (size_t i = from; i < entries_.size(); ++i) {
      if (pred(entries_[i])) return i;
    }
    return npos;
  }
  // Index of the successful payload write at or after `from` by which the
  // writes together first cover [off, off + n), or npos: a span may be
  // written (flushed) in one write or in several.
  size_t written_by(size_t from, uint64_t off, uint64_t n) const;
  static constexpr size_t npos = static_cast<size_t>(-1);

  // Readable listing of entries [from, to) (to = npos: the end); of a longer
  // range, the first and last kDumpEntries / 2, and how many lie between.
  std::string dump(size_t from = 0, size_t to = npos) const;

 private:
  std::vector<Access> entries_;
  size_t capacity_ = kDefaultCapacity;
  uint64_t dropped_ = 0;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_ACCESS_LOG_H_
