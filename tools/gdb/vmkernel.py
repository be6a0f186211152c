"""gdb commands for vmkernel (README.md, "Debugging with gdb").

Loaded by tools/gdb/vmkernel.gdb (make gdb, tools/run-gdb) or by hand:
`source tools/gdb/vmkernel.py`. Works on a kernel stopped under QEMU's gdb
stub (make qemu-gdb, tools/run-gdb), whatever the CPU was running.

    vmas [PID | EXPR]    the VMAs of a process (default: the running one): range,
                         rwxp, pgoff, anon identity, decoded VM_* flags; PID is a
                         process id, EXPR a struct task * or struct mm *
    ptwalk VA [PID]      the page-table walk of VA, level by level: each entry's
                         index, value and decoded bits (default: the address space
                         in CR3)
    pte VA [PID]         the leaf entry of VA only: frame, rwx, accessed, dirty; the
                         frame is left in $pa (frames $pa)
    frames [PA]          the buddy allocator's free blocks by order; with PA, the
                         struct page of that frame (flags, references, mappings)
    rcu [PID | EXPR]     the grace periods (lib/rcu.c): the epoch, the CPUs inside a
                         read section; and a process's per-VMA lock state
                         (mm/vma_lock.c): its lock-free faults and fallbacks, the
                         VMAs its writers retired and the grace period they wait for,
                         the VMAs marked by the write section in progress

The VMA walk knows each index backend's structure (list, list+cache, hash, hash+list,
avl, rbtree, btree, the counted wrapper of vmastat=on); the page-table
walk reads the tables through the kernel's direct map, as the kernel does.
"""

import gdb

DIRECT_MAP = 0xFFFF888000000000
PTE_ADDR = 0x000FFFFFFFFFF000
MASK64 = (1 << 64) - 1
# Masks, as names() takes them: arch/x86_64/include/x86_mmu.h (the hardware's bits) and the
# software bits of a not-present leaf in arch/x86_64/user_mmu.c (PTE_SW_*).
PTE_HW_BITS = [(1 << 0, "P"), (1 << 1, "W"), (1 << 2, "U"), (1 << 3, "PWT"), (1 << 4, "PCD"),
               (1 << 5, "A"), (1 << 6, "D"), (1 << 7, "PS"), (1 << 8, "G"), (1 << 63, "NX")]
PTE_SW_PROTNONE, PTE_SW_GUARD, PTE_SW_SWAP = 1 << 9, 1 << 10, 1 << 11
PTE_PKEY_SHIFT, PTE_PKEY_MASK = 59, 0xF << 59
SWAP_VAL_SHIFT = 12
# mm/dump.c's names, in the same order.
VM_FLAGS = [(0x1, "read"), (0x2, "write"), (0x4, "exec"), (0x8, "shared"), (0x10, "mayread"),
            (0x20, "maywrite"), (0x40, "mayexec"), (0x80, "mayshare"), (0x100, "growsdown"),
            (0x2000, "locked"), (0x8000, "seq_read"), (0x10000, "rand_read"),
            (0x20000, "dontcopy"), (0x40000, "dontexpand"), (0x100000, "account"),
            (0x200000, "noreserve"), (0x2000000, "wipeonfork"), (0x4000000, "dontdump"),
            (0x8000000, "softdirty"), (0x20000000, "hugepage"), (0x40000000, "nohugepage"),
            (0x80000000, "mergeable")]
PG_FLAGS = [(0x1, "reserved"), (0x2, "buddy"), (0x4, "slab"), (0x8, "pgtable"), (0x10, "anon"),
            (0x20, "dirty"), (0x40, "lazyfree"), (0x80, "cache")]     # include/pmm.h


def u64(v):
    return int(v) & MASK64


def read_u64(addr):
    mem = gdb.selected_inferior().read_memory(addr, 8)
    return int.from_bytes(bytes(mem), "little")


def phys_u64(pa):
    return read_u64(DIRECT_MAP + pa)


def pte_bits(e):
    """An entry's bits by name, as the kernel reads them: a present entry's hardware bits and
    protection key; a not-present one's software meaning (user_mmu.c: PROT_NONE keeps the
    frame, a swap entry holds the slot's value in bits 12..63, a guard marker is bit 10 alone)."""
    if e & 1:
        out = names(e & ~PTE_ADDR & ~PTE_PKEY_MASK, PTE_HW_BITS)
        pkey = (e & PTE_PKEY_MASK) >> PTE_PKEY_SHIFT
        return out + (" pkey=%d" % pkey if pkey else "")
    if e & PTE_SW_PROTNONE:
        return "PROTNONE " + names(e & ~PTE_ADDR & ~PTE_SW_PROTNONE, PTE_HW_BITS)
    if e == PTE_SW_GUARD:
        return "GUARD"
    if e & PTE_SW_SWAP:
        return "SWAP val=0x%x" % (e >> SWAP_VAL_SHIFT)
    return "not present " + hex(e)


