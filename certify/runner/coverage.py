"""Line and branch coverage of the implementation under test under everything
a certification ran: clang source-based coverage (the binaries built with
--config=coverage, tools/certify --coverage), merged with llvm-profdata and
read with llvm-cov, restricted to the implementation's own files.

The result is a dict (identity["coverage"] of the report) and, in the
package's coverage/ folder, the lcov export and a text report that lists the
lines nothing executed.
"""

import glob
import os
import subprocess

PROFDATA = ("llvm-profdata-14", "llvm-profdata")
COV = ("llvm-cov-14", "llvm-cov")


def _tool(names):
    for n in names:
        for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
            if os.path.exists(os.path.join(d, n)):
                return os.path.join(d, n)
    return None


def enable(raw_dir):
    """Every process started after this writes its profile into raw_dir."""
    os.makedirs(raw_dir, exist_ok=True)
    os.environ["LLVM_PROFILE_FILE"] = os.path.join(raw_dir, "%p-%m.profraw")


def _matches(path, wanted):
    """The wanted source a covered path is, if any. Headers of libraries with
    an include prefix are compiled from bazel-out/.../bin/<package>/
    _virtual_includes/<library>/<include path>, a link to <package>/.../<include path>."""
    if "/_virtual_includes/" in path:
        before, after = path.split("/_virtual_includes/", 1)
        package = before.split("/bin/", 1)[-1]
        include = after.split("/", 1)[-1]
        for w in wanted:
            if w == package + "/" + include or (
                    w.startswith(package + "/") and w.endswith("/" + include)):
                return w
        return None
    for w in wanted:
        if path == w or path.endswith("/" + w):
            return w
    return None


def parse_lcov(text, wanted):
    """{source: {lines, lines_hit, branches, branches_hit, uncovered}} for the
    files of the lcov text that are `wanted`. A header reached through several
    include paths appears once per path; its lines and branches are merged
    (hit if any path hit them)."""
    lines, branches, current = {}, {}, None
    for line in text.splitlines():
        if line.startswith("SF:"):
            current = _matches(line[3:], wanted)
            if current:
                lines.setdefault(current, {})
                branches.setdefault(current, {})
        elif current is None:
            continue
        elif line.startswith("DA:"):
            number, count = line[3:].split(",")[:2]
            n = int(number)
            lines[current][n] = lines[current].get(n, False) or int(count) > 0
        elif line.startswith("BRDA:"):
            key, taken = tuple(line[5:].split(",")[:3]), line.split(",")[-1]
            branches[current][key] = branches[current].get(key, False) or taken not in ("-", "0")
    out = {}
    for f in lines:
        out[f] = {"lines": len(lines[f]), "lines_hit": sum(lines[f].values()),
                  "branches": len(branches[f]), "branches_hit": sum(branches[f].values()),
                  "uncovered": ranges(sorted(n for n, hit in lines[f].items() if not hit))}
    return out


def ranges(numbers):
    """[3, 4, 5, 9] -> "3-5,9"."""
    parts, start, prev = [], None, None
    for n in numbers + [None]:
        if start is not None and (n is None or n != prev + 1):
            parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = None
        if n is not None and start is None:
            start = n
        prev = n
    return ",".join(parts)


def report(raw_dir, binaries, sources, out_dir):
    """Merges the profiles and reports coverage of `sources` (paths as the
    build saw them, e.g. core/common/spsq_endpoint.h) in the instrumented
    `binaries`. Returns the coverage dict, or {"error": why}."""
    profdata, cov = _tool(PROFDATA), _tool(COV)
    if not profdata or not cov:
        return {"error": "llvm-profdata/llvm-cov not found (Debian package llvm-14)"}
    raws = glob.glob(os.path.join(raw_dir, "*.profraw"))
    if not raws:
        return {"error": "no profiles were written: the binaries were not built with "
                         "--config=coverage"}
    if not sources:
        return {"error": "the certification names no implementation files (impl_files)"}
    os.makedirs(out_dir, exist_ok=True)
    merged = os.path.join(out_dir, "merged.profdata")
    proc = subprocess.run([profdata, "merge", "-sparse", "-o", merged] + raws,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        return {"error": "llvm-profdata merge failed: " + proc.stdout.strip()[-400:]}
    objects = []
    for b in binaries:
        objects += (["-object", b] if objects else [b])
    proc = subprocess.run([cov, "export", "-format=lcov", "-instr-profile=" + merged] + objects,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return {"error": "llvm-cov export failed: " + proc.stderr.strip()[-400:]}
    with open(os.path.join(out_dir, "coverage.lcov"), "w") as f:
        f.write(proc.stdout)
    files = parse_lcov(proc.stdout, sources)
    os.remove(merged)
    total = {k: sum(f[k] for f in files.values())
             for k in ("lines", "lines_hit", "branches", "branches_hit")}
    never = sorted(s for s in sources if s not in files and s.endswith((".h", ".cc", ".cpp")))
    result = {"files": files, "total": total, "not_compiled_in": never}
    with open(os.path.join(out_dir, "uncovered.txt"), "w") as f:
        f.write(render_text(result))
    return result


def _pct(hit, n):
    return "%.1f%%" % (100.0 * hit / n) if n else "-"


def render_text(cov):
    lines = ["file  lines  branches  uncovered lines"]
    for path, f in sorted(cov.get("files", {}).items()):
        lines.append("%s  %s (%d/%d)  %s (%d/%d)  %s" % (
            path, _pct(f["lines_hit"], f["lines"]), f["lines_hit"], f["lines"],
            _pct(f["branches_hit"], f["branches"]), f["branches_hit"], f["branches"],
            f["uncovered"] or "none"))
    return "\n".join(lines) + "\n"


def render_markdown(cov):
    if not cov:
        return ""
    lines = ["", "## Coverage of the implementation", ""]
    if cov.get("error"):
        return "\n".join(lines + ["Not measured: " + cov["error"], ""])
    t = cov["total"]
    lines += ["Lines %s (%d of %d), branches %s (%d of %d), under everything the certification "
              "ran (clang source-based coverage; `coverage/coverage.lcov` in the package)." % (
                  _pct(t["lines_hit"], t["lines"]), t["lines_hit"], t["lines"],
                  _pct(t["branches_hit"], t["branches"]), t["branches_hit"], t["branches"]),
              "", "| file | lines | branches | lines never executed |", "|---|---|---|---|"]
    for path, f in sorted(cov["files"].items()):
        lines.append("| %s | %s | %s | %s |" % (path, _pct(f["lines_hit"], f["lines"]),
                                               _pct(f["branches_hit"], f["branches"]),
                                               f["uncovered"] or "none"))
    if cov.get("not_compiled_in"):
        lines.append("\nNot in any binary the certification ran: " +
                     ", ".join(cov["not_compiled_in"]))
    return "\n".join(lines) + "\n"
