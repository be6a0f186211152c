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

A line's score is its points times the fraction of the tests it selects
that pass. ktest selectors use the runners' language (include/ktest.h).

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
import shutil
import subprocess

KINDS = ("host", "kernel", "user", "mmscript", "mmscript-host", "vmabench")


class GradeError(Exception):
    pass


class Line:
    def __init__(self, points, kind, selector, lineno):
        self.points, self.kind, self.selector, self.lineno = points, kind, selector, lineno

    @property
    def label(self):
        return "%s %s" % (self.kind, self.selector)


class Result:
    def __init__(self, ok, output="", note=""):
        self.ok, self.output, self.note = ok, output, note


def lab_names(root):
    d = os.path.join(root, "labs")
    if not os.path.isdir(d):
        return []
    return sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n, "manifest")))


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
            parts = text.split(None, 2)
            if len(parts) != 3 or parts[1] not in KINDS:
                raise GradeError("%s:%d: want 'POINTS KIND SELECTOR' with KIND one of %s"
                                 % (path, n, ", ".join(KINDS)))
            try:
                points = float(parts[0])
            except ValueError:
                raise GradeError("%s:%d: points '%s' is not a number" % (path, n, parts[0]))
            lines.append(Line(points, parts[1], parts[2].strip(), n))
    if not lines:
        raise GradeError("%s: no tests" % path)
    return title, lines


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


def split_pattern(p):
    """SUITE[.CASE][/PARAM] -> (suite, case, param or None), as lib/ktest_filter.c splits it."""
    param = None
    if "/" in p:
        p, param = p.split("/", 1)
    suite, _, case = p.partition(".")
    return suite, case or "*", param


def ktest_id_matches(pattern, name):
    """Does the listed test name 'suite.case[/param]' match one ktest pattern? ("all" and
    "default" match every listed name: which suites are slow, the list does not say.)"""
    if pattern in ("all", "default"):
        return True
    suite, case, param = split_pattern(pattern)
    tsuite, _, rest = name.partition(".")
    tcase, _, tparam = rest.partition("/")
    if not fnmatch.fnmatchcase(tsuite, suite) or not fnmatch.fnmatchcase(tcase, case):
        return False
    if param is None:
        return True
    return bool(tparam) and fnmatch.fnmatchcase(tparam, param)


def ids_of_line(line, listed):
    """The ids a manifest line selects among the listed ones of its kind (in listed order)."""
    if line.kind in ("host", "kernel"):
        pats = [p for p in line.selector.split(",") if p]
        return [i for i in listed if any(ktest_id_matches(p, i.split(":", 1)[1]) for p in pats)]
    if line.kind == "vmabench":
        return [line.kind + ":" + line.selector]
    pats = line.selector.split()
    return [i for i in listed if any(fnmatch.fnmatchcase(i.split(":", 1)[1], p) for p in pats)]


# ------------------------------------------------------------------- runners

def run(cmd, cwd, timeout=None, env=None):
    """(status, stdout+stderr) of cmd; status 124 when it ran past timeout."""
    e = dict(os.environ)
    if env:
        e.update(env)
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=e)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as ex:
        out = ex.stdout.decode(errors="replace") if ex.stdout else ""
        return 124, out


def parse_ktap(text, kind):
    """{id: Result} from a KTAP stream of ktest (suites as subtests, cases inside)."""
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
            results["%s:%s.%s" % (kind, suite, m.group(2))] = Result(ok, "\n".join(diag), note)
            diag = []
            continue
        if line.lstrip().startswith("#") and line.startswith("    ") and suite:
            diag.append(line.strip())
    return results


class Runner:
    """Builds and runs the tests of the tree at root; logs under root/build/grade/."""

    def __init__(self, root, jobs=2, verbose=False):
        self.root = os.path.abspath(root)
        self.jobs, self.verbose = jobs, verbose
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
    TARGETS = {
        "host": ["build/host/ktest-host"],
        "kernel": ["build/kernel32.elf"],
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

    def host_run(self, patterns, timeout=120):
        results = {}
        for n, chunk in enumerate(filter_chunks(patterns)):
            self.say("host: %s" % chunk)
            status, out = run(["build/host/ktest-host", "--fork", "--timeout", str(timeout), chunk],
                              self.root)
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

    def kernel_run(self, patterns, listed, one_boot=False):
        """Run the listed kernel tests: one boot per suite, or one boot for everything
        (one_boot) with per-suite boots for what a crash left unreported."""
        suites = []
        for i in listed:
            s = i.split(":", 1)[1].split(".", 1)[0]
            if s not in suites:
                suites.append(s)
        results = {}
        if one_boot:
            for n, chunk in enumerate(filter_chunks(patterns)):
                results.update(self._kernel_boot(chunk, "kernel-all%s" % (n or "")))
        for s in suites:
            mine = [i for i in listed if i.split(":", 1)[1].startswith(s + ".")]
            if all(i in results for i in mine):
                continue
            pats = sorted({self._pattern_in_suite(p, s) for p in patterns} - {None})
            got = self._kernel_boot(",".join(pats), "kernel-" + s)
            results.update(got)
        for i in listed:
            if i not in results:
                results[i] = Result(False, self.last_boot_tail, "the kernel died before it reported")
        return results

    @staticmethod
    def _pattern_in_suite(p, suite):
        if p in ("default", "all"):
            return suite
        s, case, param = split_pattern(p)
        if not fnmatch.fnmatchcase(suite, s):
            return None
        return "%s.%s%s" % (suite, case, "/" + param if param is not None else "")

    def _kernel_boot(self, flt, logname):
        self.say("kernel: ktest=%s" % flt)
        status, out = self.boot("ktest=" + flt)
        self.log(logname + ".log", out)
        self.last_boot_tail = "\n".join(out.splitlines()[-25:])
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
                    False, "\n".join(out.splitlines()[-25:]),
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
            if kind != "vmabench" and not ids_of_line(probe, ids):
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
    sel = {}
    for l in lines:
        sel.setdefault(l.kind, []).append(l.selector)
    return sel


def grade_lines(runner, lines):
    """[(line, ids, results, note)] with every selected test run."""
    sel = selection_of(lines)
    listed = list_selection(runner, sel)
    results = run_selection(runner, sel, listed)
    return [(l, ids_of_line(l, listed[l.kind]), results, "") for l in lines]


def report(scored, out, detail_lines=8):
    """Print each line's score and the failures; returns (total, max, tests for the JSON)."""
    total = max_total = 0.0
    tests = []
    for line, ids, results, note in scored:
        passed = [i for i in ids if results[i].ok]
        score = round(line.points * len(passed) / len(ids), 2) if ids else 0.0
        total += score
        max_total += line.points
        text = []
        if note:
            text.append(note)
        for i in ids:
            r = results[i]
            if r.ok:
                continue
            text.append("FAIL %s%s" % (i, ": " + r.note if r.note else ""))
            detail = [d for d in r.output.splitlines() if d.strip()][:detail_lines]
            text += ["    " + d for d in detail]
        out.write("  %6.2f/%-6g %-46s %d/%d passed\n" % (score, line.points, line.label, len(passed), len(ids)))
        for t in text:
            out.write("      %s\n" % t)
        tests.append({"name": line.label, "score": score, "max_score": line.points,
                      "output": "%d of %d tests passed\n%s" % (len(passed), len(ids), "\n".join(text))})
    out.flush()
    return round(total, 2), max_total, tests
