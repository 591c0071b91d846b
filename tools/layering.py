"""The repository's dependencies run one way: every Bazel target depends only on
its own layer and the layers LAYERS lets it use.

A target's layer is decided by, in order:
  1. TARGET_LAYERS and TARGET_LAYER_PATTERNS: single targets whose layer is
     not their folder's, each with its reason;
  2. the certification macros: every target one of them generates is an
     instance of the runner, layer "certifications" wherever its BUILD file
     is, unless its folder's layer is above that (examples, selftest);
  3. core's tests: a test or testonly target under //core is "core_tests";
  4. its package: the longest prefix in FOLDERS.
A generated file takes the layer of the rule that generates it.

`bazel query 'deps(//...)'` gives the edges (check), and the tests below feed
synthetic graphs to the same functions (layering_test.py).

usage: python3 tools/layering.py            # from the checkout: queries Bazel
       python3 tools/layering.py GRAPH INSTANCES CORE_TESTS   # from files
"""

import re
import subprocess
import sys

# layer -> the layers it may depend on (besides itself). The order is the
# architecture; a reader finds each layer's folders in FOLDERS.
LAYERS = {
    # The reference queue, and the harness's own wire model and instruments,
    # which are written from the spec and never include the reference.
    "core": set(),
    "model": set(),
    "testkit": {"model"},
    "testee_libs": set(),
    "data": set(),  # the docs, the vendored spec, the catalogue, corpora, build wrappers
    # Core's tests use the instruments (and the runtime's cache simulation
    # wraps the core runtime in the coherence model, for those tests and for
    # the interop peer).
    "core_tests": {"core", "model", "testkit", "data"},
    # The suites, and the stages beyond them. The suites reach core only as a
    # peer: the interop stage runs an endpoint against the reference runtime.
    "conformance": {"core", "core_tests", "model", "testkit", "data"},
    "fuzz": {"conformance", "core", "core_tests", "model", "testkit", "data"},
    "sanitizers": {"conformance", "fuzz", "core", "core_tests", "model", "testkit", "data"},
    "bench": {"core", "model", "testkit", "testee_libs", "data"},
    # The runner: macros, runner scripts, the testee driver.
    "certify": {"conformance", "fuzz", "sanitizers", "bench", "core", "core_tests", "model",
                "testkit", "testee_libs", "data"},
    # What the runner certifies: the reference's certifications and the
    # targets built on them, the Python module, the reference testee.
    "certifications": {"certify", "python", "conformance", "fuzz", "sanitizers", "bench", "core",
                       "core_tests", "model", "testkit", "testee_libs", "data"},
    # The Python module over the core, and its tests (the Python suite's
    # files are conformance's).
    "python": {"conformance", "core", "core_tests", "model", "testkit", "testee_libs", "data"},
    "cli": {"core", "model", "testkit", "data"},
    "examples": {"certifications", "python", "certify", "conformance", "fuzz", "sanitizers", "bench",
                 "core", "core_tests", "model", "testkit", "testee_libs", "data"},
    # The suite's self-test: edited references it must catch or accept.
    "selftest": {"examples", "certifications", "python", "certify", "conformance", "fuzz", "sanitizers",
                 "bench", "cli", "core", "core_tests", "model", "testkit", "testee_libs", "data"},
    "tools": {"core", "model", "testkit", "data"},
}

# package prefix -> layer; the longest prefix wins.
FOLDERS = {
    "//": "data",
    "//core": "core",
    "//core/tests": "core_tests",
    "//model": "model",
    "//testkit": "testkit",
    "//testkit/coherence": "testkit",
    "//testee": "testee_libs",
    "//testee/reference": "certifications",
    "//conformance": "conformance",
    "//conformance/spec": "data",
    "//corpora": "data",
    "//third_party": "data",
    "//fuzz": "fuzz",
    "//sanitizers": "sanitizers",
    "//bench": "bench",
    "//certify": "certify",
    "//certifications": "certifications",
    "//python": "python",
    "//cli": "cli",
    "//examples": "examples",
    # The spec's section 5 example over the reference runtime: core's example,
    # which core's and the module's tests run.
    "//examples/workers": "core_tests",
    "//selftest": "selftest",
    "//tools": "tools",
}

# Targets whose layer is not their folder's, each with the reason. Every entry
# is a known debt the layout has not yet paid; none may be added lightly.
TARGET_LAYERS = {
    # The runtime cache simulation wraps core's runtime in the coherence model.
    "//testkit/coherence:runtime_caches": "core_tests",
    "//testkit/coherence:runtime_caches_from_env": "core_tests",
    "//testkit/coherence:runtime_caches_test": "core_tests",
}
# The reference's own stage targets, built on its certification's config:
# certifications of the reference that stand beside their stage's code (the
# fuzz target the fuzz tools run, the explorer's and the stress tests' runs).
for _t in ("//fuzz:l2_stream_harness", "//fuzz:l2_stream", "//fuzz:l2_stream_regression",
           "//sanitizers/interleave:reference_interleave_test",
           "//sanitizers/interleave:reference_visibility_test",
           "//sanitizers/stress:two_thread_stress_test",
           "//sanitizers/stress:cross_process_stress_test"):
    TARGET_LAYERS[_t] = "certifications"