def names(value, table):
    out = [n for bit, n in table if value & bit]
    rest = value & ~sum(bit for bit, _ in table)
    if rest:
        out.append(hex(rest))
    return " ".join(out)


# ------------------------------------------------------------------ tasks

def current_cpu():
    """The struct percpu * of the CPU gdb has selected (QEMU: one thread per CPU): its GS base
    in the kernel, its saved kernel GS base (swapgs) in user mode; else the thread's number."""
    area = gdb.parse_and_eval("percpu_area")
    lo, size = u64(area.address), area.type.sizeof
    ptype = area[0].type.pointer()
    for reg in ("$gs_base", "$k_gs_base"):
        try:
            base = u64(gdb.parse_and_eval(reg))
        except gdb.error:
            continue
        if lo <= base < lo + size:
            return gdb.Value(base).cast(ptype)
    return area[gdb.selected_thread().ptid[1] - 1].address


def current_task():
    return current_cpu()["cur_task"].cast(gdb.lookup_type("struct task").pointer())


def tasks():
    head = gdb.parse_and_eval("&task_list")
    off = int(gdb.parse_and_eval("(unsigned long)&((struct task *)0)->all_link"))
    node = head["next"]
    ttype = gdb.lookup_type("struct task").pointer()
    while u64(node) != u64(head):
        yield gdb.Value(u64(node) - off).cast(ttype)
        node = node["next"]


def task_by_pid(pid):
    for t in tasks():
        if int(t["pid"]) == pid:
            return t
    raise gdb.GdbError("no task with pid %d" % pid)


def mm_from_arg(arg):
    """The struct mm * an argument names: none (the running task's), a pid, or an expression."""
    arg = arg.strip()
    if not arg:
        t = current_task()
        if not u64(t) or not u64(t["mm"]):
            raise gdb.GdbError("the running task has no address space (the idle task?): give a pid")
        return t["mm"], t
    if arg.isdigit():
        t = task_by_pid(int(arg))
        return t["mm"], t
    v = gdb.parse_and_eval(arg)
    tname = str(v.type.strip_typedefs().target()) if v.type.code == gdb.TYPE_CODE_PTR else ""
    if tname.endswith("task"):
        return v["mm"], v
    return v.cast(gdb.lookup_type("struct mm").pointer()), None


# ------------------------------------------------------------------- VMAs

# Each backend keeps its state in the opaque idx->state.bytes and its link in the bytes
# after each struct vma (include/vma.h: VMA_INDEX_STATE, vma_link); the types are the
# backends' own (mm/vma_index/*.c), in the kernel's debug information.

def _state(idx, tname):
    return idx["state"]["bytes"].address.cast(gdb.lookup_type(tname).pointer()).dereference()


def _link(v, tname):
    return (v + 1).cast(gdb.lookup_type(tname).pointer()).dereference()


def _inorder(node, tname):
    out, stack = [], []
    while stack or u64(node):
        while u64(node):
            stack.append(node)
            node = _link(node, tname)["left"]
        node = stack.pop()
        out.append(node)
        node = _link(node, tname)["right"]
    return out


def _chain(v, tname):
    out = []
    while u64(v):
        out.append(v)
        v = _link(v, tname)["next"]
    return out


def _btree(node):
    if not u64(node):
        return []
    n = int(node["nr"])
    if int(node["leaf"]):
        return [node["vma"][i] for i in range(n)]
    out = []
    for i in range(n):
        out += _btree(node["child"][i])
    return out


def backend_name(idx):
    """The backend's name; through the vmastat=on wrapper (kernel/profile/profile_vma.c) to the real one."""
    ops = idx["ops"]
    try:
        counted = gdb.parse_and_eval("counted")
        lo = u64(counted.address)
        if lo <= u64(ops) < lo + counted.type.sizeof:
            ops = ops.cast(gdb.lookup_type("struct counted_backend").pointer())["inner"]
    except gdb.error:
        pass
    return ops["name"].string()


def vma_list(mm):
    idx = mm["index"]
    name = backend_name(idx)
    if name in ("list", "list+cache"):
        return name, _chain(_state(idx, "struct list_state")["head"], "struct list_link")
    if name in ("hash", "hash+list"):          # hash+list: its 16 lists, as hash
        heads = _state(idx, "struct hash_state")["head"]
        vs = []
        for i in range(heads.type.range()[1] + 1):
            vs += _chain(heads[i], "struct hash_link")
        return name, sorted(vs, key=lambda v: u64(v["start"]))
    if name == "avl":
        return name, _inorder(_state(idx, "struct avl_state")["root"], "struct avl_link")
    if name == "rbtree":
        return name, _inorder(_state(idx, "struct rb_state")["root"], "struct rb_link")
    if name == "btree":
        return name, _btree(_state(idx, "struct bt_state")["root"])
    raise gdb.GdbError("vmas: no walker for the index backend '%s'" % name)


