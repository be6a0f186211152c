"""Submissions with known scores, for tools/check-labs' test of tools/grade-batch.

The test grades in a reference repository made from the tree (its files,
committed) with lab lazy's manifest cut down to host tests: a hung case
is a killed host process (ktest-host --fork --timeout) rather than a boot
that runs out its time, and each submission rebuilds only its two lab
files for the host. The submissions and what each must score:

  full       the reference tree                                       50
  skeleton   tools/mklab lazy                                         10 (regression only)
  half       the skeleton with the expand_stack region solved         30
  hung       the reference with expand_stack an infinite loop         30, "hung"
  tampered   the skeleton, a manifest naming two tests that pass on
             it, a test file edited, a line added outside the regions 10, and those 3 flagged
  half-b     the skeleton with the private_fault region solved        30
  lab-files  only the reference's two lab files                       50
  no-marker  the reference without expand_stack's END marker          30, flagged
  no-build   the reference with a syntax error in expand_stack        0 (nothing builds)
  empty      no file at all                                           10, both files flagged
  bug-on     the reference with a BUG_ON that fires in expand_stack   30, the BUG_ON's text shown
"""

import os
import shutil
import subprocess

from . import markers, submission

LAB = "lazy"
MANIFEST = """# Lazy allocation and stack growth (tools/check-labs' grade-batch test: lab lazy's host tests)
20 host     mm_fault.test_stack_growth_limits
20 host     mm_fault.test_demand_paging_sparse,mm_fault.test_fault_oom,mm_fault.test_read_fault_without_zero_page,mm_fault.test_zero_page_then_cow
10 regression host:mm_file
"""
# What a student edits to get free points: a manifest of two tests the skeleton passes, ...
TAMPERED_MANIFEST = "# Lazy allocation\n50 host mm_vm.test_brk,vma_diff.test_model_selftest\n"
TEST_FILE = "tests/unit/test_mm_fault.c"               # ... a test file of the lab, ...
LAB_FILE = "mm/stack.c"                                # ... a change outside the regions.
HUNG_TAG = "expand_stack"
FAULT_FILE, FAULT_TAG = "mm/fault.c", "private_fault"

# name -> (score, max score, substrings of the flags, a substring of its log)
EXPECTED = {
    "full": (50, 50, [], ""),
    "skeleton": (10, 50, [], ""),
    "half": (30, 50, [], ""),
    "hung": (30, 50, [], "hung: case timed out"),
    "tampered": (10, 50, ["changed outside the lab's regions: " + LAB_FILE,
                          "not the lab's to change: labs/%s/manifest" % LAB,
                          "not the lab's to change: " + TEST_FILE], ""),
    "half-b": (30, 50, [], ""),
    "lab-files": (50, 50, [], ""),
    "no-marker": (30, 50, ["broken markers: " + LAB_FILE], ""),
    "no-build": (0, 50, [], "the build failed"),
    "empty": (10, 50, ["missing: " + LAB_FILE, "missing: " + FAULT_FILE], ""),
    "bug-on": (30, 50, [], "BUG_ON(addr != 0)"),
}


def _git(tree, *args):
    subprocess.run(["git", "-C", tree, "-c", "user.name=check-labs", "-c", "user.email=check-labs@localhost"]
                   + list(args), check=True, capture_output=True)


def copy_tree(src, dst):
    """The files of the tree src (markers.tree_files) in dst, modification times kept."""
    for p in markers.tree_files(src):
        os.makedirs(os.path.dirname(os.path.join(dst, p)), exist_ok=True)
        shutil.copy2(os.path.join(src, p), os.path.join(dst, p))


