"""spsq_interleave_test: the systematic interleaving test against one L2 endpoint.

endpoint: a cc_library providing "common/region_template.h" and
"aicpu/region_instance_view.h" (the reference, a mutant or a third party).
expect_bug: the endpoint is a mutant; the test passes only if a failing
schedule is found and replays deterministically.
"""

def spsq_interleave_test(name, endpoint, expect_bug = False, **kwargs):
    native.cc_test(
        name = name,
        size = "medium",
        srcs = [
            "//sanitizers/interleave:interleave_test.cc",
            "//sanitizers/interleave:l2_scenarios.h",
        ],
        copts = ["-DSPSQ_EXPECT_BUG=1"] if expect_bug else [],
        deps = [
            endpoint,
            "//sanitizers/interleave:scheduler",
            "@gtest//:gtest_main",
        ],
        **kwargs
    )
