"""The grader's own cases, in seconds (tools/selftest runs them).

Each function returns the problems found (empty: fine). The expected
answers are written here with the reasoning next to them; the KTAP text is
what the runners print (lib/ktest.c, tests/host/isolate.c, hosted panic()
in arch/hosted/hosted.c, kernel/panic.c). Test selection asks this tree's
build/host/ktest-host --match (grading.ktest_select; made when missing).
"""

import os
import tempfile
import time

from . import chain, grading, submission

# The tree these tools belong to: its ktest-host decides what a ktest selector selects.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# A host run (ktest-host --fork) where one case fails an assertion after some chatter, one
# dies in a BUG_ON (hosted panic() prints "PANIC: ..." bare, then its backtrace through
# printk), and one runs past the per-case timeout.
HOST_KTAP = """KTAP version 1
1..1
    KTAP version 1
    # Subtest: mm_x
    1..4
    # some chatter of the case
    # more chatter
        # tests/unit/test_x.c:42: got == want: 0x1 vs 0x2
    not ok 1 test_assert
PANIC: mm/vma.c:120 vma_split: BUG_ON(addr <= vma->start)
    #  ./build/host/ktest-host(+0x1234)
    # case crashed: killed by signal 6 (Aborted)
    not ok 2 test_bug_on
    # case timed out after 3 s: killed
    not ok 3 test_hangs
    ok 4 test_fine
not ok 1 mm_x
"""

# A kernel boot that panicked in a case: the case never reports.
BOOT_LOG = "\n".join(["boot line %d" % i for i in range(30)] + [
    "    # Subtest: mm_y", "    ok 1 test_before",
    "KERNEL PANIC: mm/fault.c:99 handle_fault: BUG_ON(!vma)", " [<ffff8000>] handle_fault+0x10",
    "KERNEL PANIC: stopping the kernel", "qemu-run: PANIC: the kernel panicked"])


def ktap_cases():
    problems = []
    r = grading.parse_ktap(HOST_KTAP, "host")
    want = {"host:mm_x.test_assert": False, "host:mm_x.test_bug_on": False,
            "host:mm_x.test_hangs": False, "host:mm_x.test_fine": True}
    got = {i: x.ok for i, x in r.items()}
    if got != want:
        return ["parse_ktap: %r, want %r" % (got, want)]
    shown = grading.key_lines(r["host:mm_x.test_assert"].output)
    if not shown or "test_x.c:42: got == want" not in shown[0]:
        problems.append("a failed assertion is not the first line shown: %r" % shown)
    shown = "\n".join(grading.key_lines(r["host:mm_x.test_bug_on"].output))
    if "BUG_ON(addr <= vma->start)" not in shown:
        problems.append("a host case killed by a signal does not show its BUG_ON: %r" % shown)
    if not r["host:mm_x.test_hangs"].note.startswith("hung"):
        problems.append("a host case past its timeout is not reported as hung: %r" % r["host:mm_x.test_hangs"].note)
    crash = grading.crash_excerpt(BOOT_LOG)
    if not crash.startswith("KERNEL PANIC: mm/fault.c:99") or "boot line" in crash:
        problems.append("crash_excerpt does not start at the panic: %r" % crash)
    return problems


class FakeBoots(grading.Runner):
    """A Runner whose boots print canned KTAP: suite s (cases a b c d) panics in b whenever
    b runs; suite h (case x) hangs."""

    def __init__(self, root):
        super().__init__(root)
        self.match_root = ROOT
        self.filters = []

    def boot(self, append, timeout=300, env=None):
        flt = append.split("=", 1)[1]
        self.filters.append(flt)
        if flt == "h":
            return 4, "    # Subtest: h\nqemu-run: TIMEOUT"
        run = ["a", "b", "c", "d"] if flt == "s" else [p.split(".")[1] for p in flt.split(",")]
        out = ["    # Subtest: s"]
        for n, case in enumerate(run, 1):
            if case == "b":
                return 2, "\n".join(out + ["KERNEL PANIC: mm/x.c:1 f: BUG_ON(b)", "KERNEL PANIC: stopping"])
            out.append("    ok %d %s" % (n, case))
        return 0, "\n".join(out + ["ok 1 s"])


