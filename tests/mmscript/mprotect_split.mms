# mprotect splits a VMA at the range edges: left edge (2 VMAs), right edge
# (2 VMAs), middle (3 VMAs), whole (no split, just new flags).

mmap +0x10000 0x4000 rw- private,anon,fixed
mprotect +0x10000 0x1000 r--         # left edge
maps
mmap +0x20000 0x4000 rw- private,anon,fixed
mprotect +0x23000 0x1000 r--         # right edge
maps
mmap +0x30000 0x4000 rw- private,anon,fixed
mprotect +0x31000 0x2000 r--         # middle
maps
mmap +0x40000 0x4000 rw- private,anon,fixed
mprotect +0x40000 0x4000 r--         # whole
maps
# Same protection again: nothing to do, nothing splits.
mprotect +0x41000 0x1000 r--
maps
# Unaligned length rounds up to whole pages.
mmap +0x50000 0x4000 rw- private,anon,fixed
mprotect +0x50000 0x1001 ---
maps
