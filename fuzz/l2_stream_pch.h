// What fuzz/l2_stream_fuzz.cc includes before the endpoint: the harness's own
// headers and the standard library, none of which depends on the endpoint
// under test. The certification macros compile the harness once per
// endpoint, so it is force-included (-include, fuzz/l2_stream.bzl) and, under
// g++, read precompiled (//fuzz:l2_stream_pch): about 0.4 s of each of those
// compiles is this parse.
#ifndef SPSQ_FUZZ_L2_STREAM_PCH_H_
#define SPSQ_FUZZ_L2_STREAM_PCH_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "model/wire_model.h"
#include "fuzz/fuzz_bytes.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_memory.h"
#include "fuzz/fuzz_time.h"
#include "fuzz/fuzz_view.h"
#include "fuzz/hostile_peer.h"
#include "fuzz/l2_stream_input.h"
#include "fuzz/l2_stream_oracles.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/stream_oracles.h"
#include "fuzz/stream_skeleton.h"
#include "fuzz/wire_model.h"

#endif  // SPSQ_FUZZ_L2_STREAM_PCH_H_
