# MADV_MERGEABLE (12) and MADV_UNMERGEABLE (13), KSM's advices
# (mm/ksm.c ksm_madvise): VM_MERGEABLE is set only where KSM could merge
# pages, that is on private mappings that are not special; a shared
# mapping (VM_SHARED or VM_MAYSHARE, read-only ones too) keeps its flags,
# so it is not split, and the advice still succeeds. UNMERGEABLE clears
# the flag where it is set, and is a no-op elsewhere. VM_MERGEABLE takes
# part in merging like any other flag.

mmap +0x10000 0x3000 rw- shared,anon,fixed
madvise +0x11000 0x1000 12
maps
madvise +0x10000 0x3000 13
mmap +0x14000 0x3000 r-- shared,anon,fixed
madvise +0x15000 0x1000 12
mprotect +0x15000 0x1000 ---           # split by mprotect instead
madvise +0x14000 0x3000 12
mprotect +0x15000 0x1000 r--
maps

mmap +0x20000 0x3000 rw- private,anon,fixed
madvise +0x21000 0x1000 12
maps
madvise +0x21000 0x1000 12             # again: nothing changes
madvise +0x20000 0x3000 13
maps
madvise +0x20000 0x2000 12
mmap +0x23000 0x1000 rw- private,anon,fixed   # not mergeable: separate
mmap +0x1f000 0x1000 rw- private,anon,fixed
maps
madvise +0x1f000 0x5000 12             # all mergeable now: one VMA
maps

# PROT_NONE, read-only and noreserve private mappings are eligible too.
mmap +0x30000 0x3000 --- private,anon,fixed
madvise +0x31000 0x1000 12
mmap +0x34000 0x3000 r-- private,anon,fixed,noreserve
madvise +0x35000 0x1000 12
maps

# Across a hole and a shared mapping: the private ones change, then -ENOMEM.
mmap +0x40000 0x1000 rw- private,anon,fixed
mmap +0x41000 0x1000 rw- shared,anon,fixed
mmap +0x43000 0x1000 rw- private,anon,fixed
madvise +0x40000 0x4000 12
maps
