#include "testkit/access_log.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace spsq_conf {

const char* access_kind_name(AccessKind kind) {
  switch (kind) {
    case AccessKind::kRead: return "read";
    case AccessKind::kWrite: return "write";
    case AccessKind::kNotify: return "notify";
    case AccessKind::kTest: return "test";
    case AccessKind::kWait: return "wait";
    case AccessKind::kUnaccountedStore: return "unaccounted-store";
    case AccessKind::kL2CodeStore: return "l2-code-store";
    case AccessKind::kViolation: return "VIOLATION";
    case AccessKind::kInjectedFault: return "injected-fault";
  }
  return "?";
}

std::string Access::describe() const {
  char text[320];
  const char* part_name = part == 0 ? "payload" : "counter";
  switch (kind) {
    case AccessKind::kNotify:
      std::snprintf(text, sizeof(text), "notify counter@%" PRIu64 " %s %d%s", offset,
                    op == 0 ? "Set" : (op == 1 ? "Add" : "op?"), value, ok ? "" : " -> false");
      break;
    case AccessKind::kTest:
      std::snprintf(text, sizeof(text), "test counter@%" PRIu64 " cmp%u %d -> observed %d%s",
                    offset, op, value, observed, ok ? " matched" : "");
      break;
    case AccessKind::kWait:
      std::snprintf(text, sizeof(text),
                    "wait counter@%" PRIu64 " cmp%u %d timeout %" PRIu64 "ns -> %s observed %d",
                    offset, op, value, timeout_ns, ok ? "true" : "false", observed);
      break;
    default:
      std::snprintf(text, sizeof(text), "%s %s[%" PRIu64 ", +%" PRIu64 ")%s",
                    access_kind_name(kind), part_name, offset, nbytes, ok ? "" : " -> false");
  }
  std::string s = text;
  if (!note.empty()) s += "  (" + note + ")";
  return s;
}

size_t AccessLog::shared_accesses_since(size_t from) const {
  size_t n = 0;
  for (size_t i = from; i < entries_.size(); ++i) n += entries_[i].is_shared_access() ? 1 : 0;
  return n;
}

size_t AccessLog::count_kind(AccessKind kind, size_t from) const {
  return count([kind](const Access& a) { return a.kind == kind; }, from);
}

size_t AccessLog::written_by(size_t from, uint64_t off, uint64_t n) const {
  std::vector<bool> covered(n, false);
  uint64_t left = n;
  for (size_t i = from; i < entries_.size() && left != 0; ++i) {
    const Access& a = entries_[i];
    if (a.kind != AccessKind::kWrite || !a.ok) continue;
    const uint64_t lo = std::max(a.offset, off);
    const uint64_t hi = std::min(a.offset + a.nbytes, off + n);
    for (uint64_t b = lo; b < hi; ++b) {
      if (!covered[b - off]) {
        covered[b - off] = true;
        --left;
      }
    }
    if (left == 0) return i;
  }
  return npos;
}

std::string AccessLog::dump(size_t from, size_t to) const {
  if (to == npos || to > entries_.size()) to = entries_.size();
  std::string out;
  char prefix[96];
  const size_t half = kDumpEntries / 2;
  for (size_t i = from; i < to; ++i) {
    if (to - from > kDumpEntries && i == from + half) {
      const size_t skip = to - from - 2 * half;
      std::snprintf(prefix, sizeof(prefix), "  ... %zu entries not listed ...\n", skip);
      out += prefix;
      i += skip - 1;
      continue;
    }
    std::snprintf(prefix, sizeof(prefix), "  #%zu t=%" PRIu64 " ", i, entries_[i].time_ns);
    out += prefix + entries_[i].describe() + "\n";
  }
  if (to == entries_.size() && dropped_ != 0) {
    std::snprintf(prefix, sizeof(prefix), "  ... and %" PRIu64 " more, not kept (log full)\n",
                  dropped_);
    out += prefix;
  }
  return out;
}

}  // namespace spsq_conf
