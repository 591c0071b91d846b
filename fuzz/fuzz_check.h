// Invariant checks for harnesses: a broken invariant names itself on stderr
// and aborts, which every engine (libFuzzer, AFL++, the replay test) reports
// as a crash with the input attached.
//
// SPSQ_FUZZ_CLAUSE_CHECK names the catalogue clauses (conformance/clauses.json)
// the invariant judges, so a certification stage turns a crash into a FAIL of
// exactly those clauses. The line it prints is the stage's protocol:
//
//   spsq-finding: clauses=S2.DESC.3,W.ARENA.2 at fuzz/l2_stream_fuzz.cc:120: <cond>
//     <message>
//
// SPSQ_FUZZ_CHECK is for the harness's own consistency (a broken one is a
// harness defect, not the endpoint's): its line names no clause.
//
// SPSQ_FUZZ_READING states which reading of an open point or ambiguity (an
// OPEN.* or AMB.* clause with readings) the implementation took, where the
// harness accepts several. It never aborts; the line, printed once per
// process for each clause and reading, is the stage protocol every stage
// shares (certify/runner/stages.py turns it into that clause's reading):
//
//   spsq-reading: AMB.WAITFALSE=B at fuzz/l2_stream_fuzz.cc:660: <detail>
#ifndef SPSQ_FUZZ_FUZZ_CHECK_H_
#define SPSQ_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define SPSQ_FUZZ_CLAUSE_CHECK(clauses, cond, ...)                                    \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "spsq-finding: clauses=%s at %s:%d: %s\n  ", clauses,      \
                   __FILE__, __LINE__, #cond);                                        \
      std::fprintf(stderr, __VA_ARGS__);                                              \
      std::fprintf(stderr, "\n");                                                     \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

#define SPSQ_FUZZ_CHECK(cond, ...)                                                            \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "spsq fuzz invariant failed at %s:%d: %s\n  ", __FILE__, __LINE__, \
                   #cond);                                                                    \
      std::fprintf(stderr, __VA_ARGS__);                                                      \
      std::fprintf(stderr, "\n");                                                             \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

#define SPSQ_FUZZ_READING(clause, letter, ...)                                      \
  do {                                                                              \
    static bool spsq_fuzz_reading_said_ = false;                                    \
    if (!spsq_fuzz_reading_said_) {                                                 \
      spsq_fuzz_reading_said_ = true;                                               \
      std::fprintf(stderr, "spsq-reading: %s=%s at %s:%d: ", clause, letter,        \
                   __FILE__, __LINE__);                                             \
      std::fprintf(stderr, __VA_ARGS__);                                            \
      std::fprintf(stderr, "\n");                                                   \
    }                                                                               \
  } while (0)

// Marks harness-side verification code that the fuzzer should not steer by:
// its comparisons only confirm results, and tracing them costs exec/s.
// (noinline: instrumentation runs after inlining and would trace an inlined copy.)
#if defined(__clang__) && __clang_major__ >= 13
#define SPSQ_FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage"), noinline))
#else
#define SPSQ_FUZZ_NO_COVERAGE
#endif

#endif  // SPSQ_FUZZ_FUZZ_CHECK_H_
