# Linux 6.17+ lets a same-size MREMAP_FIXED move span several VMAs: every VMA
# of [ADDR, ADDR+OLDLEN) moves to the same offset from NEWADDR, holes are kept
# (remap_move). The first address must be mapped (-EFAULT), and a failure
# part-way leaves the VMAs already moved where they went. Any other mremap
# (resize, maymove alone, dontunmap without fixed) still needs the old range
# inside one VMA.

# Two VMAs and a hole, moved together.
mmap +0x10000 0x2000 rw- private,anon,fixed
mmap +0x13000 0x1000 r-- private,anon,fixed
write +0x11000 0x61
mremap +0x10000 0x4000 0x4000 maymove,fixed +0x50000
maps
read +0x51000
read +0x53000

# The range may start inside a VMA and end inside another: both are split.
mmap +0x20000 0x3000 rw- private,anon,fixed
mmap +0x23000 0x3000 r-- private,anon,fixed
mremap +0x21000 0x4000 0x4000 maymove,fixed +0x60000
maps

# A hole at the start: -EFAULT, nothing moves.
mremap +0x1f000 0x2000 0x2000 maymove,fixed +0x70000
# Not the same size: the old range must be one VMA.
mremap +0x20000 0x2000 0x3000 maymove,fixed +0x70000
mremap +0x60000 0x4000 0x4000 maymove
maps

# With dontunmap too: the old VMAs stay, empty.
mmap +0x30000 0x1000 rw- private,anon,fixed
mmap +0x31000 0x1000 r-- private,anon,fixed
write +0x30000 0x62
mremap +0x30000 0x2000 0x2000 maymove,fixed,dontunmap +0x80000
maps
read +0x30000
read +0x80000

# Unwritten VMAs moved next to a compatible neighbour merge with it.
mmap +0x90000 0x1000 rw- private,anon,fixed
mmap +0xa0000 0x1000 rw- private,anon,fixed
mmap +0xa2000 0x1000 rw- private,anon,fixed
mremap +0xa0000 0x3000 0x3000 maymove,fixed +0x91000
maps
