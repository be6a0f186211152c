# mremap error paths (mm/mremap.c): unaligned address, fixed without maymove,
# dontunmap without maymove or with a size change, zero new length, unaligned
# or overlapping NEWADDR -> EINVAL; the old range not inside one VMA (or in a
# hole) -> EFAULT; growth that does not fit in place -> ENOMEM.

mmap +0x10000 0x2000 rw- private,anon,fixed
mmap +0x12000 0x2000 r-- private,anon,fixed
mremap +0x10800 0x1000 0x1000 0                      # unaligned address
mremap +0x10000 0x1000 0x1000 fixed +0x50000         # fixed needs maymove
mremap +0x10000 0x1000 0x1000 dontunmap +0x50000     # dontunmap needs maymove
mremap +0x10000 0x1000 0x2000 maymove,dontunmap      # dontunmap: same size only
mremap +0x10000 0x1000 0 0                           # zero new length
mremap +0x10000 0x1000 0 maymove
mremap +0x10000 0x2000 0x2000 maymove,fixed +0x50800 # unaligned NEWADDR
mremap +0x10000 0x2000 0x2000 maymove,fixed +0x11000 # NEWADDR overlaps
mremap +0x10000 0x2000 0x2000 maymove,fixed +0xf000  # overlaps from below
mremap +0x10000 0x4000 0x5000 0                      # spans two VMAs: EFAULT
mremap +0x10000 0x4000 0x5000 maymove
mremap +0x100000 0x1000 0x2000 0                     # nothing there: EFAULT
mremap +0x100000 0x1000 0x1000 maymove,fixed +0x50000
mremap +0x10000 0x2000 0x3000 0                      # blocked by +0x12000
mremap +0x10000 0x1000 0x1000 maymove,fixed 0x7ffffffff000   # NEWADDR past TASK_SIZE
mremap +0x10000 0x1000 0x1000 maymove,fixed 0xffff800000000000
mremap +0x10000 0xfffffffffffff001 0x1000 0          # old length wraps
mremap +0x10000 0x1000 0xfffffffffffff001 maymove    # new length wraps
mremap +0x10000 0x0 0x1000 maymove                   # old length 0 on private memory
maps
