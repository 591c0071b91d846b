"""The reference L2 endpoint's files, relative to core/: the one list.

core/BUILD compiles //core:wire, //core:region_view_types and //core:endpoint
from these lists; the reference certification hashes them into its package
(//core:reference_files); mutants and legal variants copy and edit them
(//selftest:edited_reference.bzl). //core:reference_files_test fails when a
file under common/ or aicpu/, or any source file //core:endpoint compiles, is
not listed here.
"""

WIRE_SRCS = [
    "common/spsq_binding.cc",
    "common/spsq_constants.cc",
    "common/spsq_error.cc",
    "common/spsq_layout.cc",
]

WIRE_HDRS = [
    "common/spsq_arena.h",
    "common/spsq_binding.h",
    "common/spsq_clock.h",
    "common/spsq_constants.h",
    "common/spsq_counter.h",
    "common/spsq_descriptor.h",
    "common/spsq_error.h",
    "common/spsq_layout.h",
    "common/spsq_wire.h",
]

VIEW_TYPES_HDRS = ["aicpu/region_view_types.h"]

ENDPOINT_SRCS = ["aicpu/region_instance_view.cc"]

ENDPOINT_HDRS = [
    "aicpu/region_instance_view.h",
    "common/region_template.h",
    "common/spsc_queue_endpoint.h",
    "common/spsq_consumer.h",
    "common/spsq_direction.h",
    "common/spsq_endpoint_state.h",
    "common/spsq_handles.h",
    "common/spsq_producer.h",
    "common/spsq_validate.h",
]

REFERENCE_FILES = sorted(WIRE_SRCS + WIRE_HDRS + VIEW_TYPES_HDRS + ENDPOINT_SRCS + ENDPOINT_HDRS)
