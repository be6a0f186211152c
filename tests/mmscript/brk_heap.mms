# The break against mappings: what the fuzzer's heap operations found.
# Shrinking needs something mapped between the new and the old break
# (Linux's brk: vma_find(newbrk, oldbrk)); with the top of the heap unmapped
# from under the break, such a shrink is refused and returns the old break.
brk b+0x4000
write b+0x3000 0x11
munmap b+0x2000 0x2000
brk b+0x3000
read b+0x1000
brk b+0x1000
read b+0x1000
# Growing stops one page short of the next mapping.
mmap b+0x4000 0x1000 rw- private,anon,fixed
brk b+0x3000
brk b+0x3001
write b+0x2000 0x22
read b+0x3000
# Shrinking unmaps the heap pages above the new break; the mapping stays.
brk b+0x1000
read b+0x2000
read b+0x4000