# The driver protocol's round trip, measured against the reference testee.
TARGET_LAYERS["//bench:testee_round_trip"] = "certifications"

TARGET_LAYER_PATTERNS = [
    (re.compile(r"^//sanitizers/stress:(two_thread|cross_process)_stress_mi\d+_test$"),
     "certifications"),
    # The runtime's orchestrator test, rebuilt under each coherence policy.
    (re.compile(r"^//testkit/coherence:orchestrator_test_"), "core_tests"),
]

# The macros whose targets are certifications (instances of the runner).
CERT_MACROS = ("spsq_l2_certification", "spsq_l3_certification", "spsq_runtime_certification",
               "spsq_python_certification")

EDGE = re.compile(r'^\s*"([^"]+)"\s*->\s*"([^"]+)"\s*$')
NODE = re.compile(r'^\s*"([^"]+)"\s*$')


def package(label):
    return label.split(":", 1)[0]


def folder_layer(label):
    """The layer FOLDERS gives a label's package, or None."""
    pkg = package(label)
    best = None
    for prefix in FOLDERS:
        if pkg == prefix or pkg.startswith(prefix.rstrip("/") + "/") or prefix == "//":
            if best is None or len(prefix) > len(best):
                best = prefix
    return FOLDERS.get(best) if best else None


def layer_of(label, instances, core_tests):
    if label in TARGET_LAYERS:
        return TARGET_LAYERS[label]
    for pattern, layer in TARGET_LAYER_PATTERNS:
        if pattern.match(label):
            return layer
    if label in instances:
        folder = folder_layer(label)
        return folder if folder in ("examples", "selftest") else "certifications"
    if label in core_tests:
        return "core_tests"
    return folder_layer(label)


def edges(graph_text):
    """(from, to) label pairs of a `bazel query --output=graph` listing, local labels only."""
    out = []
    for line in graph_text.splitlines():
        m = EDGE.match(line)
        if m and m.group(1).startswith("//") and m.group(2).startswith("//"):
            out.append(m.groups())
    return out


def violations(edge_list, instances, core_tests, generated=frozenset()):
    """Edges LAYERS does not allow, as messages. `generated` holds the
    generated files: a generated file's only edge is to its rule."""
    rule_of = {a: b for a, b in edge_list if a in generated}

    def layer(label):
        return layer_of(rule_of.get(label, label), instances, core_tests)

    bad = []
    for a, b in edge_list:
        if a in generated:
            continue
        la, lb = layer(a), layer(b)
        if la is None or lb is None:
            bad.append("%s -> %s: %s has no layer (add its folder to FOLDERS)"
                       % (a, b, a if la is None else b))
        elif la != lb and lb not in LAYERS[la]:
            bad.append("%s -> %s: layer %s may not depend on layer %s" % (a, b, la, lb))
    return bad


def layer_cycles():
    """Cycles in LAYERS itself, each as a list."""
    found, state = [], {}

    def visit(p, path):
        state[p] = 1
        for q in sorted(LAYERS[p]):
            if state.get(q) == 1:
                found.append(path[path.index(q):] + [q])
            elif q not in state:
                visit(q, path + [q])
        state[p] = 2

    for p in sorted(LAYERS):
        if p not in state:
            visit(p, [p])
    return found


def query(expr, output="label"):
    r = subprocess.run(["bazel", "query", expr, "--output=" + output, "--noimplicit_deps",
                        "--nograph:factored", "--keep_going"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode not in (0, 3) or not r.stdout:
        sys.exit("layering: bazel query %r failed:\n%s" % (expr, r.stderr[-2000:]))
    return r.stdout


def main(argv):
    if len(argv) == 5:
        graph, inst, tests, gen = (open(p).read() for p in argv[1:])
    elif len(argv) == 1:
        graph = query("deps(//...)", "graph")
        inst = query('attr(generator_function, "^(%s)$", //...)' % "|".join(CERT_MACROS))
        tests = query('kind(".*_test$", //core/...) + attr(testonly, 1, //core/...)')
        gen = query('kind("generated file", deps(//...))')
    else:
        sys.exit(__doc__)
    bad = layer_cycles() and ["LAYERS has a cycle: %s" % " -> ".join(c) for c in layer_cycles()]
    e = edges(graph)
    bad = (bad or []) + violations(e, set(inst.split()), set(tests.split()), set(gen.split()))
    for line in bad:
        print(line)
    print("layering: %d edges, %d outside the layers" % (len(e), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