def kernel_crash_cases():
    """kernel_run after a panic and a hang: the case that crashed fails with the panic, the
    cases after it run in a fresh boot, a hang is "hung"."""
    with tempfile.TemporaryDirectory() as tmp:
        r = FakeBoots(tmp)
        listed = ["kernel:s.a", "kernel:s.b", "kernel:s.c", "kernel:s.d", "kernel:h.x"]
        res = r.kernel_run(["s", "h"], listed)
    problems = []
    got = {i: res[i].ok for i in listed}
    if got != {"kernel:s.a": True, "kernel:s.b": False, "kernel:s.c": True, "kernel:s.d": True,
               "kernel:h.x": False}:
        problems.append("results %r (boots with ktest=%s)" % (got, " then ".join(r.filters)))
    if "BUG_ON(b)" not in res["kernel:s.b"].output or "panicked" not in res["kernel:s.b"].note:
        problems.append("the panicking case: %r, %r" % (res["kernel:s.b"].note, res["kernel:s.b"].output))
    if not res["kernel:h.x"].note.startswith("hung"):
        problems.append("the hanging case: %r" % res["kernel:h.x"].note)
    return problems


def scoring_cases():
    """Line.score and line_ids: a regression line excludes the graded tests and those of later
    labs and loses a fifth of its points per failing test; a graded line scores its fraction."""
    problems = []
    graded = grading.Line(20, "host", "a.t1,a.t2", 1)
    reg = grading.Line(15, "regression", "host:default user:*", 2)
    listed = {"host": ["host:a.t1", "host:a.t2", "host:b.t3"], "user": ["user:u1", "user:u2"]}
    ids = grading.line_ids(ROOT, [graded, reg], listed)
    if ids != [["host:a.t1", "host:a.t2"], ["host:b.t3", "user:u1", "user:u2"]]:
        problems.append("line_ids: %r" % ids)
    # A later lab grades u2 (its stub fails it in this lab's skeleton) and a vmabench line
    # (no such kind listed): the regression line leaves u2 out.
    later = [grading.Line(5, "user", "u2", 1), grading.Line(5, "vmabench", "avl 64 mixed", 2)]
    ids = grading.line_ids(ROOT, [graded, reg], listed, later)
    if ids != [["host:a.t1", "host:a.t2"], ["host:b.t3", "user:u1"]]:
        problems.append("line_ids with a later lab's lines: %r" % ids)
    # 1 of 2 passing: half of 20. Regression: 0 failing 15, 1 failing 15*4/5 = 12, 5 failing 0.
    for line, passed, total, want in ((graded, 1, 2, 10.0), (reg, 3, 3, 15.0), (reg, 2, 3, 12.0),
                                      (reg, 5, 10, 0.0), (reg, 0, 0, 0.0)):
        if line.score(passed, total) != want:
            problems.append("%s: %d of %d passing scores %r, want %r"
                            % (line.kind, passed, total, line.score(passed, total), want))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "labs", "x"))
        with open(os.path.join(tmp, "labs", "x", "manifest"), "w") as f:
            f.write("# X\n10 host a.t1\nhidden 5 user u1 u2\n15 regression host:default user:*\n")
        _, lines = grading.parse_manifest(tmp, "x")
        got = [(l.points, l.kind, l.selector, l.hidden) for l in lines]
        if got != [(10, "host", "a.t1", False), (5, "user", "u1 u2", True),
                   (15, "regression", "host:default user:*", False)]:
            problems.append("parse_manifest: %r" % got)
        grading.write_pins(tmp, "x", lines, [["host:a.t1"], ["user:u1", "user:u2"], []])
        pins = grading.read_pins(tmp, "x")
        if grading.pin_problems("x", lines, [["host:a.t1"], ["user:u1", "user:u2"], []], pins):
            problems.append("the pins just written do not match")
        if not grading.pin_problems("x", lines, [["host:a.t1"], ["user:u1"], []], pins):
            problems.append("a line selecting one test fewer than pinned is not reported")
    return problems


