# Guard regions and the VMA layer. Installing markers in a private
# anonymous VMA gives it an anon_vma (madvise_guard_install:
# anon_vma_prepare when vma_is_anonymous), which then decides merges as a
# write fault would; shared anonymous memory (shmem) gets none. Markers are
# page-table entries: mprotect splits keep them, mremap moves them with the
# pages (also with dontunmap, which leaves the old range empty), munmap,
# MAP_FIXED over them and a brk shrink drop them.

# Two VMAs guarded separately have two anon_vmas: a mapping between them
# merges with one side only (can_vma_merge_right: prev and next must share).
mmap +0x10000 0x1000 rw- private,anon,fixed
madvise +0x10000 0x1000 102
mmap +0x12000 0x1000 rw- private,anon,fixed
madvise +0x12000 0x1000 102
mmap +0x11000 0x1000 rw- private,anon,fixed
maps
# Removing the markers does not take the anon_vma back.
madvise +0x10000 0x3000 103
mprotect +0x11000 0x1000 r--
mprotect +0x11000 0x1000 rw-
maps

# One guarded VMA, one never touched: they merge (one anon_vma at most).
mmap +0x20000 0x1000 rw- private,anon,fixed
madvise +0x20000 0x1000 102
mmap +0x21000 0x1000 rw- private,anon,fixed
maps
read +0x20000
read +0x21000

# Shared: the ends of a split mapping guarded separately still merge back.
mmap +0x30000 0x3000 rw- shared,anon,fixed
mprotect +0x31000 0x1000 r--
madvise +0x30000 0x1000 102
madvise +0x32000 0x1000 102
mprotect +0x31000 0x1000 rw-
maps
read +0x30000
read +0x31000
read +0x32000

# mprotect splits a guarded VMA; each piece keeps its markers.
mmap +0x40000 0x4000 rw- private,anon,fixed
fill +0x40000 0x4000 0x41
madvise +0x41000 0x2000 102
mprotect +0x42000 0x2000 r--
maps
read +0x41000
read +0x42000
read +0x43000
mprotect +0x40000 0x4000 rw-
maps
read +0x42000

# mremap moves markers with the pages; the old place is unmapped.
mremap +0x40000 0x4000 0x4000 maymove,fixed +0x50000
read +0x50000
read +0x51000
read +0x52000
read +0x53000
mincore +0x50000 0x4000
# ...with dontunmap the old range stays mapped, empty, without markers.
mremap +0x50000 0x4000 0x4000 maymove,fixed,dontunmap +0x60000
read +0x51000
read +0x61000
read +0x60000
mincore +0x60000 0x4000
# Growing in place and shrinking keep the markers that remain inside.
mremap +0x60000 0x4000 0x6000 0
read +0x62000
mremap +0x60000 0x6000 0x2000 0
mremap +0x60000 0x2000 0x4000 0
read +0x61000
read +0x62000
maps

# munmap drops markers: a new mapping in the same place has none.
mmap +0x70000 0x4000 rw- private,anon,fixed
madvise +0x70000 0x4000 102
munmap +0x71000 0x1000
mmap +0x71000 0x1000 rw- private,anon,fixed
write +0x71000 1
read +0x72000
# MAP_FIXED over markers replaces them too.
mmap +0x72000 0x1000 rw- private,anon,fixed
write +0x72000 2
read +0x73000
maps

# The heap: markers go with a brk shrink.
brk b+0x4000
write b+0x0 1
madvise b+0x1000 0x2000 102
read b+0x1000
brk b+0x1000
brk b+0x4000
read b+0x1000
read b+0x2000
