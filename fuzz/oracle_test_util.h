// Assertions on oracle verdicts for the oracles' unit tests.
#ifndef SPSQ_FUZZ_ORACLE_TEST_UTIL_H_
#define SPSQ_FUZZ_ORACLE_TEST_UTIL_H_

#include "fuzz/oracle_verdict.h"
#include "gtest/gtest.h"

// The observation passes: no finding (a reading may be stated).
#define EXPECT_PASSES(expr)                                                                  \
  do {                                                                                       \
    const ::spsq_fuzz::Verdict v_ = (expr);                                                  \
    EXPECT_FALSE(v_.failed()) << v_.clauses << ": " << ::spsq_fuzz::Verdict::finding().text; \
  } while (0)

// The observation is a finding of exactly these clauses.
#define EXPECT_FINDING(expr, ids)             \
  do {                                        \
    const ::spsq_fuzz::Verdict v_ = (expr);   \
    ASSERT_TRUE(v_.failed()) << "no finding"; \
    EXPECT_STREQ(v_.clauses, ids);            \
  } while (0)

#endif  // SPSQ_FUZZ_ORACLE_TEST_UTIL_H_
