"""Lab manifests and the test runners the grader and check-labs share.

A manifest (labs/LAB/manifest) lists the lab's tests with points:

    # Copy-on-write fork                 <- the first comment line is the title
    # POINTS KIND SELECTOR
    10 host     mm_fork.test_cow*        ktest cases on the host (ASan+UBSan)
    10 kernel   mm_fork                  ktest cases in the kernel (QEMU)
    5  user     fork_cow                 user tests (user/tests), names or globs
    5  mmscript mprotect_merge           corpus scripts on the kernel vs Linux's output
    5  mmscript-host mprotect_*          the same scripts on mm/ on the host (ASan)
    5  vmabench avl 4096 mixed           tools/vmabench --backend avl on a generated
                                         trace of 4096 VMAs, checked against the model
    15 regression host:default user:*    the rest of the kernel: KIND:SELECTOR items,
                                         less the tests the other lines grade and
                                         those of later labs (labs/ORDER)
    hidden 5 user fork_cow_extra         "hidden": Gradescope shows it after publishing

A line's score is its points times the fraction of the tests it selects
that pass; a regression line loses a fifth of its points per failing test
(REGRESSION_STEPS). ktest selectors use the runners' language
(include/ktest.h), and lib/ktest_filter.c itself decides what they
select (ktest_select: build/host/ktest-host --match). labs/LAB/pins
records how many tests each graded line selects (tools/grade LAB --pin
writes it); grading stops on a mismatch.

Every test has an id, "KIND:NAME" ("host:mm_fork.test_cow/avl",
"user:fork_cow", "mmscript:mprotect_merge"). The runners below return
{id: Result}. They are robust to the code under test: each host case runs
in a child process (ktest-host --fork), a kernel that panics or hangs costs
the tests it had not reported yet, and the tests after the one that killed
it run again in a fresh boot.
"""

import fnmatch
import os
import re
import signal
import shutil
import subprocess

from . import markers

KINDS = ("host", "kernel", "user", "mmscript", "mmscript-host", "vmabench", "regression")
# The kinds a regression line may name (KIND:SELECTOR items).
REGRESSION_KINDS = ("host", "kernel", "user", "mmscript", "mmscript-host")
# A regression line loses points/REGRESSION_STEPS per failing test (none left after that many).
REGRESSION_STEPS = 5


class GradeError(Exception):
    pass


class Line:
    def __init__(self, points, kind, selector, lineno, hidden=False):
        self.points, self.kind, self.selector, self.lineno = points, kind, selector, lineno
        self.hidden = hidden

    @property
    def label(self):
        return "%s %s" % (self.kind, self.selector)

    @property
    def items(self):
        """[(kind, selector)] this line lists tests with: a regression line's KIND:SELECTOR
        items, else the line itself."""
        if self.kind != "regression":
            return [(self.kind, self.selector)]
        return [tuple(it.split(":", 1)) for it in self.selector.split()]

    @property
    def short_name(self):
        """A short name for the line (Gradescope's test names): the kind and the suites or
        names it selects, three at most."""
        names = []
        for kind, sel in self.items:
            for p in re.split(r"[,\s]+", sel):
                n = p.split(".")[0] if kind in ("host", "kernel") else p
                n = n if self.kind != "regression" else "%s:%s" % (kind, n)
                if n and n not in names:
                    names.append(n)
        more = " +%d" % (len(names) - 3) if len(names) > 3 else ""
        return "%s %s%s" % (self.kind, " ".join(names[:3]), more)

    def score(self, passed, total):
        """The line's points for passed of total tests passing."""
        if not total:
            return 0.0
        if self.kind == "regression":
            return round(max(0.0, self.points * (1 - (total - passed) / REGRESSION_STEPS)), 2)
        return round(self.points * passed / total, 2)


class Result:
    def __init__(self, ok, output="", note=""):
        self.ok, self.output, self.note = ok, output, note


def lab_names(root):
    """The labs in their order (labs/ORDER, markers.lab_order), those with a manifest; a lab
    directory not in the order is no lab (markers.order_problems reports it)."""
    return [n for n in markers.lab_order(root) if os.path.isfile(os.path.join(root, "labs", n, "manifest"))]