def reference_repo(root, ref):
    """A git repository at ref holding root's files, its build outputs and the cut-down
    manifest, with pins (ref's tools/grade --pin). Returns the pinning's output."""
    shutil.rmtree(ref, ignore_errors=True)
    copy_tree(root, ref)
    submission.copy_build(root, ref)
    with open(os.path.join(ref, "labs", LAB, "manifest"), "w") as f:
        f.write(MANIFEST)
    subprocess.run(["git", "init", "-q", ref], check=True)
    _git(ref, "add", "-A")
    _git(ref, "commit", "-q", "-m", "the reference")
    r = subprocess.run([os.path.join(ref, "tools", "grade"), LAB, "--pin"], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("tools/grade %s --pin failed:\n%s" % (LAB, r.stdout + r.stderr))
    _git(ref, "add", "-A")
    _git(ref, "commit", "-q", "-m", "pins")
    return r.stdout


def _set_region(tree, path, tag, text):
    lines = markers.read_lines(tree, path)
    regions = [r for r in markers.scan_text(path, lines) if r.tag == tag]
    with open(os.path.join(tree, path), "w") as f:
        f.write(markers.fill_regions(lines, regions, {tag: text}))


def _region_text(tree, path, tag):
    lines = markers.read_lines(tree, path)
    return markers.region_texts(lines, markers.scan_text(path, lines))[tag]


def make_submissions(ref, subs):
    """The submissions of EXPECTED as directories under subs."""
    shutil.rmtree(subs, ignore_errors=True)
    os.makedirs(subs)
    mklab = os.path.join(ref, "tools", "mklab")
    for name in ("skeleton", "half", "tampered", "half-b"):
        subprocess.run([mklab, LAB, "--out", os.path.join(subs, name)], check=True, capture_output=True)
    for name in ("full", "hung", "no-marker", "no-build", "bug-on"):
        copy_tree(ref, os.path.join(subs, name))
    os.makedirs(os.path.join(subs, "empty"))
    for path in (LAB_FILE, FAULT_FILE):
        os.makedirs(os.path.join(subs, "lab-files", os.path.dirname(path)), exist_ok=True)
        shutil.copy2(os.path.join(ref, path), os.path.join(subs, "lab-files", path))
    _set_region(os.path.join(subs, "half"), LAB_FILE, HUNG_TAG, _region_text(ref, LAB_FILE, HUNG_TAG))
    _set_region(os.path.join(subs, "half-b"), FAULT_FILE, FAULT_TAG, _region_text(ref, FAULT_FILE, FAULT_TAG))
    _set_region(os.path.join(subs, "no-build"), LAB_FILE, HUNG_TAG, "this is not C\n")
    path = os.path.join(subs, "no-marker", LAB_FILE)
    with open(path) as f:
        text = f.read()
    end = "/* LAB %s: END %s */\n" % (LAB, HUNG_TAG)
    if end not in text:
        raise RuntimeError("%s has no line '%s'" % (LAB_FILE, end.strip()))
    with open(path, "w") as f:
        f.write(text.replace(end, ""))
    skeleton = open(markers.snippet_path(ref, LAB, HUNG_TAG)).read()
    if "/* TODO */" not in skeleton:
        raise RuntimeError("labs/%s/%s.c has no /* TODO */ to put the loop at" % (LAB, HUNG_TAG))
    _set_region(os.path.join(subs, "hung"), LAB_FILE, HUNG_TAG, skeleton.replace("/* TODO */", "for (;;) {}"))
    _set_region(os.path.join(subs, "bug-on"), LAB_FILE, HUNG_TAG, skeleton.replace("/* TODO */", "BUG_ON(addr != 0);"))
    t = os.path.join(subs, "tampered")
    with open(os.path.join(t, "labs", LAB, "manifest"), "w") as f:
        f.write(TAMPERED_MANIFEST)
    with open(os.path.join(t, TEST_FILE), "a") as f:
        f.write("/* a student's edit of the tests */\n")
    with open(os.path.join(t, LAB_FILE), "a") as f:
        f.write("/* a change outside the lab's regions */\n")


def problems(out_dir):
    """What the roll-up of grade-batch (out_dir/grades.json) and its logs got wrong."""
    import json
    with open(os.path.join(out_dir, "grades.json")) as f:
        rows = {r["name"]: r for r in json.load(f)}
    bad = []
    for name, (score, max_score, flags, log) in sorted(EXPECTED.items()):
        r = rows.get(name)
        if not r:
            bad.append("%s: not in grades.json" % name)
            continue
        if (r["status"], r["score"], r["max_score"]) != ("graded", score, max_score):
            bad.append("%s: %s %s/%s, want graded %s/%s" % (name, r["status"], r["score"], r["max_score"],
                                                            score, max_score))
        text = "\n".join(r["flags"])
        bad += ["%s: no flag '%s' (flags: %s)" % (name, f, text or "none") for f in flags if f not in text]
        if not flags and r["flags"]:
            bad.append("%s: unexpected flags: %s" % (name, text))
        with open(os.path.join(out_dir, name + ".log")) as f:
            if log not in f.read():
                bad.append("%s: its log does not say '%s'" % (name, log))
    return bad
