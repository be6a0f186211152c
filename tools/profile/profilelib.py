"""profilelib: what tools/profile-run and tools/profile/profile-suite share.

Running a program under the profiler (profile=user, kernel/profile/profile.c), and
reading what comes back: the program's "@result key=value ..." lines (the
workloads' results, user/workloads/wl.h), the readprofile table and the
folded stacks, which the kernel prints as one report when init exits.

The output channel: tools/run prints the program's output on stdout and the
kernel's reports on stderr today. The blocks are found by their marker
lines ("# profile-table begin" ... "# profile-table end", the same for
"profile-folded") wherever they arrive, so only find_blocks() depends on
the console protocol, and not even on which stream carries what.
"""
import bisect
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Guest time = guest instructions: the figures repeat exactly run to run.
# sleep=off: an idle guest's clock jumps to the next timer instead of
# following the host's clock, so idle time is reproducible too.
ICOUNT = "-icount shift=0,sleep=off"


class RunResult:
    """What one profiled run produced."""

    def __init__(self, rc, stdout, stderr):
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        blocks, rest = find_blocks(stdout + "\n" + stderr)
        self.table_text = blocks.get("profile-table", "")
        self.folded_text = blocks.get("profile-folded", "")
        self.user_text = blocks.get("profile-user", "")
        self.other = rest
        self.results = parse_results(stdout)
        self.table = parse_table(self.table_text) if self.table_text else None


def run_profiled(elf, args, append="", modules=(), hz=10000, stacks=False, icount=True,
                 profile=True, timeout=900, mem=None, smp=None, release=False, swap=None, qemu=None):
    """Boot the kernel with elf as init (tools/run) under profile=user; returns a RunResult.
    smp: QEMU's -smp (guest CPUs); it goes after the caller's RUN_QEMU_ARGS, so it wins over
    tools/run's -smp $QEMU_SMP (default 4). None: whatever RUN_QEMU_ARGS and QEMU_SMP say.
    release: boot the release kernel (LOCKDEP=0, tools/run --release) instead of the
    lock-checking one. swap: a swap disk of that size (tools/run --swap SIZE).
    qemu: (binary, its extra arguments) instead of $QEMU or the system's (icount_smp_qemu)."""
    opts = []
    if profile:
        opts += ["profile=user", "profile_hz=%d" % hz]
        if stacks:
            opts.append("profile_stacks=on")
    if append:
        opts.append(append)
    env = dict(os.environ)
    env["RUN_APPEND"] = " ".join(opts)
    qemu_args = ([ICOUNT] if icount else []) + [env.get("RUN_QEMU_ARGS", "")] \
        + (["-smp %d" % smp] if smp else [])
    if qemu:
        env["QEMU"] = qemu[0]
        qemu_args.append(qemu[1])
    env["RUN_QEMU_ARGS"] = " ".join(a for a in qemu_args if a)
    env["RUN_TIMEOUT"] = str(timeout)
    if mem:
        env["QEMU_MEM"] = mem
    env.setdefault("QEMU_MEM", "128M")  # the memory the stored results were measured with
    cmd = [os.path.join(ROOT, "tools", "run")] + (["--release"] if release else [])
    if swap:
        cmd += ["--swap", swap]
    for m in modules:
        cmd += ["--module", in_tree(m)]
    cmd += [in_tree(elf)] + list(args)
    p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return RunResult(p.returncode, p.stdout.decode("utf-8", "replace"),
                     p.stderr.decode("utf-8", "replace"))


_ICOUNT_SMP_QEMU = []


