"""report.html: the certification's verdicts as one self-contained page.

The page opens with what needs action (action.py): each FAIL clause with
its first assertion, reproducer and re-run command, or one line saying there
is none; then the runner's unexpected results and the UNTESTED clauses by
reason. The clause matrix follows (one row per clause, one column per
MaxInflight configuration and stage: the suite's sections, interop, the wrap
run) with, per clause, a drill-down: the spec sentence, the requirement, the
tests that judged it, every failing assertion with the decoded region, and
the command that re-runs the test alone. Then the stages, one folded row per
stage kind that opens on its runs. No network, no external files: it opens
from the package as it is.

  python3 certify/runner/report_html.py report.json > report.html

Opening the page with #clause=<ID> unfolds that clause's drill-down.
"""

import html
import json
import sys

import action
import stages as S

# A binary's section -> the stage column it belongs to, where the report
# does not say (reports written before binaries carried their stage).
STAGE_OF_SECTION = {"interop": "interop", "l3_interop": "interop", "wrap": "wrap"}
STAGES = ("suite", "interop", "wrap", "noncoherent", "explorer", "tsan", "corpus", "fuzz")

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
th{background:#f3f3f3;position:sticky;top:0}
.v-PASS{background:#d9f2d9}.v-FAIL{background:#f8c9c9;font-weight:bold}
.v-INTERPRETATION{background:#dde7f7}.v-UNTESTED{background:#fbeec4}
.v-NOT-APPLICABLE{color:#888}.cell{text-align:center;font-size:12px}
tr.clause{cursor:pointer}tr.drill td{background:#fafafa}
tr.drill pre{white-space:pre-wrap;max-height:24em;overflow:auto;background:#fff;
border:1px solid #ddd;padding:4px}
.filters button{margin-right:4px}.hidden{display:none}
#action{border:2px solid #c33;padding:0 1em 1em;margin:1em 0}
#action.no-fail{border-color:#6a6}
.fail-item{border-top:1px solid #ddd;padding-top:.3em}
.fail-item h3{margin:.4em 0;font-size:1.05em}
pre.assertion{white-space:pre-wrap;background:#fff5f5;border:1px solid #e3b3b3;padding:4px;
margin:.3em 0}
.repro{margin:.2em 0}.repro code,.rerun code{background:#f3f3f3;padding:0 3px}
details.stage-kind{border:1px solid #ccc;margin:0 0 -1px}
details.stage-kind>summary{cursor:pointer;padding:2px 6px;list-style:none}
details.stage-kind>summary::before{content:"\\25B8 "}
details.stage-kind[open]>summary::before{content:"\\25BE "}
details.stage-kind table{margin:2px 6px 6px 1.5em}
"""

_JS = """
function toggle(id, open){
  var d=document.getElementById('drill-'+id); if(!d) return;
  var show = open===undefined ? d.classList.contains('hidden') : open;
  d.classList.toggle('hidden', !show);
}
function only(verdict){
  document.querySelectorAll('tr.clause').forEach(function(r){
    var hide = verdict!=='all' && r.dataset.verdict!==verdict;
    r.classList.toggle('hidden', hide);
    if(hide) toggle(r.dataset.id, false);
  });
}
document.querySelectorAll('tr.clause').forEach(function(r){
  r.addEventListener('click', function(){ toggle(r.dataset.id); });
});
function openHash(){
  var m = /#clause=([^&]+)/.exec(location.hash); if(!m) return;
  var id=decodeURIComponent(m[1]); toggle(id, true);
  var row=document.getElementById('row-'+id); if(row) row.scrollIntoView();
}
window.addEventListener('hashchange', openHash);
openHash();
document.body.dataset.rendered = String(document.querySelectorAll('tr.clause').length);
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _stage_of_section(identity):
    out = {}
    for b in identity.get("binaries", []):
        out[b["section"]] = b.get("stage") or STAGE_OF_SECTION.get(b["section"], "suite")
    for r in identity.get("stages", []):
        out.setdefault("%s_%s" % (r["stage"], r["what"]), r["stage"])
    return out


def _stage_rank(stage):
    return STAGES.index(stage) if stage in STAGES else len(STAGES)


def columns(identity):
    """[(max_inflight, stage)]: the suite's per configuration, then one column
    per further stage (MaxInflight 0: not tied to one window)."""
    stage_of = _stage_of_section(identity)
    out = []
    for b in identity.get("binaries", []):
        col = (b["max_inflight"], stage_of[b["section"]])
        if col not in out:
            out.append(col)
    for r in identity.get("stages", []):
        if r["stage"] != "suite" and not any(c[1] == r["stage"] for c in out):
            out.append((0, r["stage"]))
    return sorted(out, key=lambda c: (_stage_rank(c[1]), c[0]))


def _cell_of_test(name, stage_of):
    """(max_inflight, stage) of a test's full name "mi<N>:<section> Suite.Test"."""
    binary = name.split(" ", 1)[0]
    mi, _, section = binary.partition(":")
    try:
        n = int(mi[2:] if mi.startswith("mi") else mi)
    except ValueError:
        return None
    return n, stage_of.get(section, STAGE_OF_SECTION.get(section, "suite"))


def cell_status(row, col, stage_of=None):
    """What the tests of one configuration and stage showed for a clause."""
    stage_of = stage_of or {}
    tests = [t for t in row.get("tests", []) if _cell_of_test(t, stage_of) == col]
    failed = [f for f in row.get("failures", []) if _cell_of_test(f["test"], stage_of) == col]
    if failed:
        return "FAIL", len(tests)
    if not tests:
        return "", 0
    if row["verdict"] in ("UNTESTED", "NOT-APPLICABLE"):
        return row["verdict"], len(tests)
    return "ran", len(tests)


def _run_rows(r):
    """A stage run's row and its findings' rows."""
    budget = " / %d s" % r["budget_s"] if r.get("budget_s") else ""
    rows = ['<tr class="stage v-%s" id="stage-%s-%s"><td>%s</td><td>%s</td>'
            "<td>%.0f s%s</td><td>%d</td><td>%d</td><td>%s</td></tr>" % (
                _e(r["status"]), _e(r["stage"]), _e(r["what"]), _e(r["what"]),
                _e(r["status"]), r["elapsed_s"], budget, r["execs"], len(r["findings"]),
                _e(r["reason"]))]
    for i, f in enumerate(r["findings"]):
        rows.append('<tr class="finding" id="finding-%s-%s-%d"><td colspan="6">finding %d: '
                    "<b>%s</b> %s at <code>%s</code>; reproducer <code>%s</code>; replay: "
                    "<code>%s</code></td></tr>" % (
                        _e(r["stage"]), _e(r["what"]), i, i,
                        _e(",".join(f["clauses"]) or "no clause"), _e(f["message"]),
                        _e(f["where"]), _e(f.get("reproducer", "")), _e(f.get("replay", ""))))
    return rows


def _stage_table(identity):
    """One folded row per stage kind (its counts); opened, the kind's runs."""
    runs = identity.get("stages") or []
    if not runs:
        return ""
    out = ['<section id="stages"><h2>Stages (depth %s)</h2>' % _e(identity.get("depth", "?"))]
    for stage, group in S.kinds(runs):
        elapsed, budget, execs, found = S.kind_totals(group)
        status = S.kind_status(group)
        detail = S.kind_detail(group)
        out.append(
            '<details class="stage-kind" id="kind-%s"><summary class="v-%s"><b>%s</b>: %d run%s: '
            "%s; %.0f s%s, %d execs, %d findings%s</summary>"
            '<table class="runs"><thead><tr><th>what</th><th>status</th><th>elapsed</th>'
            "<th>execs</th><th>findings</th><th>detail</th></tr></thead><tbody>%s"
            "</tbody></table></details>" % (
                _e(stage), _e(status), _e(stage), len(group), "" if len(group) == 1 else "s",
                _e(S.kind_counts(group)), elapsed, " / %d s" % budget if budget else "", execs,
                found, " &mdash; " + _e(detail) if detail else "",
                "".join(row for r in group for row in _run_rows(r))))
    out.append("</section>")
    return "".join(out)


def _action(report):
    """The opening: the FAIL clauses, or one line saying there is none; then
    the unexpected results and the UNTESTED clauses by reason."""
    rows = report.get("clauses", [])
    fails = action.fail_entries(rows)
    bad = action.unexpected(report)
    groups = action.untested_groups(rows)
    out = ['<section id="action"%s><h2>Needs action</h2>' % ("" if fails else ' class="no-fail"')]
    if not fails:
        out.append('<p class="verdict-line">%s</p>' % _e(action.no_fail_line(rows)))
    for e in fails:
        repro = ", ".join("%s <code>%s</code>" % (_e(k), _e(v)) for k, v in e["reproducer"])
        out.append(
            '<div class="fail-item" id="fail-%s"><h3><a href="#clause=%s">FAIL %s</a> (%s)</h3>'
            "<p>%s</p><p>First failing test: <code>%s</code> (%s)</p>"
            '<pre class="assertion">%s</pre><p class="repro">Reproducer: %s</p>' % (
                _e(e["id"]), _e(e["id"]), _e(e["id"]), _e(e["level"]), _e(e["requirement"]),
                _e(e["test"]), _e(e["detail"].split("; ")[0]), _e(e["assertion"]), repro))
        if e["rerun"]:
            out.append('<p class="rerun">Re-run: <code>%s</code></p>' % _e(e["rerun"]))
        if e["more"]:
            out.append("<p>%d more failing test%s (in the clause's drill-down): %s</p>" % (
                len(e["more"]), "" if len(e["more"]) == 1 else "s",
                ", ".join("<code>%s</code>%s" % (_e(t), " (input <code>%s</code>)" % _e(i)
                                                 if i else "") for t, i in e["more"])))
        out.append("</div>")
    line = action.outcome_line(report)
    if line:
        out.append('<p class="outcome">%s</p>' % _e(line))
    if fails and (bad or groups):
        out.append("<h3>Also needs action</h3>")
    if bad:
        out.append('<p>Unexpected results:</p><ul class="unexpected">%s</ul>' % "".join(
            "<li>%s</li>" % _e(l) for l in bad))
    if groups:
        out.append(
            '<p>UNTESTED clauses (%d), by reason:</p><table id="untested"><thead><tr>'
            "<th>clauses</th><th>reason</th><th>IDs</th></tr></thead><tbody>%s</tbody></table>" % (
                sum(len(ids) for _, ids in groups), "".join(
                    "<tr><td>%d</td><td>%s</td><td>%s</td></tr>" % (
                        len(ids), _e(reason), ", ".join(
                            '<a href="#clause=%s">%s</a>' % (_e(i), _e(i)) for i in ids))
                    for reason, ids in groups)))
    if not fails and not bad and not groups:
        out.append("<p>Nothing else needs action: no unexpected result, no UNTESTED clause.</p>")
    out.append("</section>")
    return "".join(out)


def _drill(row, ncols):
    parts = ["<b>%s</b> (%s, %s)" % (_e(row["id"]), _e(row["level"]), _e(row["role"])),
             "<p><i>Spec:</i> %s</p>" % _e(row["text"]),
             "<p><i>Requirement:</i> %s</p>" % _e(row["requirement"]),
             "<p><i>Verdict:</i> %s: %s</p>" % (_e(row["verdict"]), _e(row["detail"]))]
    if row.get("cases"):
        parts.append("<p><i>Cases:</i> " + ", ".join(
            "%s=%s" % (_e(k), _e(v)) for k, v in sorted(row["cases"].items())) + "</p>")
    if row.get("readings"):
        parts.append("<p><i>Readings:</i> " + _e(json.dumps(row["readings"])) + "</p>")
    for f in row.get("failures", []):
        parts.append('<div class="failure"><p><i>Failed:</i> %s</p><pre class="assertion">%s'
                     '</pre>' % (_e(f["test"]), _e(f["message"])))
        if f.get("rerun"):
            parts.append("<p><i>Re-run alone:</i> <code>%s</code></p>" % _e(f["rerun"]))
        if f.get("dump"):
            parts.append("<p><i>Region dump in the package:</i> <code>%s</code></p>" %
                         _e(f["dump"]))
        if f.get("region"):
            parts.append('<p><i>Decoded region:</i></p><pre class="region">%s</pre>' %
                         _e(f["region"]))
        parts.append("</div>")
    if row.get("tests"):
        parts.append("<p><i>Tests:</i></p><ul>" + "".join(
            "<li>%s</li>" % _e(t) for t in row["tests"]) + "</ul>")
    return ('<tr class="drill hidden" id="drill-%s"><td colspan="%d">%s</td></tr>' % (
        _e(row["id"]), ncols, "\n".join(parts)))


def _coverage(cov):
    if not cov:
        return ""
    if cov.get("error"):
        return "<h2>Coverage</h2><p>Not measured: %s</p>" % _e(cov["error"])
    rows = "".join("<tr><td>%s</td><td>%d/%d</td><td>%d/%d</td><td>%s</td></tr>" % (
        _e(path), f["lines_hit"], f["lines"], f["branches_hit"], f["branches"],
        _e(f["uncovered"] or "none")) for path, f in sorted(cov["files"].items()))
    return ('<h2>Coverage of the implementation</h2><table id="coverage"><thead><tr><th>file'
            "</th><th>lines hit</th><th>branches hit</th><th>lines never executed</th></tr>"
            "</thead><tbody>%s</tbody></table>" % rows)


def render(report):
    identity, rows = report.get("identity", {}), report.get("clauses", [])
    cols = columns(identity)
    stage_of = _stage_of_section(identity)
    not_ran = {}
    for r in identity.get("stages", []):
        if r["status"] == "UNTESTED":
            not_ran.setdefault(r["stage"], r["reason"])
        else:
            not_ran[r["stage"]] = None
    summary = report.get("summary", {})
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>SPSQ %s certification: %s</title>" % (
               _e(identity.get("role", "")), _e(identity.get("name", ""))),
           "<style>%s</style></head><body>" % _CSS,
           "<h1>SPSQ %s certification: %s</h1>" % (
               _e(identity.get("role", "")), _e(identity.get("name", "")))]
    out.append("<ul>" + "".join("<li>%s: <code>%s</code></li>" % (_e(k.replace("_", " ")),
                                                                  _e(identity[k]))
                                for k in ("implementation", "endpoint_template",
                                          "suite_revision", "build_hash", "toolchain")
                                if k in identity) + "</ul>")
    out.append(_action(report))
    out.append('<h2 id="clauses">Clauses</h2><p class="summary">' + ", ".join(
        '<span class="v-%s">%s %d</span>' % (_e(k), _e(k), v) for k, v in summary.items()) +
        "</p>")
    out.append('<p class="filters">Show: ' + "".join(
        "<button onclick=\"only('%s')\">%s</button>" % (v, v) for v in
        ("all", "FAIL", "UNTESTED", "INTERPRETATION", "PASS", "NOT-APPLICABLE")) + "</p>")
    # MaxInflight 0 marks binaries with no window of their own (L3, runtime, Python).
    head = "".join("<th>%s<br>%s</th>" % ("MI %d" % mi if mi else "all", _e(stage))
                   for mi, stage in cols)
    ncols = 4 + len(cols)
    out.append('<table id="matrix"><thead><tr><th>clause</th><th>level</th><th>verdict</th>'
               "%s<th>requirement</th></tr></thead><tbody>" % head)
    for row in rows:
        cells = []
        for col in cols:
            status, n = cell_status(row, col, stage_of)
            cls = "v-FAIL" if status == "FAIL" else ("v-PASS" if status == "ran" else "")
            title = "%d tests" % n if n else "no test here"
            if not n and not_ran.get(col[1]):
                status, cls, title = "not run", "v-UNTESTED", not_ran[col[1]]
            cells.append('<td class="cell %s" title="%s">%s</td>' % (cls, title, _e(status)))
        out.append('<tr class="clause v-%s" id="row-%s" data-id="%s" data-verdict="%s">'
                   "<td>%s</td><td>%s</td><td>%s</td>%s<td>%s</td></tr>" % (
                       _e(row["verdict"]), _e(row["id"]), _e(row["id"]), _e(row["verdict"]),
                       _e(row["id"]), _e(row["level"]), _e(row["verdict"]), "".join(cells),
                       _e(row["requirement"])))
        out.append(_drill(row, ncols))
    out.append("</tbody></table>")
    out.append(_stage_table(identity))
    not_run = identity.get("stages_not_run") or {}
    if not_run:
        out.append("<p>Stages not run: " + "; ".join(
            "%s: %s" % (_e(k), _e(v)) for k, v in sorted(not_run.items())) + "</p>")
    out.append(_coverage(identity.get("coverage")))
    out.append("<script>%s</script></body></html>" % _JS)
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 1:
        print("usage: report_html.py REPORT_JSON > report.html", file=sys.stderr)
        return 2
    try:
        with open(argv[0]) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print("report_html: cannot read %s: %s" % (argv[0], e), file=sys.stderr)
        return 2
    sys.stdout.write(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
