"""report.html in a real browser: headless Chromium loads the page built from
synthetic results with FAILs, and the DOM it ends with must show the FAIL
row, its matrix cell and, once the page is opened on that clause, the
drill-down with the failing assertion, the decoded region and the re-run
command; the other rows stay folded. The page opens with the FAIL clauses,
the matrix follows, then the stage kinds, folded, each opening on its runs
(laid out as the browser placed them)."""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import report_html  # noqa: E402
import stages as S  # noqa: E402
import verdicts as V  # noqa: E402


def clause(cid, level="MUST"):
    return {"id": cid, "section": "3", "source": "spec", "text": "sentence of " + cid,
            "requirement": "requirement of " + cid, "level": level, "role": "L2",
            "surface": "cpp-l2", "how": "how"}


XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="Pub">
 <testcase name="Orders" status="run" result="completed" classname="Pub">
  <properties><property name="clauses" value="S3.PUB.1"/></properties></testcase>
 <testcase name="SeqLast" status="run" result="completed" classname="Pub">
  <properties><property name="clauses" value="S3.PUB.2"/>
   <property name="region" value="input ring slot 0: seq 7 (want 1)"/>
   <property name="rerun" value="bazel run //x:mi2_s3 -- --gtest_filter=Pub.SeqLast"/>
   <property name="binary_label" value="//x:mi2_s3"/>
   <property name="region_dump" value="dumps/mi2_s3/Pub.SeqLast.region"/></properties>
  <failure message="m">s3.cc:40
Expected equality of these values:
  seq
    Which is: 7
  1</failure></testcase>