def icount_smp_qemu():
    """(binary, extra arguments) of a QEMU whose -icount turns are fair to every vCPU: 10.0 or
    newer, fetched from bookworm-backports when the system's is older (tools/bench/linuxlib.sh,
    fetch_icount_smp_qemu, which says why 7.2 starves a vCPU). Once per run of the suite."""
    if not _ICOUNT_SMP_QEMU:
        p = subprocess.run(["bash", "-c", "die() { echo \"$*\" >&2; exit 1; }; . tools/bench/linuxlib.sh; "
                            "fetch_icount_smp_qemu; printf '%s\\n%s\\n' \"$smp_qemu\" \"$smp_qemu_args\""],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise RuntimeError("no QEMU for fair -icount turns: " + p.stderr.decode("utf-8", "replace").strip())
        lines = p.stdout.decode().split("\n")
        _ICOUNT_SMP_QEMU.append((lines[0], lines[1]))
    return _ICOUNT_SMP_QEMU[0]


def in_tree(path):
    """path relative to the tree when it is inside it: the program sees its argv[0] and its
    modules' names, and these strings must not depend on where the tree is checked out,
    or the samples of two checkouts would fall on different instructions."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return path if rel.startswith("..") else rel


def run_host(elf, args, timeout=900):
    """Run the same static binary on the host Linux; returns a RunResult (no profile)."""
    p = subprocess.run([elf] + list(args), cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return RunResult(p.returncode, p.stdout.decode("utf-8", "replace"),
                     p.stderr.decode("utf-8", "replace"))


def find_blocks(text):
    """Split out the "# NAME begin" .. "# NAME end" blocks: ({name: body}, the other lines)."""
    blocks, rest, name, body = {}, [], None, []
    for line in text.splitlines():
        m = re.match(r"^# (profile-[a-z]+) (begin|end)$", line.strip())
        if m and m.group(2) == "begin":
            name, body = m.group(1), []
        elif m and name == m.group(1):
            blocks[name] = "\n".join(body) + "\n"
            name = None
        elif name:
            body.append(line)
        else:
            rest.append(line)
    return blocks, "\n".join(rest)


def parse_results(text):
    """The "@result key=value ..." lines as dicts (numbers converted)."""
    out = []
    for line in text.splitlines():
        if not line.startswith("@result "):
            continue
        d = {}
        for word in line[len("@result "):].split():
            if "=" in word:
                k, v = word.split("=", 1)
                d[k] = to_number(v)
        out.append(d)
    return out


def to_number(v):
    if re.fullmatch(r"-?\d+", v):
        return int(v)
    if re.fullmatch(r"-?\d+\.\d+", v):
        return float(v)
    return v


HEADER = re.compile(r"^# readprofile: (\d+) samples at (\d+) Hz \(([\d.]+) s of guest time\): "
                    r"kernel (\d+) \(([\d.]+)%\), user (\d+) \(([\d.]+)%\), unknown (\d+)$")
ROW = re.compile(r"^([0-9a-f]{16}) (\S+)\s+(\d+)\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)$")


def parse_table(text):
    """The kernel's readprofile table (include/profile.h) as a dict; raises ValueError if malformed."""
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        raise ValueError("empty table")
    m = HEADER.match(lines[0])
    if not m:
        raise ValueError("no header line: %r" % lines[0])
    t = {"samples": int(m.group(1)), "hz": int(m.group(2)), "seconds": float(m.group(3)),
         "kernel": int(m.group(4)), "user": int(m.group(6)), "unknown": int(m.group(8)),
         "rows": [], "total": None}
    for l in lines[1:]:
        if l.startswith("#") or l.startswith("address"):
            continue
        r = ROW.match(l)
        if not r:
            raise ValueError("malformed line: %r" % l)
        row = {"addr": int(r.group(1), 16), "function": r.group(2), "ticks": int(r.group(3)),
               "pct_kernel": float(r.group(4)), "pct_all": float(r.group(5)),
               "load": float(r.group(6))}
        if row["function"] == "total" and row["addr"] == 0:
            t["total"] = row
        else:
            t["rows"].append(row)
    if t["total"] is None:
        raise ValueError("no total line")
    return t


def check_table(t):
    """Consistency problems of a parsed table (an empty list when it is well formed)."""
    problems = []
    s = sum(r["ticks"] for r in t["rows"])
    if s != t["total"]["ticks"]:
        problems.append("function lines sum to %d, total says %d" % (s, t["total"]["ticks"]))
    if t["total"]["ticks"] != t["kernel"]:
        problems.append("total %d != kernel samples %d" % (t["total"]["ticks"], t["kernel"]))
    if t["kernel"] + t["user"] + t["unknown"] != t["samples"]:
        problems.append("kernel + user + unknown != samples")
    ticks = [r["ticks"] for r in t["rows"]]
    if ticks != sorted(ticks, reverse=True):
        problems.append("lines not sorted by ticks")
    pct = sum(r["pct_kernel"] for r in t["rows"])
    if t["rows"] and abs(pct - 100.0) > 0.01 * len(t["rows"]) + 0.01:
        problems.append("%%kernel sums to %.2f" % pct)
    for r in t["rows"]:
        want = 100.0 * r["ticks"] / t["kernel"] if t["kernel"] else 0
        if abs(want - r["pct_kernel"]) > 0.011:
            problems.append("%s: %%kernel %.2f, expected %.2f" % (r["function"], r["pct_kernel"], want))
            break
    return problems


def parse_user(text):
    """The kernel's user-sample block (kernel/profile/profile_user.c) as ([(comm, rip, count)],
    dropped); raises ValueError on a malformed line."""
    samples, dropped = [], 0
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = re.match(r"^\[dropped\] (\d+)$", line)
        if m:
            dropped += int(m.group(1))
            continue
        m = re.match(r"^(\S+) 0x([0-9a-f]+) (\d+)$", line)
        if not m:
            raise ValueError("malformed user-sample line: %r" % line)
        samples.append((m.group(1), int(m.group(2), 16), int(m.group(3))))
    return samples, dropped


def elf_functions(elf):
    """The function symbols of a non-PIE ELF as a sorted [(start, end, name)]; [] for a
    position-independent one (its load address is not known here) or when nm fails."""
    with open(elf, "rb") as f:
        head = f.read(18)
    if head[:4] != b"\x7fELF" or int.from_bytes(head[16:18], "little") != 2:   # ET_EXEC
        return []
    p = subprocess.run(["nm", "-S", "--defined-only", elf], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    funcs = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        w = line.split()
        if len(w) == 4 and w[2] in "TtWw":
            start = int(w[0], 16)
            funcs.append((start, start + int(w[1], 16), w[3]))
    return sorted(funcs)


def user_namer(elf):
    """A function rip -> the name of elf's function containing rip ("[unknown]" outside
    every function, and for every rip when elf_functions finds none)."""
    funcs = elf_functions(elf)
    starts = [f[0] for f in funcs]

    def name(rip):
        i = bisect.bisect_right(starts, rip) - 1
        return funcs[i][2] if i >= 0 and rip < funcs[i][1] else "[unknown]"
    return name


def program_comm(elf):
    """The task name the kernel gives a program started from elf: its file name, cut to
    15 characters (TASK_COMM_LEN - 1)."""
    return os.path.basename(elf)[:15]


def resolve_user(samples, elf):
    """User samples by function: {name: count}. Samples of the program itself (task name =
    program_comm(elf)) are named from its symbols ("[unknown]" outside every function);
    other programs' are "[COMM]"."""
    comm, name = program_comm(elf), user_namer(elf)
    out = {}
    for c, rip, n in samples:
        key = name(rip) if c == comm else "[%s]" % c
        out[key] = out.get(key, 0) + n
    return out


def split_user_stacks(folded, samples, elf):
    """The folded stacks (text) with the program's one user-mode line, "COMM;[user] N",
    replaced by one "COMM;user:FUNC n" line per function of the program that the
    user-sample block (parse_user: the same samples, kept by RIP) names, most samples
    first. Returns (text, True), or (folded, False) unchanged when elf has no symbols or
    the block's count for COMM is not N (one of the kernel's tables was full)."""
    comm = program_comm(elf)
    mine = [(rip, n) for c, rip, n in samples if c == comm]
    if not elf_functions(elf):
        return folded, False
    name, by_func = user_namer(elf), {}
    for rip, n in mine:
        by_func[name(rip)] = by_func.get(name(rip), 0) + n
    out, split = [], False
    for line in folded.splitlines():
        m = re.match(r"^(\S+);\[user\] (\d+)$", line)
        if m and m.group(1) == comm and int(m.group(2)) == sum(by_func.values()):
            out += ["%s;user:%s %d" % (comm, f, n)
                    for f, n in sorted(by_func.items(), key=lambda kv: (-kv[1], kv[0]))]
            split = True
        else:
            out.append(line)
    return ("\n".join(out) + "\n", True) if split else (folded, False)


def user_table_text(by_function, user_total):
    """The user samples by function as a table like the kernel's: ticks, % of user samples."""
    lines = ["# user samples by function (the program's ELF symbols; [COMM]: another program)",
             "%-40s %7s %8s" % ("function", "ticks", "%user")]
    for name, n in sorted(by_function.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append("%-40s %7d %7.2f%%" % (name, n, 100.0 * n / user_total if user_total else 0))
    lines.append("%-40s %7d %7.2f%%" % ("total", sum(by_function.values()),
                                        100.0 if user_total else 0))
    return "\n".join(lines) + "\n"


def resolve_entries(folded, elf):
    """The folded stacks (text) with each "[user@0xRIP]" frame (profile_entry=on: the user
    address a task entered the kernel from) named: "user:FUNC" from elf's symbols for the
    program's own task (program_comm), "[user]" for another program's. Stacks that become
    the same are merged (first one's place, counts added). Other lines stay as they are."""
    comm, name = program_comm(elf), user_namer(elf)
    merged, order = {}, []
    for line in folded.splitlines():
        m = re.match(r"^([^;]+);\[user@0x([0-9a-f]+)\](;.*)? (\d+)$", line)
        if m:
            frame = "user:" + name(int(m.group(2), 16)) if m.group(1) == comm else "[user]"
            key, n = "%s;%s%s" % (m.group(1), frame, m.group(3) or ""), int(m.group(4))
        else:
            key, n = line, None
        if key not in merged:
            order.append(key)
            merged[key] = None if n is None else 0
        if n is not None:
            merged[key] += n
    return "".join(k + ("" if merged[k] is None else " %d" % merged[k]) + "\n" for k in order)


def parse_folded(text):
    """Folded stacks as {stack: count}; raises ValueError on a malformed line."""
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = re.match(r"^(\S+) (\d+)$", line)
        if not m:
            raise ValueError("malformed folded line: %r" % line)
        out[m.group(1)] = out.get(m.group(1), 0) + int(m.group(2))
    return out
