# mprotect merges the changed range with neighbours that end up with the same
# flags: with the previous VMA, the next, or both (undoing a split).

mmap +0x10000 0x4000 rw- private,anon,fixed
mprotect +0x11000 0x2000 r--
maps
mprotect +0x11000 0x1000 rw-          # merges with the previous VMA
maps
mprotect +0x12000 0x1000 rw-          # merges with both: one VMA again
maps

mmap +0x20000 0x3000 r-- private,anon,fixed
mprotect +0x20000 0x2000 rw-
maps
mprotect +0x21000 0x1000 r--          # merges with the next VMA
maps

# Separately created VMAs merge as well once their flags match.
mmap +0x30000 0x1000 rw- private,anon,fixed
mmap +0x31000 0x1000 r-x private,anon,fixed
mmap +0x32000 0x1000 rw- private,anon,fixed
mprotect +0x31000 0x1000 rw-
maps

# One call covering several VMAs with different protections: all change,
# and the result is a single VMA.
mmap +0x40000 0x1000 r-- private,anon,fixed
mmap +0x41000 0x1000 --- private,anon,fixed
mmap +0x42000 0x1000 r-x private,anon,fixed
mprotect +0x40000 0x3000 r--
maps
