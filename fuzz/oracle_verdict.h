// What an oracle says about one observation: nothing, a reading of an open
// point it saw taken, or a finding of the clauses the observation breaks.
//
// Oracles (fuzz/*_oracles.h) are plain functions of plain observations, so a
// unit test can feed them a right and a wrong one; the harness hands each
// verdict to SPSQ_FUZZ_REPORT, which prints the stage protocol lines of
// fuzz_check.h (spsq-finding / spsq-reading) and aborts on a finding. The
// location printed is the oracle's check, as it was the harness's before.
//
// Inside an oracle:
//   Verdict v;
//   SPSQ_ORACLE_CHECK(v, "S3.TO.8", waited >= full, "returned after %" PRIu64, waited);
//   SPSQ_ORACLE_READING(v, "AMB.WAITFALSE", "A", "waited again");
//   return v;
// A check that fails returns at once, keeping a reading stated before it.
#ifndef SPSQ_FUZZ_ORACLE_VERDICT_H_
#define SPSQ_FUZZ_ORACLE_VERDICT_H_

// Declares an oracle. Oracles are harness-side verification, as the checks
// fuzz_check.h marks SPSQ_FUZZ_NO_COVERAGE: never traced by the fuzzer, yet
// inlinable into those checks (whose inlined copies are not traced either),
// since they run on every step.
#if defined(__clang__) && __clang_major__ >= 13
#define SPSQ_ORACLE inline __attribute__((no_sanitize("coverage")))
#else
#define SPSQ_ORACLE inline
#endif

namespace spsq_fuzz {

// Where the latest finding or reading was formed, and its text. One of each
// lives in static storage until the next is formed: harnesses report at
// once, tests read at once, and a passing verdict stays two null pointers
// (returned in registers on the fuzzers' hot path).
struct OracleNote {
  const char* file = nullptr;
  int line = 0;
  const char* what = nullptr;  // a finding's condition, a reading's letter
  char text[512] = {};
};

struct Verdict {
  const char* clauses = nullptr;  // a finding: the clauses broken
  const char* reading = nullptr;  // a reading stated: its clause

  bool failed() const { return clauses != nullptr; }
  bool said() const { return clauses != nullptr || reading != nullptr; }
  static const OracleNote& finding();
  static const OracleNote& stated();

  void fail(const char* ids, const char* file, int line, const char* cond, const char* fmt, ...)
      __attribute__((format(printf, 6, 7)));
  void read(const char* clause, const char* letter, const char* file, int line, const char* fmt,
            ...) __attribute__((format(printf, 6, 7)));
};

// Prints the verdict's reading (once per process for each clause and
// letter) and its finding, then aborts on a finding.
void report_verdict(const Verdict& v);

}  // namespace spsq_fuzz

#define SPSQ_ORACLE_CHECK(verdict, ids, cond, ...)                 \
  do {                                                             \
    if (!(cond)) {                                                 \
      (verdict).fail(ids, __FILE__, __LINE__, #cond, __VA_ARGS__); \
      return verdict;                                              \
    }                                                              \
  } while (0)

#define SPSQ_ORACLE_READING(verdict, clause, letter, ...) \
  (verdict).read(clause, letter, __FILE__, __LINE__, __VA_ARGS__)

// The harness side: every verdict goes through here (the common pass costs
// one test of two pointers).
#define SPSQ_FUZZ_REPORT(verdict_expr)                              \
  do {                                                              \
    const ::spsq_fuzz::Verdict spsq_fuzz_verdict_ = (verdict_expr); \
    if (spsq_fuzz_verdict_.said()) {                                \
      ::spsq_fuzz::report_verdict(spsq_fuzz_verdict_);              \
    }                                                               \
  } while (0)

#endif  // SPSQ_FUZZ_ORACLE_VERDICT_H_
