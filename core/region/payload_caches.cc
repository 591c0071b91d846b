#include "region/payload_caches.h"

namespace spsq_runtime {
namespace {

PayloadCaches g_caches;

}  // namespace

void set_payload_caches(const PayloadCaches& caches) { g_caches = caches; }

const PayloadCaches& payload_caches() { return g_caches; }

}  // namespace spsq_runtime
