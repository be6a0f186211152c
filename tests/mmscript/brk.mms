# brk: the raw system call returns the new break, or the unchanged break on
# refusal (it never returns an error code). Results print relative to the
# break at script start (b+OFF). The heap lives outside the window, so maps
# does not show it; reads and writes do.

brk 0                          # query
brk b+0x2000                   # grow two pages
write b+0x1fff 1
read b+0x1fff
brk b+0x3001                   # unaligned: kept as is, pages rounded up
write b+0x3fff 2
read b+0x3fff
read b+0x4000                  # beyond the heap's last page
brk b+0x1000                   # shrink: pages above the new end are freed
read b+0x1000
read b+0x1fff
brk b+0x2000                   # grow back: fresh zero page
read b+0x1fff
brk b+0x0
read b+0x0                     # the heap is empty again

# Refusals return the old break: below the start of the heap, absurd values.
brk 0x1000
brk 0xffffffffffffffff
brk 0x7ffffffff000
brk 0xffff800000000000

# The heap may not run into another mapping: it must stay one page away
# from the next VMA (mm/mmap.c check_brk_limits and the brk syscall).
mmap b+0x100000 0x1000 rw- private,anon,fixed
brk b+0xff000                  # ends one page below the mapping: allowed
brk b+0xff001                  # would touch that page: refused
brk b+0x100000
brk b+0x200000                 # across the mapping: refused
brk b+0x0
read b+0x100000                # the mapping is still there