def later_labs(root, lab):
    """The labs after lab in labs/ORDER (their regions are stubbed in lab's skeleton)."""
    order = lab_names(root)
    return order[order.index(lab) + 1:] if lab in order else []


def parse_manifest(root, lab):
    """(title, [Line]) of labs/LAB/manifest; GradeError on a malformed line."""
    path = os.path.join(root, "labs", lab, "manifest")
    if not os.path.isfile(path):
        raise GradeError("no lab named '%s' (labs: %s)" % (lab, ", ".join(lab_names(root)) or "none"))
    title, lines = lab, []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            text = raw.strip()
            if text.startswith("#"):
                if title == lab and len(text) > 1 and n == 1:
                    title = text[1:].strip()
                continue
            if not text:
                continue
            hidden = text.split(None, 1)[0] == "hidden"
            parts = text.split(None, 3 if hidden else 2)[1 if hidden else 0:]
            if len(parts) != 3 or parts[1] not in KINDS:
                raise GradeError("%s:%d: want '[hidden] POINTS KIND SELECTOR' with KIND one of %s"
                                 % (path, n, ", ".join(KINDS)))
            try:
                points = float(parts[0])
            except ValueError:
                raise GradeError("%s:%d: points '%s' is not a number" % (path, n, parts[0]))
            line = Line(points, parts[1], parts[2].strip(), n, hidden)
            bad = [k for k, _ in line.items if k not in REGRESSION_KINDS] if line.kind == "regression" else []
            if bad or any(len(it) != 2 or not it[1] for it in line.items):
                raise GradeError("%s:%d: a regression line lists KIND:SELECTOR items, KIND one of %s"
                                 % (path, n, ", ".join(REGRESSION_KINDS)))
            lines.append(line)
    if not lines:
        raise GradeError("%s: no tests" % path)
    return title, lines


def pins_path(root, lab):
    return os.path.join(root, "labs", lab, "pins")


def read_pins(root, lab):
    """{line label: number of tests} from labs/LAB/pins; GradeError when there is none."""
    path = pins_path(root, lab)
    if not os.path.isfile(path):
        raise GradeError("labs/%s/pins is missing (tools/grade %s --pin writes it)" % (lab, lab))
    pins = {}
    with open(path) as f:
        for raw in f:
            if raw.strip() and not raw.startswith("#"):
                count, label = raw.strip().split(None, 1)
                pins[label] = int(count)
    return pins


def write_pins(root, lab, lines, ids):
    """Write labs/LAB/pins: the number of tests each graded line selects."""
    with open(pins_path(root, lab), "w") as f:
        f.write("# tools/grade %s --pin: how many tests each line of the manifest selects;\n"
                "# grading stops when a line selects another number (docs/labs/README.md).\n" % lab)
        for line, got in zip(lines, ids):
            if line.kind != "regression":
                f.write("%d %s\n" % (len(got), line.label))


def pin_problems(lab, lines, ids, pins):
    """The graded lines whose number of tests differs from labs/LAB/pins (regression lines
    are not pinned: the rest of the kernel grows)."""
    problems = []
    for line, got in zip(lines, ids):
        if line.kind == "regression":
            continue
        want = pins.get(line.label)
        if want is None:
            problems.append("labs/%s/manifest:%d: no pin for '%s' (tools/grade %s --pin)"
                            % (lab, line.lineno, line.label, lab))
        elif want != len(got):
            problems.append("labs/%s/manifest:%d: '%s' selects %d tests, pinned %d (tools/grade %s --pin)"
                            % (lab, line.lineno, line.label, len(got), want, lab))
    return problems


# ----------------------------------------------------------------- selection

# The kernel keeps at most KTEST_FILTER_MAX (include/cmdline.h) - 1 characters of ktest=.
KTEST_FILTER_LIMIT = 1500
# A filter holds at most KTEST_MAX_PATTERNS (include/ktest.h) patterns, in the kernel and on the host.
KTEST_MAX_PATTERNS = 64