def chain_cases():
    """chain.rule_problems on made-up runs of S(N) and S(N+1), user tests only (fnmatch
    selects them): lab N grades a1 a2, a later lab grades b, no lab grades c and d."""
    problems = []
    lines = [grading.Line(20, "user", "a1 a2", 1), grading.Line(15, "regression", "user:*", 2)]
    later = [grading.Line(5, "user", "b", 1)]
    listed = {"user": ["user:a1", "user:a2", "user:b", "user:c", "user:d"]}

    def run(failing):
        """A run where the tests named in failing fail, those named "skip:NAME" skip."""
        words = failing.split()
        return chain.Run(listed, {i: (i[5:] not in words, "skipped" if "skip:" + i[5:] in words else "", "")
                                  for i in listed["user"]})

    def rule(cur, nxt):
        ids = grading.line_ids(ROOT, lines, listed, later)
        return chain.rule_problems(run(cur).ids(ROOT, lines[:1]), run(cur), run(nxt),
                                   {i for got in ids for i in got})
    # The skeleton fails its graded tests and b (the later lab's stub, still in S(N+1)): fine.
    # The regression line leaves b out, so S(N+1) failing it costs no point.
    cases = [("a1 a2 b", "b", (set(), set(), set())),
             # (a) a2 passes on S(N): free points. (c) a2 fails with N solved: short.
             ("a1 b", "a2 b", ({"user:a2"}, set(), {"user:a2"})),
             # (b) N's stub breaks c, which no lab grades, and N solved repairs it.
             ("a1 a2 b c", "b", (set(), {"user:c"}, set())),
             # A later lab's stub breaks c on S(N) and S(N+1) alike: (b) allows it, but it is in
             # N's regression line, so (c) reports it (the chain puts it in a later manifest).
             ("a1 a2 c", "c", (set(), set(), {"user:c"})),
             # c fails on S(N) and skips on S(N+1) (a skip scores as a pass): no evidence
             # that N's stub breaks it, (b) holds; a skipped graded test is free points.
             ("a1 a2 c", "skip:a2 skip:c", (set(), set(), set())),
             ("a1 skip:a2", "", ({"user:a2"}, set(), set()))]
    for cur, nxt, want in cases:
        got = rule(cur, nxt)
        if got != want:
            problems.append("rule_problems, S(N) failing %s, S(N+1) %s: %r, want %r" % (cur, nxt, got, want))
    return problems


REF_FILE = ["int before;\n", "/* LAB x: BEGIN r */\n", "int solved;\n", "/* LAB x: END r */\n",
            "int middle;\n", "/* LAB y: BEGIN s */\n", "int other_lab;\n", "/* LAB y: END s */\n",
            "int after;\n"]


def submission_cases():
    """take_regions on a one-file tree: the region's text comes from the submission, the
    rest from the reference, and each kind of tampering is flagged."""
    problems = []
    cases = {
        # name: (the submission's file or None, the text graded, a flag expected or None)
        "solved": (REF_FILE[:2] + ["int mine;\n"] + REF_FILE[3:], "int mine;\n", None),
        "outside": (["int cheat;\n"] + REF_FILE[1:2] + ["int mine;\n"] + REF_FILE[3:], "int mine;\n",
                    "changed outside the lab's regions: f.c"),
        "other lab's region": (REF_FILE[:6] + ["int stub;\n"] + REF_FILE[7:], "int solved;\n", None),
        "missing": (None, "int skeleton;\n", "missing: f.c"),
        "no marker": (REF_FILE[:3] + REF_FILE[4:], "int skeleton;\n", "broken markers"),
    }
    for name, (theirs, region, flag) in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            ref, sub = os.path.join(tmp, "ref"), os.path.join(tmp, "sub")
            os.makedirs(os.path.join(ref, "labs", "x"))
            os.makedirs(sub)
            with open(os.path.join(ref, "f.c"), "w") as f:
                f.write("".join(REF_FILE))
            with open(os.path.join(ref, "labs", "x", "r.c"), "w") as f:
                f.write("int skeleton;\n")
            if theirs is not None:
                with open(os.path.join(sub, "f.c"), "w") as f:
                    f.write("".join(theirs))
            files, flags = submission.take_regions(ref, ["f.c"], sub, "x")
            with open(os.path.join(ref, "f.c")) as f:
                got = f.read()
            want = "".join(REF_FILE[:2] + [region] + REF_FILE[3:])
            if files != ["f.c"] or got != want:
                problems.append("%s: graded text %r, want %r" % (name, got, want))
            if flag is None and flags or flag is not None and not any(flag in x for x in flags):
                problems.append("%s: flags %r, want %s" % (name, flags, flag or "none"))
    return problems + ignored_cases()


