# mprotect argument checks (mm/mprotect.c do_mprotect_pkey): an unaligned
# start -> EINVAL; zero length -> 0 without looking at the range; an end
# that wraps -> ENOMEM; unmapped (also past TASK_SIZE, kernel half) -> ENOMEM.

mmap +0x10000 0x2000 rw- private,anon,fixed
mprotect +0x10800 0x1000 r--
mprotect +0x10000 0 r--
mprotect +0x100000 0 r--                   # zero length on a hole: still 0
mprotect +0x10000 0xfffffffffffff001 r--   # PAGE_ALIGN(len) wraps
mprotect +0x10000 0xffffffffffff0000 r--   # start + len wraps
mprotect 0x7ffffffff000 0x1000 r--
mprotect 0xffff800000000000 0x1000 r--
mprotect 0x800000000000 0x1000 r--
maps
