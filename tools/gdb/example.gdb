# The gdb kit's worked example (README.md, "Debugging with gdb"): the first
# write to a fresh mapping of build/user/vmprint, from user space into the
# fault handler and back, then a page that was only read. Run it with
#     tools/run-gdb --batch tools/gdb/example.gdb build/user/vmprint
# (or type the commands at the prompt of tools/run-gdb build/user/vmprint).
# tools/gdb-check runs it in `make test` and checks what it prints.
break vmprint.c:32
continue
vmas
pte 0x600000000000
# Breakpoint 2 goes first: once, continuing from it stopped there again
# (an interrupt during gdb's step over it, most likely; README.md).
delete
hbreak handle_mm_fault
continue
bt
finish
pte 0x600000000000
ptwalk 0x600000000000
frames $pa
vmas
delete
break vmprint.c:34
continue
ptwalk 0x600000001000
# Per-VMA locks and grace periods: the first write above fell back to the
# mmap_lock (the fresh VMA had no anon identity), the read of the second page
# found its VMA without it.
rcu
