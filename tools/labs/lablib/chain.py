"""The rule each lab's cumulative skeleton meets (docs/labs/README.md, "What a cumulative
skeleton must pass and fail"), applied to the results of test runs: tools/check-labs runs
the trees, selfcheck.py tests the rule on made-up runs.

S(N) is the skeleton of lab N (labs N, N+1, ... of labs/ORDER stubbed); S(N+1) is S(N) with
lab N solved, the full tree after the last lab.
"""

from . import grading


class Run:
    """One tree's run: listed {kind: [ids]} and results {id: (ok, note, output)}; a tree
    that did not build has nothing listed and its build's last lines in out."""

    def __init__(self, listed=None, results=None, out=""):
        self.listed, self.results, self.out = listed or {}, results or {}, out

    @property
    def built(self):
        return bool(self.listed)

    def failed(self):
        return {i for i, r in self.results.items() if not r[0]}

    def ok(self, i):
        """Passed, or skipped (a skip scores as a pass)."""
        return i in self.results and bool(self.results[i][0])

    def ran_ok(self, i):
        """Passed, not skipped: a skipped test did not run (in the kernel an earlier failed
        case can leave what makes the next ones skip), which is no evidence it would pass."""
        return self.ok(i) and self.results[i][1] != "skipped"

    def ids(self, root, lines):
        """The ids the manifest lines (no regression line) select among the tests run (root:
        whose ktest-host selects, grading.ktest_select)."""
        return {i for l in lines if l.kind in self.listed
                for i in grading.ids_of_line(root, l, self.listed[l.kind])}


def rule_problems(graded, cur, nxt, scored):
    """(free, unexplained, short), the tests that break the rule for lab N: graded, the ids
    N's lines grade; cur and nxt, the runs of S(N) and S(N+1); scored, every id N's lines
    select on S(N+1), its regression line's included.
      free: (a) a graded test S(N) passes (free points);
      unexplained: (b) a test S(N) fails, N does not grade, S(N+1) passes (runs and passes:
        a skip there is no evidence): N's stub breaks it, and no lab grades it there;
      short: (c) a test of N's grade that S(N+1) fails: N solved does not score full marks."""
    free = {i for i in graded if cur.ok(i)}
    unexplained = {i for i in cur.failed() - set(graded) if nxt.ran_ok(i)}
    short = {i for i in scored if not nxt.ok(i)}
    return free, unexplained, short
