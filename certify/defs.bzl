"""The certification macros, the one file a certification loads:

    load("//certify:defs.bzl", "spsq_l2_certification")

spsq_l2_certification (l2.bzl) certifies an L2 endpoint,
spsq_l3_certification (l3.bzl) an L3 queue, spsq_runtime_certification
(runtime.bzl) an Orchestrator, spsq_python_certification (python.bzl) a
Python module through its Python tests. The stage lists are common.bzl's;
the section lists are the suites' (//conformance:sections.bzl), passed on here
so that a certification still loads this one file.
"""

load(
    "//conformance:sections.bzl",
    _ALL_SECTIONS = "ALL_SECTIONS",
    _FIRST_WINDOW_SECTIONS = "FIRST_WINDOW_SECTIONS",
    _L2_TYPED_SECTIONS = "L2_TYPED_SECTIONS",
    _L3_SUITE_SECTIONS = "L3_SUITE_SECTIONS",
    _ONCE_SECTIONS = "ONCE_SECTIONS",
    _OWN_VIEW_ORDER = "OWN_VIEW_ORDER",
    _SPEC_SECTIONS = "SPEC_SECTIONS",
)
load(
    ":common.bzl",
    _DEFAULT_HDRS = "DEFAULT_HDRS",
    _L2_STAGES = "L2_STAGES",
    _L3_STAGES = "L3_STAGES",
)
load(":l2.bzl", _spsq_l2_certification = "spsq_l2_certification")
load(":l3.bzl", _spsq_l3_certification = "spsq_l3_certification")
load(":python.bzl", _spsq_python_certification = "spsq_python_certification")
load(":runtime.bzl", _spsq_runtime_certification = "spsq_runtime_certification")

spsq_l2_certification = _spsq_l2_certification
spsq_l3_certification = _spsq_l3_certification
spsq_python_certification = _spsq_python_certification
spsq_runtime_certification = _spsq_runtime_certification

ALL_SECTIONS = _ALL_SECTIONS
DEFAULT_HDRS = _DEFAULT_HDRS
FIRST_WINDOW_SECTIONS = _FIRST_WINDOW_SECTIONS
L2_STAGES = _L2_STAGES
L2_TYPED_SECTIONS = _L2_TYPED_SECTIONS
L3_STAGES = _L3_STAGES
L3_SUITE_SECTIONS = _L3_SUITE_SECTIONS
ONCE_SECTIONS = _ONCE_SECTIONS
OWN_VIEW_ORDER = _OWN_VIEW_ORDER
SPEC_SECTIONS = _SPEC_SECTIONS