def filter_chunks(patterns, limit=KTEST_FILTER_LIMIT, max_patterns=KTEST_MAX_PATTERNS):
    """The patterns (each may hold several, comma-separated; duplicates dropped) joined with
    commas, in pieces of at most limit characters and max_patterns patterns."""
    chunks, cur, n = [], "", 0
    for p in dict.fromkeys(x for ps in patterns for x in ps.split(",") if x):
        if cur and (len(cur) + 1 + len(p) > limit or n == max_patterns):
            chunks.append(cur)
            cur, n = "", 0
        cur, n = (cur + "," + p if cur else p), n + 1
    return chunks + [cur] if cur else chunks


def ktest_select(root, patterns, names):
    """The test names ("suite.case[/param]") that the ktest patterns select, in their order.
    lib/ktest_filter.c decides, through root's build/host/ktest-host --match (made when it is
    missing), so the grader selects as the runners do (KTEST_SLOW suites included)."""
    binary = os.path.join(root, "build", "host", "ktest-host")
    if not os.path.exists(binary):
        status, out = run(["make", "-s", "build/host/ktest-host"], root)
        if status:
            raise GradeError("cannot build build/host/ktest-host:\n" + out[-2000:])
    picked = set()
    for chunk in filter_chunks(patterns):
        status, out = run([binary, "--match", chunk], root, 120, stdin="\n".join(names) + "\n")
        if status:
            raise GradeError("ktest-host --match %s: status %d\n%s" % (chunk, status, out[-2000:]))
        picked.update(out.splitlines())
    return [n for n in names if n in picked]


def later_lines(root, lab):
    """The graded lines (hidden ones too, no regression line) of the labs after lab in
    labs/ORDER: their tests fail in lab's cumulative skeleton, so lab's regression line
    leaves them out."""
    out = []
    for other in later_labs(root, lab):
        out += [l for l in parse_manifest(root, other)[1] if l.kind != "regression"]
    return out


def line_ids(root, lines, listed, later=()):
    """[ids of each line] for the lines of one manifest, listed {kind: [ids]}: a regression
    line selects its items' tests less those the other lines grade and those the lines of
    later labs grade (later: later_lines) (root: ktest_select's)."""
    graded = [] if not lines else [ids_of_line(root, l, listed[l.kind]) if l.kind != "regression"
                                   else None for l in lines]
    taken = {i for ids in graded if ids for i in ids}
    if any(l.kind == "regression" for l in lines):
        taken |= {i for l in later if l.kind in listed for i in ids_of_line(root, l, listed[l.kind])}
    out = []
    for line, ids in zip(lines, graded):
        if ids is None:
            ids = []
            for kind, sel in line.items:
                ids += [i for i in ids_of_line(root, Line(0, kind, sel, 0), listed[kind])
                        if i not in taken and i not in ids]
        out.append(ids)
    return out


def ids_of_line(root, line, listed):
    """The ids a manifest line selects among the listed ones of its kind (in listed order)."""
    if line.kind in ("host", "kernel"):
        picked = set(ktest_select(root, [line.selector], [i.split(":", 1)[1] for i in listed]))
        return [i for i in listed if i.split(":", 1)[1] in picked]
    if line.kind == "vmabench":
        return [line.kind + ":" + line.selector]
    pats = line.selector.split()
    return [i for i in listed if any(fnmatch.fnmatchcase(i.split(":", 1)[1], p) for p in pats)]


# ------------------------------------------------------------------- runners

def run(cmd, cwd, timeout=None, env=None, stdin=None):
    """(status, stdout+stderr) of cmd (stdin: text to feed it); status 124 when it ran past
    timeout. cmd runs in a session of its own, and what it started goes with it: on the
    timeout, or when the grader itself is stopped (^C, a batch's kill), the whole process
    group is killed, so no QEMU outlives its boot (subprocess.run kills only cmd, and
    tools/qemu-run's QEMU went on running, orphaned)."""
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                         env=e, start_new_session=True)
    try:
        out, _ = p.communicate(stdin.encode() if stdin is not None else None, timeout)
        return p.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, _ = p.communicate()
        return 124, out.decode(errors="replace") if out else ""
    except BaseException:
        kill_group(p)
        p.wait()
        raise


