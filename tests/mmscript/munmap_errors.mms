# munmap error paths (mm/vma.c do_vmi_munmap): an unaligned start, a zero
# length, a range that wraps or goes past TASK_SIZE -> EINVAL. Nothing changes.

mmap +0x10000 0x2000 rw- private,anon,fixed
munmap +0x10800 0x1000                    # unaligned start
munmap +0x10000 0                         # zero length
munmap +0x10000 0xfffffffffffff001        # PAGE_ALIGN(len) wraps to 0
munmap +0x10000 0xffffffffffff0000        # start + len wraps
munmap 0x7ffffffff000 0x1000              # at TASK_SIZE
munmap 0x7fffffffe000 0x2000              # crosses TASK_SIZE
munmap 0xffff800000000000 0x1000          # kernel half
munmap 0x800000000000 0x1000              # non-canonical
maps
