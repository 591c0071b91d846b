// Invariant checks for harnesses: a broken invariant names itself on stderr
// and aborts, which every engine (libFuzzer, AFL++, the replay test) reports
// as a crash with the input attached.
#ifndef SPSQ_FUZZ_FUZZ_CHECK_H_
#define SPSQ_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

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

// Marks harness-side verification code that the fuzzer should not steer by:
// its comparisons only confirm results, and tracing them costs exec/s.
// (noinline: instrumentation runs after inlining and would trace an inlined copy.)
#if defined(__clang__) && __clang_major__ >= 13
#define SPSQ_FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage"), noinline))
#else
#define SPSQ_FUZZ_NO_COVERAGE
#endif

#endif  // SPSQ_FUZZ_FUZZ_CHECK_H_
