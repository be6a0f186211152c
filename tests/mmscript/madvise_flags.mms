# Flag-setting advice splits a VMA like mprotect does, and the opposite
# advice merges it back:
#   random/sequential/normal  VM_RAND_READ / VM_SEQ_READ / neither
#   dontfork/dofork           VM_DONTCOPY
#   dontdump/dodump           VM_DONTDUMP
#   wipeonfork/keeponfork     VM_WIPEONFORK (private anonymous only)
# The flags are invisible in maps (PERMS stay rw-p), so only the VMA
# boundaries show them.

mmap +0x10000 0x4000 rw- private,anon,fixed
madvise +0x11000 0x2000 random
maps
madvise +0x11000 0x1000 sequential     # random -> sequential: another split
maps
madvise +0x11000 0x2000 normal         # back to one VMA
maps

mmap +0x20000 0x4000 rw- private,anon,fixed
madvise +0x20000 0x1000 dontfork       # left edge
maps
madvise +0x20000 0x1000 dofork
maps

mmap +0x30000 0x4000 rw- private,anon,fixed
madvise +0x33000 0x1000 dontdump       # right edge
maps
madvise +0x30000 0x4000 dodump         # whole range: merges back
maps

mmap +0x40000 0x4000 rw- private,anon,fixed
madvise +0x41000 0x1000 wipeonfork     # middle
maps
madvise +0x41000 0x1000 keeponfork
maps

# Advice that sets a flag already set changes nothing and splits nothing.
mmap +0x50000 0x3000 rw- private,anon,fixed
madvise +0x50000 0x3000 dontfork
madvise +0x51000 0x1000 dontfork
madvise +0x51000 0x1000 normal         # normal does not touch VM_DONTCOPY
maps

# Two advices on the same range combine; undoing only one keeps the split.
mmap +0x60000 0x3000 rw- private,anon,fixed
madvise +0x61000 0x1000 dontdump
madvise +0x61000 0x1000 random
madvise +0x61000 0x1000 dodump
maps
madvise +0x61000 0x1000 normal
maps
