"""The reference runtime's Orchestrator library, relative to core/runtime/: the one list.

core/runtime/BUILD compiles //core/runtime:orchestrator from it; runtime mutants
copy and edit these files (//selftest/mutants:mutants.bzl, through
//selftest:edited_reference.bzl) and build them with the same deps.
"""

ORCHESTRATOR_SRCS = ["orchestrator.cc"]

ORCHESTRATOR_HDRS = [
    "orchestrator.h",
    "spsc_queue_region_template.h",
]

ORCHESTRATOR_FILES = sorted(ORCHESTRATOR_SRCS + ORCHESTRATOR_HDRS)

ORCHESTRATOR_DEPS = [
    "//core/runtime:region_template_coordinator",
    "//core/region",
    "//core/runtime:worker",
    "//core:endpoint",
    "//core:wire",
    "//core/l3:worker_chip_queue",
]

# The chip worker (//core/runtime:worker), relative to core/runtime/.
WORKER_FILES = [
    "chip_worker.cc",
    "chip_worker.h",
    "steady_clock.h",
]

WORKER_DEPS = [
    "//core/runtime:task",
    "//core:wire",
    "//core/region",
]
