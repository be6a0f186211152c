# mremap and merging, beyond mremap_resize/mremap_move.

# Growing in place up to a compatible VMA merges all three (vma_merge_extend).
mmap +0x10000 0x1000 rw- private,anon,fixed
mmap +0x12000 0x1000 rw- private,anon,fixed
mremap +0x10000 0x1000 0x2000 0
maps
# Growing up to an incompatible one (other prot): expanded, not merged.
mmap +0x20000 0x1000 rw- private,anon,fixed
mmap +0x22000 0x1000 r-- private,anon,fixed
mremap +0x20000 0x1000 0x2000 0
maps
# Growing up to a written VMA while written itself: two anon_vmas, no merge.
mmap +0x30000 0x1000 rw- private,anon,fixed
mmap +0x32000 0x1000 rw- private,anon,fixed
write +0x30000 1
write +0x32000 2
mremap +0x30000 0x1000 0x2000 0
maps
# Growing in place needs the old range to end the VMA; else maymove moves it.
mmap +0x40000 0x3000 rw- private,anon,fixed
mremap +0x40000 0x1000 0x2000 0
mremap +0x40000 0x1000 0x2000 maymove
maps

# A written VMA moved back next to an unwritten compatible one whose offset
# fits (its own, kept through both moves): they merge, and the result carries
# the written one's anon_vma and data. A mapping added right after it merges
# at mmap time (no anon_vma yet) and stays merged when written.
mmap +0x100000 0x1000 rw- private,anon,fixed
write +0x100000 3
mremap +0x100000 0x1000 0x1000 maymove,fixed +0x200000
mmap +0x101000 0x1000 rw- private,anon,fixed
mremap +0x200000 0x1000 0x1000 maymove,fixed +0x100000
maps
read +0x100000
mmap +0x102000 0x1000 rw- private,anon,fixed
write +0x102000 4
mprotect +0x102000 0x1000 rw-
maps

# Shrinking may unmap across VMA boundaries (only what is kept must be one VMA).
mmap +0x300000 0x1000 rw- private,anon,fixed
mmap +0x301000 0x2000 r-- private,anon,fixed
mremap +0x300000 0x3000 0x1000 0
maps