def ignored_cases():
    """ignored_changes on a file of another lab (y): a copy differing only inside y's region
    (the later lab's stub of a cumulative skeleton) is not flagged; one differing outside is."""
    problems = []
    other = REF_FILE[4:]                        # "int middle;", y's region, "int after;"
    for name, theirs, flagged in (("y's region stubbed", other[:2] + ["int stub;\n"] + other[3:], False),
                                  ("outside y's region", ["int cheat;\n"] + other[1:], True),
                                  ("y's marker deleted", other[:1] + other[2:], True)):
        with tempfile.TemporaryDirectory() as tmp:
            for d, text in (("ref", other), ("sub", theirs)):
                os.makedirs(os.path.join(tmp, d))
                with open(os.path.join(tmp, d, "g.c"), "w") as f:
                    f.write("".join(text))
            flags = submission.ignored_changes(os.path.join(tmp, "ref"), os.path.join(tmp, "sub"), ["g.c"], set())
        if bool(flags) != flagged:
            problems.append("%s: flags %r, want %s" % (name, flags, "one" if flagged else "none"))
    return problems


# A fake lab over made-up tests, and the ids each line must select. fake_* suites are not in
# ktest-host (taken as ordinary suites); vma_many is, marked KTEST_SLOW (tests/unit/test_vma_many.c).
FAKE_MANIFEST = """# Fake
10 host     fake_m.test_a*,vma_*
10 kernel   fake_s/avl
5  host     vma_many.test_1/avl
15 regression host:default kernel:default
"""
FAKE_LISTED = {"host": ["host:fake_m.test_a1", "host:fake_m.test_a2", "host:fake_m.test_b",
                        "host:vma_many.test_1/avl", "host:vma_many.test_2/avl", "host:vma_x.test_c/avl"],
               "kernel": ["kernel:fake_s.t/avl", "kernel:fake_s.t/list", "kernel:fake_s.u",
                          "kernel:fake_sx.t/avl"]}
FAKE_WANT = [
    # case globs select test_a1 and test_a2; the suite glob vma_* selects vma_x but never the
    # slow vma_many (a slow suite is selected by its exact name only)
    ["host:fake_m.test_a1", "host:fake_m.test_a2", "host:vma_x.test_c/avl"],
    # /avl: only cases run with that parameter (not the unparameterized fake_s.u); the suite
    # part is matched whole (not fake_sx)
    ["kernel:fake_s.t/avl"],
    # the exact suite name selects a slow suite's case
    ["host:vma_many.test_1/avl"],
    # the rest: "default" takes every test no other line grades, less the slow vma_many.test_2
    ["host:fake_m.test_b", "kernel:fake_s.t/list", "kernel:fake_s.u", "kernel:fake_sx.t/avl"]]