def kill_group(p):
    """SIGKILL p's process group (p leads it: start_new_session), if it is still there."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# Not a case's diagnostics: KTAP's own lines around the cases.
KTAP_FRAME = re.compile(r"^(    )?(KTAP version \d+|1\.\.\d+|(ok|not ok) \d+ \S+.*|\d+ passed, .*)$")


def parse_ktap(text, kind):
    """{id: Result} from a KTAP stream of ktest (suites as subtests, cases inside). A case's
    output is every line between the previous case's result and its own: the "#" lines,
    and what a crashing host case printed bare (hosted panic()'s "PANIC: ... BUG_ON(...)")."""
    results, suite, diag = {}, None, []
    for line in text.splitlines():
        m = re.match(r"^    # Subtest: (\S+)", line)
        if m:
            suite, diag = m.group(1), []
            continue
        m = re.match(r"^    (ok|not ok) \d+ (\S+)(.*)$", line)
        if m and suite:
            ok = m.group(1) == "ok"
            note = "skipped" if "# SKIP" in m.group(3) else ""
            out = "\n".join(diag)
            if not ok and "case timed out" in out:
                note = "hung: " + re.search(r"case timed out[^\n]*", out).group(0)
            results["%s:%s.%s" % (kind, suite, m.group(2))] = Result(ok, out, note)
            diag = []
            continue
        if re.match(r"^(ok|not ok) \d+ ", line):
            suite, diag = None, []
        elif suite and line.strip() and not KTAP_FRAME.match(line):
            diag.append(line.strip())
    return results


# The first line of a crash report: the kernel's panic or exception, a hosted panic (BUG_ON),
# a sanitizer's report.
CRASH = re.compile(r"KERNEL PANIC:|panic in a test case|x86: EXCEPTION|nested panic|^#? ?PANIC: |"
                   r"ERROR: AddressSanitizer|runtime error:|case crashed|case timed out")
# A failed assertion (ktest_fail: "file:line: message").
ASSERTION = re.compile(r"^#? ?[\w./-]+\.[ch]:\d+: ")


def crash_excerpt(text, lines=20):
    """The crash report in a boot's output (from its first line, at most lines of it), or
    the output's last lines when there is none."""
    all_lines = [l for l in text.splitlines() if l.strip()]
    start = next((n for n, l in enumerate(all_lines) if CRASH.search(l)), None)
    if start is None:
        return "\n".join(all_lines[-12:])
    return "\n".join(all_lines[start:start + lines])


def key_lines(output, limit=14):
    """The lines of a failed test's output worth showing: the failed assertions and the
    crash report first (in their order), the first lines when there is neither."""
    all_lines = [l for l in output.splitlines() if l.strip()]
    keep = [n for n, l in enumerate(all_lines) if ASSERTION.match(l)]
    start = next((n for n, l in enumerate(all_lines) if CRASH.search(l)), None)
    if start is not None:
        keep += range(start, min(len(all_lines), start + limit))
    if not keep:
        return all_lines[:limit]
    picked = [all_lines[n] for n in sorted(set(keep))]
    return picked[:limit] + (["(%d more lines)" % (len(picked) - limit)] if len(picked) > limit else [])


class SuiteFilters:
    """Filters that narrow a kernel run's patterns to one suite (its per-suite boots):
    each pattern that selects one of the suite's listed tests (ktest_select), with its
    suite part (before the first '.' or '/') replaced by the suite's name."""

    def __init__(self, root, patterns, listed):
        self.root, self.patterns, self.listed, self.picks = root, patterns, listed, None

    def of(self, suite, mine):
        if self.picks is None:          # one --match per pattern, at the first suite boot
            names = [i.split(":", 1)[1] for i in self.listed]
            self.picks = {p: set(ktest_select(self.root, [p], names)) for p in self.patterns}
        mine = {i.split(":", 1)[1] for i in mine}
        narrowed = {suite + re.sub(r"^[^./]*", "", p) if p not in ("all", "default") else suite
                    for p in self.patterns if self.picks[p] & mine}
        return ",".join(sorted(narrowed))


class Runner:
    """Builds and runs the tests of the tree at root; logs under root/build/grade/."""

    def __init__(self, root, jobs=2, verbose=False, case_timeout=120):
        self.root = os.path.abspath(root)
        self.jobs, self.verbose = jobs, verbose
        self.case_timeout = case_timeout        # seconds a host case may run (then: "hung")
        self.match_root = self.root             # whose ktest-host selects (ktest_select)
        self.log_dir = os.path.join(self.root, "build", "grade")
        shutil.rmtree(self.log_dir, ignore_errors=True)      # this run's logs only
        os.makedirs(self.log_dir, exist_ok=True)

    def log(self, name, text):
        with open(os.path.join(self.log_dir, name), "w") as f:
            f.write(text)

    def say(self, msg):
        if self.verbose:
            print(msg, flush=True)

    # -- build
    # ktest-host --match selects among the kernel's listed tests too (ktest_select).
    TARGETS = {
        "host": ["build/host/ktest-host"],
        "kernel": ["build/kernel32.elf", "build/host/ktest-host"],
        "user": ["build/kernel32.elf", "build/user/tests"],
        "mmscript": ["build/kernel32.elf", "build/user/mmscript"],
        "mmscript-host": ["build/user/mmscript", "build/host/mmscript-host"],
        "vmabench": ["build/bench/vmabench"],
    }

    def build(self, kinds):
        targets = sorted({t for k in kinds for t in self.TARGETS[k]})
        self.say("building %s" % " ".join(targets))
        status, out = run(["make", "-s", "-j%d" % self.jobs] + targets, self.root)
        self.log("build.log", out)
        return status == 0, out

    # -- host ktest
    def host_list(self, patterns):
        ids = []
        for chunk in filter_chunks(patterns):
            status, out = run(["build/host/ktest-host", "--list", chunk], self.root, 300)
            ids += [i for i in self._listed(out, "host", status) if i not in ids]
        return ids

    def _listed(self, out, kind, status):
        bad = _unmatched(out)
        if bad:
            raise GradeError("%s: no test matches %s" % (kind, ", ".join("'%s'" % b for b in bad)))
        lines = out.splitlines()
        for i, l in enumerate(lines):
            m = re.match(r"# ktest: (\d+) tests$", l)
            if m:
                n = int(m.group(1))
                return ["%s:%s" % (kind, x.strip()) for x in lines[i + 1:i + 1 + n]]
        raise GradeError("%s: cannot list the tests (status %d):\n%s" % (kind, status, out[-2000:]))

    def host_run(self, patterns):
        results = {}
        for n, chunk in enumerate(filter_chunks(patterns)):
            self.say("host: %s" % chunk)
            status, out = run(["build/host/ktest-host", "--fork", "--timeout", str(self.case_timeout),
                               chunk], self.root)
            self.log("host%s.log" % (n or ""), out)
            results.update(parse_ktap(out, "host"))
        return results

    # -- kernel ktest
    def boot(self, append, timeout=300, env=None):
        return run(["tools/qemu-run", "--kernel", "build/kernel32.elf", "--append", append,
                    "--timeout", str(timeout)], self.root, timeout + 30, env)

    def kernel_list(self, patterns):
        ids = []
        for n, chunk in enumerate(filter_chunks(patterns)):
            status, out = self.boot("ktest=%s ktest_list=on" % chunk, 120)
            self.log("kernel-list%s.log" % (n or ""), out)
            ids += [i for i in self._listed(out, "kernel", status) if i not in ids]
        return ids

    # Boots of one suite after the one that crashed, to run the cases after the crash.
    KERNEL_RETRIES = 3

    def kernel_run(self, patterns, listed, one_boot=False):
        """Run the listed kernel tests: one boot per suite, or one boot for everything
        (one_boot) with per-suite boots for what a crash left unreported. A suite's cases
        run in listed order, so the first without a result is the one the kernel hung or
        died in: it fails, and the cases after it run again in a fresh boot (KERNEL_RETRIES
        boots at most)."""
        suites = []
        for i in listed:
            s = i.split(":", 1)[1].split(".", 1)[0]
            if s not in suites:
                suites.append(s)
        results, narrow = {}, SuiteFilters(self.match_root, patterns, listed)
        if one_boot:
            for n, chunk in enumerate(filter_chunks(patterns)):
                results.update(self._kernel_boot(chunk, "kernel-all%s" % (n or "")))
        for s in suites:
            mine = [i for i in listed if i.split(":", 1)[1].startswith(s + ".")]
            if all(i in results for i in mine):
                continue
            flt = narrow.of(s, mine)
            ran = mine                       # the cases the boot's filter names
            for boot in range(self.KERNEL_RETRIES + 1):
                if all(i in results for i in mine):
                    break
                results.update(self._kernel_boot(flt, "kernel-%s%s" % (s, "-%d" % boot if boot else "")))
                lost = [i for i in ran if i not in results]
                if lost:
                    why = self.BOOT_END.get(self.last_boot_status, "the kernel stopped (tools/qemu-run "
                                            "status %d)" % self.last_boot_status)
                    results[lost[0]] = Result(False, self.last_boot_crash, why + " in this test")
                rest = [i for i in mine if i not in results]
                if rest and boot == self.KERNEL_RETRIES:
                    for i in rest:
                        results[i] = Result(False, "", "not run: the kernel stopped in %d boots of suite %s"
                                            % (boot + 1, s))
                elif rest:
                    flt = filter_chunks([i.split(":", 1)[1] for i in rest])[0]
                    ran = [i for i in rest if i.split(":", 1)[1] in flt.split(",")]
        for i in listed:
            if i not in results:
                results[i] = Result(False, "", "no result from the kernel")
        return results

    # tools/qemu-run's exit status -> what happened to the kernel
    BOOT_END = {2: "the kernel panicked", 3: "the kernel triple-faulted (QEMU reset)",
                4: "hung: the boot ran past its time limit",
                124: "hung: the boot ran past its time limit", 0: "the kernel stopped early",
                1: "the kernel stopped early"}

    def _kernel_boot(self, flt, logname):
        self.say("kernel: ktest=%s" % flt)
        status, out = self.boot("ktest=" + flt)
        self.log(logname + ".log", out)
        self.last_boot_status, self.last_boot_crash = status, crash_excerpt(out)
        return parse_ktap(out, "kernel")

    # -- user tests
    def user_list(self, names):
        status, out = run(["build/user/tests", "--list"] + names, self.root, 60)
        if status not in (0, 1):
            raise GradeError("user: cannot list the tests (status %d):\n%s" % (status, out))
        return ["user:" + l.strip() for l in out.splitlines()
                if l.strip() and not l.startswith("FAILED")]

    def user_run(self, listed):
        """One boot runs them all; after a crash the rest run again in a new boot."""
        results, todo, round_, empty_before = {}, [i.split(":", 1)[1] for i in listed], 0, False
        while todo:
            round_ += 1
            self.say("user: %d tests (boot %d)" % (len(todo), round_))
            status, out = run(["tools/run", "build/user/tests"] + todo, self.root, 900,
                              {"QEMU_CPU": os.environ.get("QEMU_CPU", "qemu64,+pku"),
                               "RUN_TIMEOUT": "600"})
            self.log("user-%d.log" % round_, out)
            got = self._parse_user(out)
            results.update(got)
            left = [t for t in todo if "user:" + t not in got]
            if left and not got and empty_before:
                # Two boots in a row without a single result: something systematic, not one test.
                for t in left:
                    results["user:" + t] = Result(False, "\n".join(out.splitlines()[-25:]),
                                                  "no test reported in two boots (tools/run status %d)"
                                                  % status)
                break
            if left and not (got and status == 124):
                # The first test without a result is the one the kernel died in. (A boot that
                # ran past its time after some results is slow, not dead: the rest run again;
                # a test that hangs ends in the program's own 300 s watchdog, which reports it
                # as hung, even when SIGKILL cannot end it; a boot past its time with no
                # result at all is reported as hung in its first test.)
                results["user:" + left[0]] = Result(
                    False, crash_excerpt(out),
                    ("hung: the boot ran past its time limit in this test (tools/run status %d)"
                     if status == 124 else "the kernel died while this test ran (tools/run status %d)")
                    % status)
                left = left[1:]
            empty_before = not got
            todo = left
        return results

    @staticmethod
    def _parse_user(out):
        results, diag = {}, []
        for line in out.splitlines():
            m = re.match(r"^ok (\S+)", line)
            f = re.match(r"^FAILED (\S+)(.*)$", line)
            if m:
                results["user:" + m.group(1)] = Result(True, "\n".join(diag))
                diag = []
            elif f and f.group(1) != "no":
                results["user:" + f.group(1)] = Result(False, "\n".join(diag + [line]))
                diag = []
            elif line.strip() and not re.match(r"^(\d+ passed|usertests on )", line):
                diag.append(line)
        return results

    # -- mmscript corpus
    def mmscript_list(self, names, kind):
        corpus = sorted(f[:-4] for f in os.listdir(os.path.join(self.root, "tests", "mmscript"))
                        if f.endswith(".mms"))
        return ["%s:%s" % (kind, n) for n in corpus if any(fnmatch.fnmatchcase(n, p) for p in names)]

    def mmscript_run(self, listed, kind):
        target = "kernel" if kind == "mmscript" else "host"
        out_dir = os.path.join(self.log_dir, kind)
        shutil.rmtree(out_dir, ignore_errors=True)
        results, todo, round_ = {}, [i.split(":", 1)[1] for i in listed], 0
        while todo:
            round_ += 1
            self.say("%s: %d scripts (run %d)" % (kind, len(todo), round_))
            files = [os.path.join("tests", "mmscript", n + ".mms") for n in todo]
            status, out = run(["tools/mmscript", "--target", target, "--out", out_dir,
                               "--personality", "base", "--expect", "tests/mmscript"] + files,
                              self.root, 900)
            self.log("%s-%d.log" % (kind, round_), out)
            for line in out.splitlines():
                m = re.match(r"^(PASS|FAIL) (\S+?):?( .*)?$", line)
                if m and m.group(2) in todo:
                    results["%s:%s" % (kind, m.group(2))] = Result(m.group(1) == "PASS", line)
            started = [n for n in todo if os.path.exists(os.path.join(out_dir, n + ".out"))]
            never = [n for n in todo if n not in started]
            if never and len(never) == len(todo):
                for n in todo:
                    results["%s:%s" % (kind, n)] = Result(False, out[-2000:], "the run failed")
                break
            todo = never
        return results

    # -- vmabench
    def vmabench_run(self, selectors):
        results = {}
        for sel in selectors:
            parts = sel.split()
            backend = parts[0]
            n = parts[1] if len(parts) > 1 else "4096"
            kind = parts[2] if len(parts) > 2 else "mixed"
            trace = os.path.join(self.log_dir, "trace-%s-%s.trace" % (n, kind))
            status, out = run(["tools/bench/vmatrace-gen", "--n", n, "--kind", kind, "--out", trace],
                              self.root, 300)
            if status == 0:
                status, out = run(["build/bench/vmabench", "--backend", backend, "--trace", trace],
                                  self.root, 600)
            self.log("vmabench-%s.log" % backend, out)
            note = "" if status == 0 else "vmabench exit status %d" % status
            results["vmabench:" + sel] = Result(status == 0, out[-3000:], note)
        return results


# ------------------------------------------------------------------- grading

def _unmatched(out):
    return re.findall(r"'([^']*)' matches no test", out)


def list_selection(runner, sel):
    """{kind: [ids]} for {kind: [selectors]}; GradeError when a selector names no test."""
    listed = {}
    for kind, sels in sel.items():
        if kind in ("host", "kernel"):
            pats = [p for s in sels for p in s.split(",") if p]
            ids = runner.host_list(pats) if kind == "host" else runner.kernel_list(pats)
        elif kind == "user":
            ids = runner.user_list([n for s in sels for n in s.split()])
        elif kind in ("mmscript", "mmscript-host"):
            ids = runner.mmscript_list([n for s in sels for n in s.split()], kind)
        else:
            for s in sels:
                _, out = run(["build/bench/vmabench", "--backend", s.split()[0], "--trace", "/dev/null"],
                             runner.root, 60)
                if "unknown backend" in out:
                    raise GradeError("vmabench: %s" % out.strip())
            ids = [kind + ":" + s for s in sels]
        listed[kind] = ids
        for s in sels:
            probe = Line(0, kind, s, 0)
            if kind != "vmabench" and not ids_of_line(runner.match_root, probe, ids):
                raise GradeError("%s selector '%s' names no test" % (kind, s))
    return listed


def run_selection(runner, sel, listed, one_boot=False):
    """Run the listed tests; {id: Result}."""
    results = {}
    for kind, sels in sel.items():
        if kind in ("host", "kernel"):
            pats = [p for s in sels for p in s.split(",") if p]
            if kind == "host":
                results.update(runner.host_run(pats))
            else:
                results.update(runner.kernel_run(pats, listed[kind], one_boot))
        elif kind == "user":
            results.update(runner.user_run(listed[kind]))
        elif kind in ("mmscript", "mmscript-host"):
            results.update(runner.mmscript_run(listed[kind], kind))
        else:
            results.update(runner.vmabench_run(sels))
    for ids in listed.values():
        for i in ids:
            results.setdefault(i, Result(False, "", "no result (the run ended before this test)"))
    return results


def selection_of(lines):
    """{kind: [selectors]} of manifest lines (a regression line's items under their kinds)."""
    sel = {}
    for l in lines:
        for kind, selector in l.items:
            if selector not in sel.setdefault(kind, []):
                sel[kind].append(selector)
    return sel


def grade_lines(runner, lines, pins=None, lab=None):
    """[(line, ids, results, note)] with every selected test run (lab's regression line less
    the tests of later labs, later_lines); with pins ({label: count},
    read_pins), GradeError before anything runs when a line selects another number."""
    sel = selection_of(lines)
    listed = list_selection(runner, sel)
    later = later_lines(runner.root, lab) if lab else []
    ids = line_ids(runner.match_root, lines, listed, later)
    if pins is not None:
        problems = pin_problems(lab, lines, ids, pins)
        if problems:
            raise GradeError("the manifest does not select the pinned tests:\n  " + "\n  ".join(problems))
    # One boot for all the kernel tests (a regression line lists whole suites), per-suite
    # boots only for what a crash left unreported.
    results = run_selection(runner, sel, listed, one_boot=True)
    return [(l, got, results, "") for l, got in zip(lines, ids)]


# Failed tests a line's report details (their key lines), and names after that.
DETAILED_FAILURES, NAMED_FAILURES = 10, 40


def report(scored, out):
    """Print each line's score and the failures; returns (total, max, tests for the JSON:
    Gradescope's "tests", named by Line.short_name, hidden lines visible after publishing)."""
    total = max_total = 0.0
    tests = []
    for line, ids, results, note in scored:
        passed = [i for i in ids if results[i].ok]
        failed = [i for i in ids if not results[i].ok]
        score = line.score(len(passed), len(ids))
        total += score
        max_total += line.points
        text = [note] if note else []
        for n, i in enumerate(failed[:NAMED_FAILURES]):
            r = results[i]
            text.append("FAIL %s%s" % (i, ": " + r.note if r.note else ""))
            if n < DETAILED_FAILURES:
                text += ["    " + d for d in key_lines(r.output)]
        if len(failed) > NAMED_FAILURES:
            text.append("(%d more failed tests: build/grade/ has the logs)" % (len(failed) - NAMED_FAILURES))
        out.write("  %6.2f/%-6g %-46s %d/%d passed\n" % (score, line.points, line.label, len(passed), len(ids)))
        for t in text:
            out.write("      %s\n" % t)
        test = {"name": line.short_name, "score": score, "max_score": line.points,
                "output": "%s\n%d of %d tests passed\n%s" % (line.label, len(passed), len(ids), "\n".join(text))}
        if line.hidden:
            test["visibility"] = "after_published"
        tests.append(test)
    out.flush()
    return round(total, 2), max_total, tests
