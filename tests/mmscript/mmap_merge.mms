# A new anonymous mapping merges with an adjacent VMA when the flags match
# (prot, private/shared, accounting) and the anon page offsets line up
# (anonymous VMAs get pgoff = address >> 12, so adjacent ones always do).
#
#   left:   [A][new]          right:  [new][B]         both: [A][new][B]

mmap +0x10000 0x1000 rw- private,anon,fixed
mmap +0x11000 0x1000 rw- private,anon,fixed          # merges left
maps
mmap +0x21000 0x1000 rw- private,anon,fixed
mmap +0x20000 0x1000 rw- private,anon,fixed          # merges right
maps
mmap +0x30000 0x1000 rw- private,anon,fixed
mmap +0x32000 0x1000 rw- private,anon,fixed
mmap +0x31000 0x1000 rw- private,anon,fixed          # merges both: one VMA
maps

# Different protection: no merge.
mmap +0x40000 0x1000 rw- private,anon,fixed
mmap +0x41000 0x1000 r-- private,anon,fixed
mmap +0x42000 0x1000 rw- private,anon,fixed
maps

# Shared anonymous mappings are separate shmem objects: never merge, neither
# with each other nor with private neighbours.
mmap +0x50000 0x1000 rw- shared,anon,fixed
mmap +0x51000 0x1000 rw- shared,anon,fixed
mmap +0x52000 0x1000 rw- private,anon,fixed
maps

# MAP_POPULATE is not a VMA flag: populated and plain mappings merge.
mmap +0x60000 0x1000 rw- private,anon,fixed,populate
mmap +0x61000 0x1000 rw- private,anon,fixed
maps

# A hint that lands right after a VMA merges like a fixed mapping.
mmap +0x70000 0x1000 r-- private,anon,fixed
mmap +0x71000 0x1000 r-- private,anon
maps
