#!/usr/bin/env python3
"""Self-test of bench/cases/summarize.py (standard library only; run by ctest as
cases.summarize_selftest).

Checks the figures on a hand-made report whose answers are known, including fields that later
report versions may add ([untracked heap], a grouped library row of a new kind,
samples_estimated, frame flags, variables without metrics), and that the analyzer's golden data
report of today's schema (tests/unit/analyzer/golden/expected/data.json) goes through.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import summarize  # noqa: E402

LIBMPI = "/usr/lib/x86_64-linux-gnu/libmpi.so.40"
APP = "/usr/lib/libapp.so"


def frame(fn, module, offset, **flags):
    f = {"function": fn, "file": "", "line": 0, "module": module, "offset": offset}
    f.update(flags)
    return f


def heap(name, samples, caller, module=APP, leaf=0x100):
    return {"kind": "heap", "name": name, "allocator": "malloc", "sampled": False,
            "allocation_path": [{"function": "malloc", "file": "", "line": 0, "module": ""},
                                frame(name.split(" (")[0], module, 0x10, wrapper=True),
                                frame(caller, module, 0x20)],
            "bytes": 4096, "allocations": 1, "share": 0.0, "metrics": {"samples": samples},
            "accesses": [{"path": [frame("kernel", APP, leaf)], "metrics": {"samples": samples}}]}


REPORT = {
    "format": "hpcprof-lite-report", "version": 1, "view": "data",
    "totals": {"samples": 1000, "data_samples": 800, "processes": 2, "threads": 2,
               "samples_estimated": 7, "future_total": 1},
    "variables": [
        {"kind": "unknown", "name": "[stack]", "metrics": {"samples": 300},
         "accesses": [{"path": [frame("kernel", APP, 0x200, tail_call=True)], "metrics": {"samples": 250}},
                      {"path": [frame("", LIBMPI, 0x300)], "metrics": {"samples": 50}}]},
        heap("Memory::smalloc (libapp.so)", 200, "AtomVec::grow"),
        heap("Memory::smalloc (libapp.so)", 100, "Neighbor::build"),
        {"kind": "static", "name": "[libmpi.so.40 data]", "module": LIBMPI, "metrics": {"samples": 80},
         "accesses": [{"path": [frame("opal_progress", LIBMPI, 0x400)], "metrics": {"samples": 80}}]},
        {"kind": "unknown", "name": "[unknown data]", "metrics": {"samples": 60}, "accesses": []},
        {"kind": "unknown", "name": "[untracked heap]", "metrics": {"samples": 40, "samples_estimated": 3},
         "accesses": [{"path": [frame("kernel", APP, 0x500)], "metrics": {"samples": 40}}]},
        {"kind": "library", "name": "[Open MPI internals]", "module": LIBMPI, "metrics": {"samples": 20}},
        {"kind": "static", "name": "table", "module": APP, "metrics": {"samples": 0}},
        heap("mpi_alloc+0x10 (libmpi.so.40)", 0, "ompi_init", module=LIBMPI),
        {"kind": "static", "name": "no_metrics", "module": APP},
    ],
}


class Figures(unittest.TestCase):
    def setUp(self):
        self.fig = summarize.figures(REPORT)

    def test_totals(self):
        self.assertEqual(self.fig["samples"], 1000)
        self.assertEqual(self.fig["data_samples"], 800)
        self.assertAlmostEqual(self.fig["data_share"], 0.8)
        self.assertEqual(self.fig["samples_estimated"], 7)

    def test_categories(self):
        cats = self.fig["categories_of_data"]
        self.assertEqual(cats["[stack]"]["samples"], 300)
        self.assertAlmostEqual(cats["[stack]"]["of_data"], 300 / 800)
        self.assertEqual(cats["heap"]["samples"], 300)
        self.assertEqual(cats["static: module data"]["samples"], 80)
        self.assertEqual(cats["[unknown data]"]["samples"], 60)
        self.assertEqual(cats["[untracked heap]"]["samples"], 40)
        self.assertEqual(cats["library"]["samples"], 20)
        self.assertEqual(cats["static: symbol"]["samples"], 0)

    def test_names_and_rows(self):
        self.assertEqual(self.fig["top_heap_count"], 3)
        self.assertEqual(self.fig["top_heap_distinct_names"], 2)
        self.assertEqual([h["caller"] for h in self.fig["top_heap"]],
                         ["AtomVec::grow", "Neighbor::build", "ompi_init"])
        self.assertEqual(self.fig["zero_sample_rows"], 3)
        self.assertEqual(self.fig["hex_named_rows_in_top"], 1)

    def test_mpi(self):
        # [libmpi.so.40 data] 80 + the library group 20 + the MPI-allocated heap block 0.
        self.assertEqual(self.fig["mpi_internal_samples"], 100)
        self.assertEqual(self.fig["mpi_rows_in_top"], 3)
        # Leaves in libmpi: 50 on the stack and 80 on its data.
        self.assertEqual(self.fig["mpi_code_samples"], 130)

    def test_hot_instructions_and_flags(self):
        stack = self.fig["hot_instructions"]["[stack]"]
        self.assertEqual((stack[0]["offset"], stack[0]["samples"]), (0x200, 250))
        self.assertIn("[untracked heap]", self.fig["hot_instructions"])
        self.assertEqual(self.fig["frame_flags"], {"tail_call": 1, "wrapper": 3})


class Command(unittest.TestCase):
    def run_cli(self, report, times=None, extra=()):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            with open(path, "w") as f:
                json.dump(report, f)
            cmd = [sys.executable, os.path.join(HERE, "summarize.py"), path, *extra]
            if times is not None:
                tpath = os.path.join(d, "times.tsv")
                with open(tpath, "w") as f:
                    f.write(times)
                cmd += ["--times", tpath]
            return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout

    def test_text_and_times(self):
        out = self.run_cli(REPORT, "native\t1\t10.0\t9.0\t1.0\ntool\t1\t11.0\t10.0\t1.0\n"
                                   "native\t2\t10.0\t9.0\t1.0\ntool\t2\t12.0\t11.0\t1.0\n")
        self.assertIn("with a data address 800 (80.0%)", out)
        self.assertIn("top 3 heap variables: 2 distinct names", out)
        self.assertIn("tool/native (median of per-pair ratios): wall 1.150, cpu 1.150", out)

    def test_json(self):
        fig = json.loads(self.run_cli(REPORT, extra=["--json"]))
        self.assertEqual(fig["top_heap_distinct_names"], 2)

    def test_golden_report_of_the_current_schema(self):
        golden = os.path.join(HERE, "..", "..", "tests", "unit", "analyzer", "golden", "expected", "data.json")
        if not os.path.exists(golden):
            self.skipTest("no golden data report")
        with open(golden) as f:
            report = json.load(f)
        fig = summarize.figures(report)
        self.assertEqual(fig["samples"], report["totals"]["samples"])
        self.assertEqual(sum(c["samples"] for c in fig["categories_of_data"].values()),
                         sum(v["metrics"]["samples"] for v in report["variables"]))


if __name__ == "__main__":
    unittest.main()
