// What most test sources parse first: GoogleTest and the standard library
// parts it pulls in. Force-included (-include) into the sources that depend
// on @gtest//:gtest; under g++ a precompiled copy (gtest_pch.h.gch, built by
// //third_party/pch with the source's own flags) replaces the parse.
#ifndef SPSQ_THIRD_PARTY_PCH_GTEST_PCH_H_
#define SPSQ_THIRD_PARTY_PCH_GTEST_PCH_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#endif  // SPSQ_THIRD_PARTY_PCH_GTEST_PCH_H_