def vma_line(v):
    f = u64(v["flags"])
    rwxp = "".join(c if f & b else "-" for b, c in ((1, "r"), (2, "w"), (4, "x"))) + \
        ("s" if f & 0x80 else "p")
    if u64(v["anon"]):
        anon = "%d%s" % (u64(v["anon"]["id"]), " (forked)" if bool(v["anon_forked"]) else "")
    else:
        anon = "-" + (" file" if u64(v["file"]) else "")
    return "  0x%x-0x%x %s pgoff 0x%x anon %s [%s]" % (u64(v["start"]), u64(v["end"]), rwxp,
                                                     u64(v["pgoff"]), anon, names(f, VM_FLAGS))


class Vmas(gdb.Command):
    """vmas [PID | EXPR]: the VMAs of a process (default: the running one)."""

    def __init__(self):
        super().__init__("vmas", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        mm, t = mm_from_arg(arg)
        name, vs = vma_list(mm)
        who = "pid %d (%s)" % (int(t["pid"]), t["comm"].string()) if t is not None else "mm"
        print("%s: %d VMAs (index %s, map_count %d, rss %d)" % (
            who, len(vs), name, int(mm["map_count"]), u64(mm["rss"])))
        for v in vs:
            print(vma_line(v))


# ------------------------------------------------------------ page tables

def root_of(arg):
    """The PML4's physical address: CR3, or the address space of the process named."""
    if arg:
        mm, _ = mm_from_arg(arg)
        return u64(mm["mmu"]["root"])
    try:
        return u64(gdb.parse_and_eval("$cr3")) & PTE_ADDR
    except gdb.error:
        mm, _ = mm_from_arg("")
        return u64(mm["mmu"]["root"])


def walk(va, root):
    """[(level, index, table pa, entry)] down to the leaf or the first empty entry."""
    steps, table = [], root
    for lvl in (4, 3, 2, 1):
        i = (va >> (12 + 9 * (lvl - 1))) & 511
        e = phys_u64(table + 8 * i)
        steps.append((lvl, i, table, e))
        if lvl == 1 or not (e & 1) or (e & 0x80):
            break
        table = e & PTE_ADDR
    return steps


def parse_va_args(arg, cmd):
    argv = gdb.string_to_argv(arg)
    if not argv:
        raise gdb.GdbError("usage: %s VA [PID]" % cmd)
    return u64(gdb.parse_and_eval(argv[0])), " ".join(argv[1:])


class Ptwalk(gdb.Command):
    """ptwalk VA [PID]: the page-table walk of VA, level by level."""

    def __init__(self):
        super().__init__("ptwalk", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        va, who = parse_va_args(arg, "ptwalk")
        root = root_of(who)
        print("va 0x%x: PML4 at 0x%x" % (va, root))
        for lvl, i, table, e in walk(va, root):
            what = "empty" if not e else pte_bits(e)
            nxt = " -> %s 0x%x" % ("page" if lvl == 1 or e & 0x80 else "table", e & PTE_ADDR) if e else ""
            print("  L%d[%3d] @0x%x = 0x%016x  %s%s" % (lvl, i, table + 8 * i, e, what, nxt))


class Pte(gdb.Command):
    """pte VA [PID]: the leaf entry of VA: frame, rwx, accessed, dirty (a 2 MiB leaf: VA's 4 KiB frame in it)."""

    def __init__(self):
        super().__init__("pte", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        va, who = parse_va_args(arg, "pte")
        lvl, i, table, e = walk(va, root_of(who))[-1]
        huge = lvl == 2 and e & 0x80            # a 2 MiB leaf (PS): the 4 KiB frame of va in it
        if huge:
            e = (e & ~PTE_ADDR) | ((e & PTE_ADDR & ~0x1fffff) + (va & 0x1ff000))
        if (lvl != 1 and not huge) or not e:
            print("va 0x%x: not mapped (L%d entry %d is %s)" % (va, lvl, i, "empty" if not e else hex(e)))
            return
        if e == PTE_SW_GUARD:
            print("va 0x%x: guard marker (MADV_GUARD_INSTALL; pte 0x%016x)" % (va, e))
            return
        if not e & 1 and not e & PTE_SW_PROTNONE and e & PTE_SW_SWAP:
            print("va 0x%x: swapped out (swap value 0x%x; pte 0x%016x)" % (va, e >> SWAP_VAL_SHIFT, e))
            return
        gdb.set_convenience_variable("pa", e & PTE_ADDR)     # for `frames $pa`
        present = e & 1
        perm = ("r" if present else "-") + ("w" if present and e & 2 else "-") + \
            ("x" if present and not e >> 63 else "-")
        print("va 0x%x -> page 0x%x %s %s%s (pte 0x%016x%s%s)" % (
            va, e & PTE_ADDR, perm, "a" if e & 0x20 else "-", "d" if e & 0x40 else "-", e,
            ", PROT_NONE" if e & PTE_SW_PROTNONE and not present else "",
            ", in a 2 MiB leaf" if huge else ""))


# ------------------------------------------------------------------ frames

class Frames(gdb.Command):
    """frames [PA]: free blocks by order; with PA, the struct page of that frame."""

    def __init__(self):
        super().__init__("frames", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            pa = u64(gdb.parse_and_eval(arg))
            max_pfn = u64(gdb.parse_and_eval("pmm_max_pfn"))
            if pa >> 12 >= max_pfn:
                raise gdb.GdbError("frames: 0x%x is not a frame (RAM ends at 0x%x; a virtual "
                                   "address? `pte VA` gives its frame)" % (pa, max_pfn << 12))
            p = gdb.parse_and_eval("pmm_mem_map")[pa >> 12]
            flags = int(p["flags"])
            extra = ""
            if flags & 0x10 and u64(p["private"]):
                av = p["private"].cast(gdb.lookup_type("struct anon_vma").pointer())
                extra = ", anon identity %d" % u64(av["id"])
            print("frame 0x%x: flags [%s], refcount %d, mapcount %d, order %d%s" % (
                pa & PTE_ADDR, names(flags, PG_FLAGS), int(p["refcount"]), int(p["mapcount"]),
                int(p["order"]), extra))
            return
        fa = gdb.parse_and_eval("free_area")
        n = fa.type.range()[1] + 1
        free = u64(gdb.parse_and_eval("nr_free"))
        print("free frames: %d (%d KiB)" % (free, free * 4))
        for k in range(n):
            c = u64(fa[k]["count"])
            if c:
                print("  order %2d (%5d KiB blocks): %d free" % (k, 4 << k, c))


# --------------------------------------------------- grace periods, VMA locks

def _chain_len(v, field):
    n = 0
    while u64(v):
        n += 1
        v = v[field]
    return n


class Rcu(gdb.Command):
    """rcu [PID | EXPR]: grace periods, and a process's per-VMA lock state (default: the running one)."""

    def __init__(self):
        super().__init__("rcu", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        epoch = u64(gdb.parse_and_eval("rcu_epoch"))
        cpus = gdb.parse_and_eval("rcu_cpu")
        print("rcu: epoch %d (what a writer retired when the epoch was E is freed once it is E + 2)" % epoch)
        inside = 0
        for c in range(cpus.type.range()[1] + 1):
            r = u64(cpus[c])
            if r & 1:
                inside += 1
                print("  cpu %d: inside a read section begun in epoch %d%s" % (
                    c, r // 2, "" if r // 2 == epoch else " (holds the epoch back)"))
        if not inside:
            print("  no CPU inside a read section")
        mm, t = mm_from_arg(arg)
        who = "pid %d (%s)" % (int(t["pid"]), t["comm"].string()) if t is not None else "mm"
        mode = "vma" if bool(mm["vma_lockless"]) else "mmap"
        print("%s: fault_lock=%s, mm_lock_seq %d; faults %d: %d under a VMA lock, %d fell back to the mmap_lock" % (
            who, mode, u64(mm["mm_lock_seq"]), u64(mm["faults"]), u64(mm["faults_lockless"]),
            u64(mm["faults_fallback"])))
        print("  open batch: %d VMAs retired since the waiting batch closed" % _chain_len(mm["vma_retired"],
                                                                                         "retired_next"))
        if bool(mm["gp_waiting"]):
            cookie = u64(mm["gp_cookie"])
            print("  waiting batch: %d VMAs, retired in epoch %d: freed at a write unlock once the epoch is %d%s" % (
                _chain_len(mm["vma_waiting"], "retired_next"), cookie, cookie + 2,
                " (it is: at the next one)" if epoch >= cookie + 2 else ""))
        else:
            print("  no waiting batch")
        seq = u64(mm["mm_lock_seq"]) & 0xffff
        marked = [v for v in vma_list(mm)[1] if int(v["vm_lock_seq"]) == seq]
        print("  %d VMAs marked by a write section in progress%s" % (
            len(marked), "".join("\n  " + vma_line(v).strip() for v in marked)))


Vmas()
Ptwalk()
Pte()
Frames()
Rcu()
