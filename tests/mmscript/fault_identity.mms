# Which faults give a private anonymous VMA an anon_vma, as merging reveals.
# Observed on Linux 6.18: a read fault does, like a write fault (the page
# mapped is still the shared zero page: mincore says resident, the data is
# zero). MADV_DONTNEED drops the pages but not the anon_vma. Pieces split
# from one VMA share its anon_vma and merge back.

# Read-faulted + untouched: mergeable (only one has an anon_vma).
mmap +0x10000 0x1000 rw- private,anon,fixed
read +0x10000
mmap +0x11000 0x1000 r-- private,anon,fixed
mprotect +0x11000 0x1000 rw-
maps

# Untouched + read-faulted: mergeable.
mmap +0x20000 0x1000 rw- private,anon,fixed
mmap +0x21000 0x1000 r-- private,anon,fixed
read +0x21000
mprotect +0x21000 0x1000 rw-
maps

# Read-faulted + read-faulted separately: two anon_vmas, no merge.
mmap +0x30000 0x1000 rw- private,anon,fixed
read +0x30000
mmap +0x31000 0x1000 r-- private,anon,fixed
read +0x31000
mprotect +0x31000 0x1000 rw-
maps

# Written + read-faulted: no merge either.
mmap +0x40000 0x1000 rw- private,anon,fixed
write +0x40000 1
mmap +0x41000 0x1000 r-- private,anon,fixed
read +0x41000
mprotect +0x41000 0x1000 rw-
maps

# One VMA, both pages read, split and restored: one anon_vma, merges back.
mmap +0x50000 0x2000 rw- private,anon,fixed
read +0x50000
read +0x51000
mprotect +0x51000 0x1000 r--
mprotect +0x51000 0x1000 rw-
maps
mincore +0x50000 0x2000

# After MADV_DONTNEED the anon_vma stays: still no three-way merge.
mmap +0x60000 0x1000 rw- private,anon,fixed
read +0x60000
mmap +0x62000 0x1000 rw- private,anon,fixed
write +0x62000 1
madvise +0x60000 0x1000 dontneed
mmap +0x61000 0x1000 rw- private,anon,fixed
maps

# MAP_POPULATE faults every page in: a populated VMA has an anon_vma too.
mmap +0x70000 0x1000 rw- private,anon,fixed,populate
mmap +0x72000 0x1000 rw- private,anon,fixed,populate
mmap +0x71000 0x1000 rw- private,anon,fixed
maps
