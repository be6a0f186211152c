"""Grading a submission in a clean copy of the reference tree (tools/grade --submission).

The grader trusts nothing of a submission but the contents of the lab's
marked regions (markers.py): the reference tree (git archive of the
grading tree's HEAD, with its tests, manifest, pins and grader) is copied
to a work directory, and the text between each of the lab's marker pairs
is taken from the submission's copy of that file. What else differs is
flagged and ignored:

  - a lab file whose text outside the lab's regions differs from the
    reference ("changed outside the lab's regions: FILE"): graded with the
    reference text there (and the submission's regions);
  - a lab file that is missing, or whose markers are broken or missing:
    graded with the skeleton code in the regions it lacks;
  - any other file that differs from the reference (a test, the manifest,
    the grader): ignored, the reference's is used; flagged unless it
    differs only between the marker lines of other labs' regions (a
    cumulative skeleton stubs the later labs' regions: a student's whole
    tree differs there, and those regions are never graded in this lab).
"""

import os
import shutil
import subprocess
import tarfile
import time

from . import markers

# Build outputs a work tree reuses from the grading tree (what did not change is not rebuilt).
BUILD_COPY = ["host", "kernel", "user", "bench", "kernel.elf", "kernel32.elf"]


def copy_build(src_root, tree):
    """Copy src_root's build outputs (BUILD_COPY) into tree/build, modification times kept."""
    os.makedirs(os.path.join(tree, "build"), exist_ok=True)
    for name in BUILD_COPY:
        src, dst = os.path.join(src_root, "build", name), os.path.join(tree, "build", name)
        if not os.path.exists(src):
            continue
        if os.path.isdir(src):
            shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)


def _git(root, *args):
    return subprocess.run(["git", "-C", root] + list(args), check=True, capture_output=True).stdout


def extract_commit(root, ref, dest):
    """Write the files of commit ref of the repository at root into dest; returns their paths."""
    os.makedirs(dest, exist_ok=True)
    tar = os.path.join(dest, ".archive.tar")
    _git(root, "archive", "--format=tar", "-o", tar, ref)
    with tarfile.open(tar) as t:
        names = [m.name for m in t.getmembers() if m.isfile()]
        t.extractall(dest)
    os.unlink(tar)
    return sorted(names)


def reference_tree(root, dest):
    """The clean reference: HEAD of the grading tree at root, in dest (emptied first), with
    root's build outputs. A file equal to root's working copy keeps its modification time, so
    the copied outputs stay up to date; any other file is newer than them (rebuilt).
    Returns the reference's file paths."""
    shutil.rmtree(dest, ignore_errors=True)
    paths = extract_commit(root, "HEAD", dest)
    now = time.time()
    for p in paths:
        mine, theirs = os.path.join(dest, p), os.path.join(root, p)
        same = os.path.isfile(theirs) and _same_file(mine, theirs)
        os.utime(mine, (now, now) if not same else (os.stat(theirs).st_atime, os.stat(theirs).st_mtime))
    copy_build(root, dest)
    return paths


def _same_file(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        return f.read() == g.read()


def submission_dir(root, spec, scratch):
    """The directory of a submission: spec itself when it is a directory, else the files of
    the commit spec names in the grading tree's repository, written under scratch."""
    if os.path.isdir(spec):
        return spec
    try:
        _git(root, "rev-parse", "--verify", "--quiet", spec + "^{commit}")
    except subprocess.CalledProcessError:
        raise ValueError("submission '%s' is neither a directory nor a commit of %s" % (spec, root))
    dest = os.path.join(scratch, "submission")
    shutil.rmtree(dest, ignore_errors=True)
    extract_commit(root, spec, dest)
    return dest


def take_regions(tree, paths, sub, lab):
    """Put the contents of the lab's regions from the submission sub into the reference tree
    (of files paths; its lab files rewritten in place). Returns (lab file paths, flags)."""
    flags, files = [], []
    for path, regions in sorted(markers.scan_tree(tree, paths).items()):
        mine = [r for r in regions if r.lab == lab]
        if not mine:
            continue
        files.append(path)
        ref = markers.read_lines(tree, path)
        texts = markers.skeleton_texts(tree, lab, mine)
        if not os.path.isfile(os.path.join(sub, path)):
            flags.append("missing: %s (graded with the skeleton code in its regions)" % path)
        else:
            theirs = markers.read_lines(sub, path)
            try:
                got = markers.scan_text(path, theirs)
            except markers.MarkerError as e:
                flags.append("broken markers: %s (graded with the skeleton code in its regions)" % e)
                got = None
            if got is not None:
                found = markers.region_texts(theirs, [r for r in got if r.lab == lab])
                lost = [r.tag for r in mine if r.tag not in found]
                if lost:
                    flags.append("missing regions in %s: %s (graded with the skeleton code there)"
                                 % (path, ", ".join(lost)))
                texts.update({t: found[t] for t in found if t in texts})
                if markers.outside_regions(theirs, got) != markers.outside_regions(ref, regions):
                    flags.append("changed outside the lab's regions: %s (graded with the reference "
                                 "text there)" % path)
        with open(os.path.join(tree, path), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(markers.fill_regions(ref, mine, texts))
    return files, flags


def _differs_outside_regions(tree, sub, path):
    """Whether the submission's copy of path differs from the reference's other than in the
    contents of marked regions (broken markers: it does)."""
    ref, theirs = markers.read_lines(tree, path), markers.read_lines(sub, path)
    try:
        return (markers.outside_regions(ref, markers.scan_text(path, ref)) !=
                markers.outside_regions(theirs, markers.scan_text(path, theirs)))
    except markers.MarkerError:
        return True


def ignored_changes(tree, sub, paths, lab_files):
    """The reference files (paths) other than the lab's that the submission has with other
    contents outside their marked regions (other labs' regions: the later labs' are stubbed in
    a cumulative skeleton): flagged, never used (a missing one is not flagged: a submission
    may be only the lab's files)."""
    flags = []
    for p in paths:
        theirs = os.path.join(sub, p)
        if p not in lab_files and os.path.isfile(theirs) and not _same_file(os.path.join(tree, p), theirs) \
                and _differs_outside_regions(tree, sub, p):
            flags.append("ignored, not the lab's to change: %s (the reference's is used)" % p)
    return flags


def prepare(root, spec, work, lab):
    """Make work a clean reference tree holding the submission's regions of lab; returns the
    flags (what the submission changed that is not used)."""
    scratch = work + ".sub"
    sub = submission_dir(root, spec, scratch)
    paths = reference_tree(root, work)
    lab_files, flags = take_regions(work, paths, sub, lab)
    flags += ignored_changes(work, sub, paths, set(lab_files))
    shutil.rmtree(scratch, ignore_errors=True)
    return flags