</testsuite></testsuites>
"""


class Dom(HTMLParser):
    """Rows of the matrix and drill-downs, as the browser left them."""

    def __init__(self):
        HTMLParser.__init__(self)
        self.rows = {}  # id -> {"class": ..., "text": ...}
        self.body = {}
        self._stack = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "tr" and a.get("id"):
            self.rows[a["id"]] = {"class": a.get("class", ""), "text": ""}
            self._stack.append(a["id"])
        elif tag == "tr":
            self._stack.append(None)
        elif tag in ("td", "th", "p", "li", "pre") and self._stack and self._stack[-1]:
            self.rows[self._stack[-1]]["text"] += "\t"

    def handle_endtag(self, tag):
        if tag == "tr" and self._stack:
            self._stack.pop()

    def handle_data(self, data):
        for rid in self._stack:
            if rid:
                self.rows[rid]["text"] += data


# Page y of each section, how many stage kinds are folded, and how many of
# the noncoherent kind's runs are laid out (a folded row lays out none)
# before and after a click on its row: written to the body's data-*.
PROBE = """
(function(){
  var b = document.body.dataset;
  function top(sel){ var e = document.querySelector(sel);
    return e ? String(Math.round(e.getBoundingClientRect().top + window.scrollY)) : 'none'; }
  // A folded <details> keeps its content laid out but not rendered
  // (content-visibility): checkVisibility() tells what a reader sees.
  function shown(list){ return String([].filter.call(list, function(e){
    return e.checkVisibility(); }).length); }
  b.firstHeading = document.querySelector('h2').closest('#action') ? 'action' : 'other';
  b.topFail = top('#action .fail-item'); b.topMatrix = top('#matrix');
  b.topStages = top('#stages');
  var kinds = document.querySelectorAll('details.stage-kind');
  b.kinds = String(kinds.length);
  b.folded = String([].filter.call(kinds, function(d){ return !d.open; }).length);
  var kind = document.getElementById('kind-noncoherent');
  var runs = kind.querySelectorAll('tr.stage');
  b.runs = String(runs.length); b.runsShownFolded = shown(runs);
  kind.querySelector('summary').click();
  b.runsShownOpen = shown(runs);
})();
"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class ReportHtmlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.doms = {}
        xml = os.path.join(cls.tmp, "s3.xml")
        with open(xml, "w") as f:
            f.write(XML)
        cases = V.parse_gtest_xml(xml, "mi2:s3_publication_timeouts")
        # A corpus replay that found a defect, and a fuzzing stage that did not run.
        corpus = S.StageRun("corpus", "l2_stream")
        corpus.status, corpus.execs = "FAIL", 12
        corpus.findings.append({"clauses": ["S2.DESC.1"], "where": "fuzz/l2.cc:9",
                                "message": "seq 3 accepted, want 2",
                                "reproducer": "reproducers/corpus-l2_stream-0",
                                "replay": "bazel run //x:cert_stage_l2_stream -- repro"})
        fuzz = S.not_run("fuzz", "l2_stream", "not run at depth quick")
        cases += S.cases_of(corpus) + S.cases_of(fuzz)
        # Three runs of one stage kind: one folded row.
        noncoherent = []
        for what, status in (("mi1:nc_a", "PASS"), ("mi2:nc_a", "PASS"), ("mi2:nc_b", "PASS")):
            run = S.StageRun("noncoherent", what)
            run.status, run.execs, run.reason = status, 4, "4 tests ran, 0 failed"
            noncoherent.append(run)
        verdicts = V.compute_verdicts(
            [clause("S3.PUB.1"), clause("S3.PUB.2"), clause("S2.DESC.1")], cases, "L2")
        identity = {"name": "synthetic", "role": "L2", "depth": "quick", "binaries": [
            {"max_inflight": 1, "section": "s3_publication_timeouts"},
            {"max_inflight": 2, "section": "s3_publication_timeouts"},
            {"max_inflight": 2, "section": "interop"}],
            "stages": [r.to_json() for r in noncoherent] + [corpus.to_json(), fuzz.to_json()]}
        cls.page = report_html.render(json.loads(V.render_json(verdicts, identity)))
        cls.path = os.path.join(cls.tmp, "report.html")
        with open(cls.path, "w") as f:
            f.write(cls.page)
        # The same page with a probe that records where the browser laid out
        # the sections, then clicks the noncoherent row open.
        cls.probed = os.path.join(cls.tmp, "probed.html")
        with open(cls.probed, "w") as f:
            f.write(cls.page.replace("</body>", "<script>%s</script></body>" % PROBE))

    def browse(self, fragment="", path=None):
        """The DOM Chromium renders; a page and fragment is rendered once (a
        browser start costs seconds, and the tests only read the DOM)."""
        key = (fragment, path)
        if key not in self.doms:
            self.doms[key] = self.render(fragment, path)
        return self.doms[key]

    def render(self, fragment, path):
        browser = chromium()
        self.assertIsNotNone(browser, "no Chromium on PATH: install Debian's chromium "
                             "(bash tools/setup.sh does)")
        profile = tempfile.mkdtemp(dir=self.tmp)
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile,
               "--virtual-time-budget=5000", "--dump-dom",
               "file://" + (path or self.path) + fragment]
        env = dict(os.environ, HOME=self.tmp)
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr.decode(errors="replace")[-2000:])
        dom = Dom()
        dom.feed(out.stdout.decode(errors="replace"))
        return dom

    def test_the_page_is_self_contained(self):
        self.assertNotRegex(self.page, r'(src|href)="(https?:)?//')

    def test_fail_row_and_matrix_render(self):
        dom = self.browse()
        self.assertEqual(dom.body.get("data-rendered"), "3", "the page's script did not run")
        fail = dom.rows["row-S3.PUB.2"]
        self.assertIn("v-FAIL", fail["class"])
        self.assertEqual(re.findall(r"\bFAIL\b", fail["text"]), ["FAIL", "FAIL"],
                         "verdict column and the MI 2 suite cell, nowhere else")
        self.assertIn("v-PASS", dom.rows["row-S3.PUB.1"]["class"])
        # Folded until asked for.
        self.assertIn("hidden", dom.rows["drill-S3.PUB.2"]["class"])

    def test_stage_finding_renders(self):
        dom = self.browse()
        row = dom.rows["row-S2.DESC.1"]
        self.assertIn("v-FAIL", row["class"])
        cells = row["text"].split("\t")
        self.assertEqual(cells.count("FAIL"), 2, "verdict and the corpus column: %r" % cells)
        self.assertIn("not run", cells, "the fuzz column says it did not run")
        self.assertIn("FAIL", dom.rows["stage-corpus-l2_stream"]["text"])
        self.assertIn("not run at depth quick", dom.rows["stage-fuzz-l2_stream"]["text"])
        finding = dom.rows["finding-corpus-l2_stream-0"]["text"]
        for want in ("S2.DESC.1", "seq 3 accepted, want 2", "reproducers/corpus-l2_stream-0",
                     "bazel run //x:cert_stage_l2_stream -- repro"):
            self.assertIn(want, finding)

    def test_fails_first_then_the_matrix_then_the_stage_kinds_folded(self):
        dom = self.browse(path=self.probed)
        b = dom.body
        self.assertEqual(b.get("data-first-heading"), "action", "the page opens elsewhere")
        fail, matrix, stages = (int(b["data-top-%s" % k]) for k in ("fail", "matrix", "stages"))
        self.assertLess(fail, matrix)
        self.assertLess(matrix, stages)
        # suite-less synthetic report: noncoherent, corpus, fuzz; all folded.
        self.assertEqual((b["data-kinds"], b["data-folded"]), ("3", "3"))
        self.assertEqual(b["data-runs"], "3")
        self.assertEqual(b["data-runs-shown-folded"], "0", "a folded kind shows no run")
        self.assertEqual(b["data-runs-shown-open"], "3", "the opened kind shows its runs")
        kind = dom.rows["stage-noncoherent-mi2:nc_b"]  # each run keeps its row
        self.assertIn("PASS", kind["text"])

    def test_the_opening_names_each_fail_with_its_reproducer(self):
        dom = self.browse()
        # The FAIL section, as text, in page order (Dom keeps rows only).
        text = re.sub(r"<[^>]+>", " ", self.page.split('<section id="action"', 1)[1].split(
            "</section>", 1)[0])
        text = " ".join(html.unescape(text).split())
        self.assertLess(text.index("FAIL S3.PUB.2"), text.index("FAIL S2.DESC.1"), text)
        for want in ("1 of 1 judging tests failed", "s3.cc:40 Expected equality of these values:",
                     "binary //x:mi2_s3", "test Pub.SeqLast",
                     "region dump dumps/mi2_s3/Pub.SeqLast.region",
                     "Re-run: bazel run //x:mi2_s3 -- --gtest_filter=Pub.SeqLast",
                     "input reproducers/corpus-l2_stream-0",
                     "Re-run: bazel run //x:cert_stage_l2_stream -- repro"):
            self.assertIn(want, text)
        self.assertNotIn("No FAIL", text)
        self.assertEqual(dom.body.get("data-rendered"), "3")

    def test_drill_down_opens_on_the_failing_clause(self):
        dom = self.browse("#clause=S3.PUB.2")
        drill = dom.rows["drill-S3.PUB.2"]
        self.assertNotIn("hidden", drill["class"])
        for want in ("sentence of S3.PUB.2", "Which is: 7", "s3.cc:40",
                     "input ring slot 0: seq 7 (want 1)",
                     "bazel run //x:mi2_s3 -- --gtest_filter=Pub.SeqLast",
                     "dumps/mi2_s3/Pub.SeqLast.region"):
            self.assertIn(want, drill["text"])
        self.assertIn("hidden", dom.rows["drill-S3.PUB.1"]["class"])


