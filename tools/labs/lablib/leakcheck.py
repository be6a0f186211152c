"""No solution text in a skeleton (docs/labs/README.md, "No solution in a skeleton").

The skeleton of a lab stubs the regions of that lab and of every later lab
(markers.skeleton_files). Its solution lines are the lines of those
regions' real code that appear nowhere else in the tree (solution_lines):
not outside the regions, not in a skeleton file, not in a handout. A line
shared with the rest of the tree ("return 0;", a call the skeleton keeps)
is no evidence either way and is not checked; what is checked is that
none of the lines only the solution has is in the skeleton: its files
(tree_leaks) or any blob of a branch's history (branch_leaks).
"""

import os
import subprocess

from . import markers

# A solution line shorter than this (stripped) is no evidence of a leak ("}", "break;").
MIN_LEAK_CHARS = 12


def solution_lines(root, labs):
    """{line: "path:N"} of the lines the skeleton stubbing labs must not hold: each line of
    their regions' content, stripped, of MIN_LEAK_CHARS or more, that appears nowhere else in
    the tree at root; "path:N" is its first place in the real code."""
    found = markers.scan_tree(root)
    inside, outside = {}, set()
    for path in markers.tree_files(root):
        lines = markers.read_lines(root, path)
        masked = set()
        for r in found.get(path, []):
            if r.lab in labs:
                masked.update(range(r.begin + 1, r.end))
        for i, line in enumerate(lines):
            text = line.strip()
            if i not in masked:
                outside.add(text)
            elif len(text) >= MIN_LEAK_CHARS:
                inside.setdefault(text, "%s:%d" % (path, i + 1))
    return {t: w for t, w in inside.items() if t not in outside}


def leaks(files, solution):
    """["name:N: ..."] for each line of files ({name: text}) that is a solution line."""
    out = []
    for name in sorted(files):
        for n, line in enumerate(files[name].splitlines(), 1):
            where = solution.get(line.strip())
            if where:
                out.append("%s:%d: the solution's line %s: %r" % (name, n, where, line.strip()[:60]))
    return out


def tree_leaks(tree, paths, solution):
    """leaks in the files paths of the directory tree (a skeleton from tools/mklab --out)."""
    files = {}
    for p in paths:
        with open(os.path.join(tree, p), encoding="utf-8", errors="surrogateescape") as f:
            files[p] = f.read()
    return leaks(files, solution)


def branch_leaks(repo, branch, solution):
    """leaks in every blob that the history of branch holds (git rev-list --objects), named
    "COMMIT:PATH"; the number of commits in it comes first as ["commits: N"] when not 1."""
    def git(*args, input=None):
        return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True,
                              input=input).stdout
    out = []
    commits = git("rev-list", branch).decode().split()
    if len(commits) != 1:
        out.append("commits: %d in the history of %s, want 1 (no parents)" % (len(commits), branch))
    blobs = {}
    for commit in commits:
        listing = git("ls-tree", "-r", "-z", commit).decode("utf-8", "surrogateescape")
        for entry in filter(None, listing.split("\0")):
            meta, path = entry.split("\t", 1)
            if meta.split()[1] == "blob":
                blobs.setdefault(meta.split()[2], "%s:%s" % (commit[:12], path))
    names = list(blobs)
    data = git("cat-file", "--batch", input="".join(n + "\n" for n in names).encode())
    files, pos = {}, 0
    for name in names:
        header_end = data.index(b"\n", pos)
        size = int(data[pos:header_end].split()[2])
        files[blobs[name]] = data[header_end + 1:header_end + 1 + size].decode("utf-8", "surrogateescape")
        pos = header_end + 1 + size + 1
    return out + leaks(files, solution)
