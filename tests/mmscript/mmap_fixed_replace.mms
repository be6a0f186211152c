# MAP_FIXED over existing mappings replaces them: the old pages are gone (the
# new mapping reads as zero), the neighbours are split at the edges.
#
#   +0x10000 ... +0x18000:  AAAA BBBB     (A rw- written, B r--)
#   after:                  AA NNNN BB    (N rw- new, in the middle)

mmap +0x10000 0x4000 rw- private,anon,fixed
fill +0x10000 0x4000 0x11
mmap +0x14000 0x4000 r-- private,anon,fixed
maps
mmap +0x12000 0x4000 -w- private,anon,fixed
maps
read +0x11000          # A's data survives outside the replaced range
read +0x12000          # replaced: zero-filled page of the new mapping
read +0x13000
read +0x16000          # B's tail, still r--

# Replace across a hole and several VMAs at once.
mmap +0x30000 0x1000 rw- private,anon,fixed
mmap +0x32000 0x1000 r-- private,anon,fixed
mmap +0x34000 0x1000 rw- shared,anon,fixed
write +0x30000 0x22
write +0x34000 0x33
mmap +0x30000 0x5000 r-- private,anon,fixed
maps
read +0x30000
read +0x34000

# Replacing with an identical mapping merges with equal neighbours.
mmap +0x50000 0x3000 rw- private,anon,fixed
mmap +0x51000 0x1000 rw- private,anon,fixed
maps
