// An ordered record of every shared-memory access a test view served, so a
// test can assert the exact sequence an endpoint produced (payload write,
// flush, descriptor body, seq, tail) or that it touched nothing at all.
#ifndef SPSQ_TESTING_ACCESS_LOG_H_
#define SPSQ_TESTING_ACCESS_LOG_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace spsq_testing {

enum class AccessKind : uint32_t {
  kPayloadRead,
  kPayloadWrite,
  kFlush,  // logged right after the write it makes visible
  kCounterNotify,
  kCounterTest,
  kCounterWait,
};

inline const char* access_kind_name(AccessKind k) {
  switch (k) {
    case AccessKind::kPayloadRead: return "read";
    case AccessKind::kPayloadWrite: return "write";
    case AccessKind::kFlush: return "flush";
    case AccessKind::kCounterNotify: return "notify";
    case AccessKind::kCounterTest: return "test";
    case AccessKind::kCounterWait: return "wait";
  }
  return "?";
}

struct Access {
  AccessKind kind;
  uint64_t offset;   // in the payload part (read/write/flush) or counter part
  uint64_t nbytes;   // payload accesses; 4 for counters
  int32_t value;     // notify value or test/wait comparison value
  uint32_t mode;     // RegionNotifyOp or RegionWaitCmp as an integer
  bool ok;           // false when the view refused the call

  std::string str() const {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "%s@%llu+%llu v=%d m=%u%s", access_kind_name(kind),
                  static_cast<unsigned long long>(offset), static_cast<unsigned long long>(nbytes),
                  value, mode, ok ? "" : " FAILED");
    return buf;
  }
};

class AccessLog {
 public:
  void add(const Access& a) { entries_.push_back(a); }
  void clear() { entries_.clear(); }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const Access& operator[](size_t i) const { return entries_[i]; }
  const std::vector<Access>& entries() const { return entries_; }

  size_t count(AccessKind kind) const {
    size_t n = 0;
    for (const Access& a : entries_) n += a.kind == kind;
    return n;
  }
  size_t count(AccessKind kind, uint64_t offset) const {
    size_t n = 0;
    for (const Access& a : entries_) n += a.kind == kind && a.offset == offset;
    return n;
  }
  // Notify values written to one counter slot, in order.
  std::vector<int32_t> notified(uint64_t offset) const {
    std::vector<int32_t> v;
    for (const Access& a : entries_) {
      if (a.kind == AccessKind::kCounterNotify && a.offset == offset && a.ok) v.push_back(a.value);
    }
    return v;
  }
  // Only the entries of the given kinds, in order (e.g. drop reads).
  std::vector<Access> only(std::initializer_list<AccessKind> kinds) const {
    std::vector<Access> v;
    for (const Access& a : entries_) {
      for (AccessKind k : kinds) {
        if (a.kind == k) {
          v.push_back(a);
          break;
        }
      }
    }
    return v;
  }

  std::string str() const {
    std::string s;
    for (const Access& a : entries_) s += a.str() + "\n";
    return s;
  }

 private:
  std::vector<Access> entries_;
};

}  // namespace spsq_testing

#endif  // SPSQ_TESTING_ACCESS_LOG_H_
