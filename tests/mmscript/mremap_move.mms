# mremap maymove,fixed moves a mapping to NEWADDR (replacing whatever was
# there, like MAP_FIXED). Pages keep their contents. A moved VMA that was
# never written gets a page offset for its new address and merges like a new
# mapping; a written one keeps its old offset and anon_vma, so it merges only
# where offsets line up.

mmap +0x10000 0x2000 rw- private,anon,fixed
fill +0x10000 0x2000 0x41
mremap +0x10000 0x2000 0x2000 maymove,fixed +0x50000
read +0x50000
read +0x51000
read +0x10000                          # the old range is unmapped
maps

# Move onto an existing mapping: it is replaced.
mmap +0x20000 0x1000 rw- private,anon,fixed
write +0x20000 0x42
mmap +0x60000 0x3000 r-- private,anon,fixed
mremap +0x20000 0x1000 0x1000 maymove,fixed +0x61000
maps
read +0x61000

# Move with growth or shrink at the same time.
mmap +0x30000 0x2000 rw- private,anon,fixed
write +0x30000 0x43
mremap +0x30000 0x2000 0x4000 maymove,fixed +0x70000
mremap +0x70000 0x4000 0x1000 maymove,fixed +0x80000
read +0x80000
maps

# Merging after a move. Unwritten: new offset, merges with the neighbour.
mmap +0x100000 0x1000 rw- private,anon,fixed
mmap +0x110000 0x1000 rw- private,anon,fixed
mremap +0x110000 0x1000 0x1000 maymove,fixed +0x101000
maps
# Written: keeps its old offset (for +0x120000), does not merge at +0x201000.
mmap +0x200000 0x1000 rw- private,anon,fixed
mmap +0x220000 0x1000 rw- private,anon,fixed
write +0x220000 1
mremap +0x220000 0x1000 0x1000 maymove,fixed +0x201000
maps
# Moving it back next to where its offset fits: still its own anon_vma, and
# the neighbour was never written, so they merge.
mmap +0x21f000 0x1000 rw- private,anon,fixed
mremap +0x201000 0x1000 0x1000 maymove,fixed +0x220000
maps

# Moving part of a VMA splits it: the middle page of three moves away.
mmap +0x300000 0x3000 rw- private,anon,fixed
fill +0x300000 0x3000 0x44
mremap +0x301000 0x1000 0x1000 maymove,fixed +0x310000
maps
read +0x310000
read +0x301000