class CleanOpeningTest(unittest.TestCase):
    """With no FAIL the opening says so in one line, then what else needs
    action: the runner's unexpected results and the UNTESTED clauses."""

    def test_no_fail(self):
        xml = os.path.join(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")), "s3.xml")
        with open(xml, "w") as f:
            f.write(XML.replace("<failure", "<skipped message='needs MaxInflight 2'/><!--")
                    .replace("</failure>", "-->"))
        cases = V.parse_gtest_xml(xml, "mi1:s3")
        verdicts = V.compute_verdicts([clause("S3.PUB.1"), clause("S3.PUB.2"),
                                       clause("S2.DESC.1")], cases, "L2")
        outcome = {"status": 1, "mode": "a legal variant: the verdicts in v.json",
                   "lines": ["verdicts differ from v.json:", "  S2.DESC.1=UNTESTED (why)"]}
        page = report_html.render(json.loads(V.render_json(verdicts, {"name": "n"}, outcome)))
        opening = page.split('<section id="action"', 1)[1].split("</section>", 1)[0]
        self.assertIn('<h2>Needs action</h2><p class="verdict-line">No FAIL: none of the 1 '
                      "clauses judged here failed.</p>", opening)
        self.assertNotIn("fail-item", opening)
        self.assertIn("<li>S2.DESC.1=UNTESTED (why)</li>", opening)
        self.assertIn("<td>1</td><td>1 of 1 judging tests skipped: needs MaxInflight 2</td>",
                      opening)
        self.assertIn("<td>1</td><td>no test in this certification covers it</td>", opening)
        self.assertLess(page.index('<section id="action"'), page.index('id="matrix"'))


if __name__ == "__main__":
    unittest.main()
