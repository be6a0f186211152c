"""Solution markers and skeleton generation for the course labs (docs/labs/).

A lab removes marked regions of the real kernel and puts its skeleton code
in their place. A region is two comment lines around existing code:

    /* LAB cow: BEGIN dup_visit */
    ... the real code (the lab's solution) ...
    /* LAB cow: END dup_visit */

The code the student starts from is labs/cow/dup_visit.c, the file named by
the region's tag. In a skeleton tree the marker lines stay (they show where
the work is) and only what lies between them is replaced, so a solved
skeleton is the real tree again. Regions do not nest; a tag names one region
in the whole tree.

The labs have an order, easy to hard: labs/ORDER, one name a line
(lab_order). A lab's skeleton is cumulative: it replaces the regions of
that lab and of every later lab (skeleton_files), so that the first lab
does not hand out the solutions of the others; the earlier labs' regions
keep their real code (the student did them). leakcheck.py checks a
skeleton for the solution text it must not hold.
"""

import os
import re
import subprocess

MARKER = re.compile(r'^\s*/\* LAB ([a-z0-9_]+): (BEGIN|END) ([a-z0-9_]+) \*/\s*$')
# A line that mentions a marker but does not have the exact form is a mistake to report.
LOOSE = re.compile(r'/\*\s*LAB\b[^*]*\b(BEGIN|END)\b')


class MarkerError(Exception):
    pass


def lab_order(root):
    """The labs in their order (labs/ORDER: one name a line, '#' starts a comment); [] without
    the file."""
    path = os.path.join(root, "labs", "ORDER")
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        names = [l.split("#", 1)[0].strip() for l in f]
    return [n for n in names if n]


def order_problems(root):
    """What is wrong with labs/ORDER: a name twice, a name without labs/NAME/manifest, a lab
    directory (with a manifest) not in it."""
    order = lab_order(root)
    problems = ["labs/ORDER names %s twice" % n for i, n in enumerate(order) if n in order[:i]]
    problems += ["labs/ORDER names %s, which has no labs/%s/manifest" % (n, n) for n in order
                 if not os.path.isfile(os.path.join(root, "labs", n, "manifest"))]
    d = os.path.join(root, "labs")
    dirs = sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n, "manifest"))) \
        if os.path.isdir(d) else []
    problems += ["lab %s is not in labs/ORDER (add its line where it belongs by difficulty)" % n
                 for n in dirs if n not in order]
    return problems


def stubbed_labs(root, lab):
    """The labs whose regions the skeleton of lab replaces: lab and every later lab of
    labs/ORDER. MarkerError when lab is not in the order."""
    order = lab_order(root)
    if lab not in order:
        raise MarkerError("lab %s is not in labs/ORDER (add its line where it belongs by difficulty)" % lab)
    return order[order.index(lab):]


class Region:
    def __init__(self, lab, tag, path, begin, end):
        self.lab, self.tag, self.path = lab, tag, path
        self.begin, self.end = begin, end          # line indexes of the two marker lines

    def __repr__(self):
        end = "?" if self.end is None else str(self.end + 1)
        return "%s:%d-%s (LAB %s %s)" % (self.path, self.begin + 1, end, self.lab, self.tag)


def tree_files(root):
    """The files of the tree at root: git's tracked and untracked-but-not-ignored files."""
    out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                         check=True, capture_output=True).stdout.decode()
    return sorted(p for p in out.split("\0") if p and os.path.isfile(os.path.join(root, p)))


def scan_text(path, lines):
    """The regions of one file's lines; MarkerError on a malformed or unbalanced marker."""
    regions, open_region = [], None
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            if LOOSE.search(line):
                raise MarkerError("%s:%d: malformed LAB marker (want '/* LAB name: BEGIN tag */')"
                                  % (path, i + 1))
            continue
        lab, kind, tag = m.groups()
        if kind == "BEGIN":
            if open_region:
                raise MarkerError("%s:%d: LAB %s %s begins inside %r (regions do not nest)"
                                  % (path, i + 1, lab, tag, open_region))
            open_region = Region(lab, tag, path, i, None)
        else:
            if not open_region or (open_region.lab, open_region.tag) != (lab, tag):
                raise MarkerError("%s:%d: END of LAB %s %s without its BEGIN" % (path, i + 1, lab, tag))
            open_region.end = i
            regions.append(open_region)
            open_region = None
    if open_region:
        raise MarkerError("%s:%d: LAB %s %s is never ended" % (path, open_region.begin + 1,
                                                              open_region.lab, open_region.tag))
    return regions


def read_lines(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="surrogateescape") as f:
        return f.read().splitlines(keepends=True)


def scan_tree(root, paths=None):
    """All regions of the tree at root (of its files paths; default: tree_files), by file:
    {path: [Region...]}."""
    found = {}
    for path in tree_files(root) if paths is None else paths:
        if not path.endswith((".c", ".h")):
            continue
        lines = read_lines(root, path)
        if not any("LAB" in l for l in lines):
            continue
        regions = scan_text(path, lines)
        if regions:
            found[path] = regions
    return found


