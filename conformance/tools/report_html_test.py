"""report.html in a real browser: headless Chromium loads the page built from
synthetic results with one FAIL, and the DOM it ends with must show the FAIL
row, its matrix cell and, once the page is opened on that clause, the
drill-down with the failing assertion, the decoded region and the re-run
command; the other rows stay folded."""

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
        verdicts = V.compute_verdicts(
            [clause("S3.PUB.1"), clause("S3.PUB.2"), clause("S2.DESC.1")], cases, "L2")
        identity = {"name": "synthetic", "role": "L2", "depth": "quick", "binaries": [
            {"max_inflight": 1, "section": "s3_publication_timeouts"},
            {"max_inflight": 2, "section": "s3_publication_timeouts"},
            {"max_inflight": 2, "section": "interop"}],
            "stages": [corpus.to_json(), fuzz.to_json()]}
        cls.page = report_html.render(json.loads(V.render_json(verdicts, identity)))
        cls.path = os.path.join(cls.tmp, "report.html")
        with open(cls.path, "w") as f:
            f.write(cls.page)

    def browse(self, fragment=""):
        browser = chromium()
        self.assertIsNotNone(browser, "no Chromium on PATH: install Debian's chromium "
                             "(bash tools/setup.sh does)")
        profile = tempfile.mkdtemp(dir=self.tmp)
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile,
               "--virtual-time-budget=5000", "--dump-dom", "file://" + self.path + fragment]
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


if __name__ == "__main__":
    unittest.main()
