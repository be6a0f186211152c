# Merging and anon_vma identity. Two private anonymous VMAs can merge when at
# most one of them has an anon_vma, or both share the same one. A VMA gets its
# anon_vma at its first fault. Observed on Linux 6.18: a read fault counts
# too (the page itself is the shared zero page), see fault_identity.mms.

# 1. New mapping next to a written VMA: the new one has no anon_vma: merges.
mmap +0x10000 0x1000 rw- private,anon,fixed
write +0x10000 1
mmap +0x11000 0x1000 rw- private,anon,fixed
maps

# 2. Filling a hole between two VMAs written separately: their anon_vmas
#    differ, so the new range cannot join both; Linux merges it with the
#    previous VMA only.
mmap +0x20000 0x1000 rw- private,anon,fixed
mmap +0x22000 0x1000 rw- private,anon,fixed
write +0x20000 2
write +0x22000 3
mmap +0x21000 0x1000 rw- private,anon,fixed
maps

# 3. Same, but only the right one was written: all three merge.
mmap +0x30000 0x1000 rw- private,anon,fixed
mmap +0x32000 0x1000 rw- private,anon,fixed
write +0x32000 4
mmap +0x31000 0x1000 rw- private,anon,fixed
maps

# 4. Read faults give each VMA its own anon_vma as well: as in case 2 the
#    new range merges with the previous VMA only.
mmap +0x40000 0x1000 rw- private,anon,fixed
mmap +0x42000 0x1000 rw- private,anon,fixed
read +0x40000
read +0x42000
mmap +0x41000 0x1000 rw- private,anon,fixed
maps

# 5. Data survives the merges.
read +0x10000
read +0x20000
read +0x22000
read +0x32000
