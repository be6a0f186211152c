# MAP_FIXED_NOREPLACE: like MAP_FIXED, but -EEXIST when any page of the range
# is already mapped, and then nothing changes.

mmap +0x10000 0x3000 rw- private,anon,fixed_noreplace   # free: mapped
mmap +0x10000 0x1000 rw- private,anon,fixed_noreplace   # same start
mmap +0x12000 0x2000 rw- private,anon,fixed_noreplace   # overlaps the last page
mmap +0xf000 0x2000 rw- private,anon,fixed_noreplace    # overlaps the first page
mmap +0x0 0x100000 rw- private,anon,fixed_noreplace     # covers it entirely
mmap +0x11000 0x1000 r-- private,anon,fixed_noreplace   # inside it
maps
# Adjacent on both sides: free, so it works and merges (same flags).
mmap +0xf000 0x1000 rw- private,anon,fixed_noreplace
mmap +0x13000 0x1000 rw- private,anon,fixed_noreplace
maps
# fixed and fixed_noreplace together: NOREPLACE wins, nothing is replaced.
mmap +0x11000 0x1000 r-- private,anon,fixed,fixed_noreplace
maps