def fake_lab_cases():
    """A fake lab's manifest, selected among made-up listed tests by ktest-host --match, and the
    per-suite filters a kernel run narrows its patterns to (a pattern that selects none of the
    suite's tests is left out, the others keep their case and parameter parts); a malformed
    name or filter is refused."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "labs", "fake"))
        with open(os.path.join(tmp, "labs", "fake", "manifest"), "w") as f:
            f.write(FAKE_MANIFEST)
        _, lines = grading.parse_manifest(tmp, "fake")
    try:
        got = grading.line_ids(ROOT, lines, FAKE_LISTED)
        narrow = grading.SuiteFilters(ROOT, ["fake_*.t/avl", "default", "vma_many"], FAKE_LISTED["kernel"])
        flts = {s: narrow.of(s, [i for i in FAKE_LISTED["kernel"] if i.startswith("kernel:%s." % s)])
                for s in ("fake_s", "fake_sx")}
    except grading.GradeError as e:
        return [str(e)]
    for line, ids, want in zip(lines, got, FAKE_WANT):
        if ids != want:
            problems.append("%s selects %r, want %r" % (line.label, ids, want))
    for suite, want in (("fake_s", "fake_s,fake_s.t/avl"), ("fake_sx", "fake_sx,fake_sx.t/avl")):
        if flts[suite] != want:
            problems.append("the patterns narrowed to suite %s: %r, want %r" % (suite, flts[suite], want))
    for flt, names in (("fake_s", ["fake_s"]), ("fake_s", ["fake_s.t/"]), ("fake_s.", ["fake_s.t"])):
        try:
            grading.ktest_select(ROOT, [flt], names)
            problems.append("ktest-host --match %s does not refuse %r" % (flt, names))
        except grading.GradeError:
            pass                        # a name without its case or parameter, a bad filter
    return problems


def alive(pid):
    """Whether pid is a process that has not ended (a zombie has ended)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def orphan_cases():
    """grading.run past its timeout kills what its command started too (a QEMU under
    tools/qemu-run): here a shell's background sleep, whose pid the shell prints first.
    The timeout of 1 s certainly expires (the shell waits for a 300 s sleep); the status
    is then 124 and the sleep, the grandchild, must be gone. subprocess.run's timeout
    killed only the shell and left the sleep running."""
    problems = []
    status, out = grading.run(["sh", "-c", "sleep 300 & echo $!; wait"], ROOT, timeout=1)
    if status != 124:
        problems.append("status %r after the timeout, not 124" % status)
    pids = [int(w) for w in out.split() if w.isdigit()]
    if not pids:
        return problems + ["the shell printed no pid: %r" % out]
    # The group's SIGKILL is sent before run returns, but the sleep's exit can finish after
    # run saw its pipe close (a dying process closes its files before it becomes a zombie):
    # on a loaded host it was seen alive there. Wait for the exit, as long as a loaded host
    # could need; a sleep the kill missed stays alive for its 300 s and fails this.
    deadline = time.monotonic() + 30
    while alive(pids[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive(pids[0]):
        problems.append("the command's child (pid %d) outlived the timeout by 30 s" % pids[0])
        os.kill(pids[0], 9)
    return problems


def check_all():
    """[(what, problems)] of the cases above."""
    return [("the grader's KTAP parsing shows assertions, BUG_ON texts and hangs", ktap_cases()),
            ("scores: graded lines, regression lines (less later labs' tests), hidden lines, pins", scoring_cases()),
            ("the cumulative skeleton's rule: (a) no free points, (b) other failures a later lab's, "
             "(c) full marks with the lab solved", chain_cases()),
            ("a fake lab's lines select through ktest-host --match (globs, parameters, slow "
             "suites)", fake_lab_cases()),
            ("the kernel tests after a panic run in a fresh boot; a hang is 'hung'", kernel_crash_cases()),
            ("a submission's regions go into the reference, tampering is flagged, later labs' stubs are not",
             submission_cases()),
            ("a command past its timeout is killed with what it started (no orphan QEMU)", orphan_cases())]


def pin_cases(root, runner):
    """Every lab's pins hold for its lines that list without a boot (host, user, mmscript)."""
    problems = []
    for lab in grading.lab_names(root):
        _, lines = grading.parse_manifest(root, lab)
        lines = [l for l in lines if l.kind in ("host", "user", "mmscript", "mmscript-host")]
        try:
            listed = grading.list_selection(runner, grading.selection_of(lines))
            problems += grading.pin_problems(lab, lines, grading.line_ids(runner.match_root, lines, listed),
                                             grading.read_pins(root, lab))
        except grading.GradeError as e:
            problems.append("lab %s: %s" % (lab, e))
    return problems