def snippet_path(root, lab, tag):
    return os.path.join(root, "labs", lab, tag + ".c")


def check_tree(root, labs):
    """Every region belongs to a known lab and has its skeleton file, tags are unique, and
    every skeleton file of a lab is used. Returns the list of problems (empty: fine)."""
    problems, seen = [], {}
    try:
        found = scan_tree(root)
    except MarkerError as e:
        return [str(e)]
    for regions in found.values():
        for r in regions:
            if r.lab not in labs:
                problems.append("%r: no lab named %s (labs/%s/manifest)" % (r, r.lab, r.lab))
            if (r.lab, r.tag) in seen:
                problems.append("%r: tag used twice (also %r)" % (r, seen[(r.lab, r.tag)]))
            seen[(r.lab, r.tag)] = r
            if not os.path.isfile(snippet_path(root, r.lab, r.tag)):
                problems.append("%r: no skeleton file labs/%s/%s.c" % (r, r.lab, r.tag))
    for lab in labs:
        tags = {t for (l, t) in seen if l == lab}
        if not tags:
            problems.append("lab %s marks no region" % lab)
        for name in sorted(os.listdir(os.path.join(root, "labs", lab))):
            if name.endswith(".c") and name[:-2] not in tags:
                problems.append("labs/%s/%s is the skeleton of no region" % (lab, name))
    return problems


def fill_regions(lines, regions, texts):
    """The text of a file (its lines) with the content of each region (between its marker
    lines; regions in file order) replaced by texts[tag]; a tag not in texts keeps its content."""
    out, pos = [], 0
    for r in regions:
        if r.tag not in texts:
            continue
        text = texts[r.tag]
        out += lines[pos:r.begin + 1]
        out.append(text if not text or text.endswith("\n") else text + "\n")
        pos = r.end
    return "".join(out + lines[pos:])


def region_texts(lines, regions):
    """{tag: the content of the region} for the regions of one file."""
    return {r.tag: "".join(lines[r.begin + 1:r.end]) for r in regions}


def outside_regions(lines, regions):
    """The file without the content of its regions, the marker lines in a canonical form:
    what must stay as it is for the regions' contents to be the only change."""
    out, pos = [], 0
    for r in regions:
        out += lines[pos:r.begin] + ["LAB %s: BEGIN %s\n" % (r.lab, r.tag), "LAB %s: END %s\n" % (r.lab, r.tag)]
        pos = r.end + 1
    return "".join(out + lines[pos:])


def skeleton_texts(root, lab, regions):
    """{tag: skeleton code} of the lab's regions among regions (labs/LAB/TAG.c)."""
    texts = {}
    for r in regions:
        if r.lab == lab:
            with open(snippet_path(root, lab, r.tag), encoding="utf-8") as f:
                texts[r.tag] = f.read()
    return texts


def skeleton_files(root, lab):
    """{path: new text} for the files the skeleton of lab changes: the content of each region
    of lab and of every later lab (stubbed_labs) replaced by its skeleton file (the marker
    lines kept). MarkerError when lab is not in labs/ORDER or marks no region."""
    stubbed = stubbed_labs(root, lab)
    found = scan_tree(root)
    if not any(r.lab == lab for regions in found.values() for r in regions):
        raise MarkerError("lab %s marks no region in this tree" % lab)
    changed = {}
    for path, regions in found.items():
        mine = [r for r in regions if r.lab in stubbed]
        if mine:
            texts = {}
            for other in stubbed:
                texts.update(skeleton_texts(root, other, mine))
            changed[path] = fill_regions(read_lines(root, path), mine, texts)
    return changed


def self_test():
    """The parser against small cases whose answers are written here. Returns the problems."""
    problems = []
    good = ["a\n", "  /* LAB x: BEGIN t */\n", "code\n", "  /* LAB x: END t */\n",
            "/* LAB y: BEGIN u */\n", "/* LAB y: END u */\n"]
    regs = scan_text("good.c", good)
    if [(r.lab, r.tag, r.begin, r.end) for r in regs] != [("x", "t", 1, 3), ("y", "u", 4, 5)]:
        problems.append("two regions not found as written: %r" % regs)
    bad = {
        "nested": ["/* LAB x: BEGIN t */\n", "/* LAB x: BEGIN u */\n", "/* LAB x: END u */\n",
                   "/* LAB x: END t */\n"],
        "never ended": ["/* LAB x: BEGIN t */\n", "code\n"],
        "END of another tag": ["/* LAB x: BEGIN t */\n", "/* LAB x: END u */\n"],
        "END alone": ["/* LAB x: END t */\n"],
        "malformed": ["/* LAB x BEGIN t */\n", "/* LAB x: END t */\n"],
        "code on a marker line": ["f(); /* LAB x: BEGIN t */\n", "/* LAB x: END t */\n"],
    }
    for what, lines in bad.items():
        try:
            scan_text("bad.c", lines)
            problems.append("not rejected: %s" % what)
        except MarkerError:
            pass
    return problems
