# gdb setup for vmkernel: the kernel's symbols and the commands of
# tools/gdb/vmkernel.py (vmas, ptwalk, pte, frames). Load it explicitly,
# from the repository root, so that gdb's auto-load safe-path never
# applies (and never warns):
#     gdb -q -x tools/gdb/vmkernel.gdb            (make gdb does this)
# then connect to a kernel waiting under QEMU's gdb stub:
#     (gdb) target remote localhost:1234          (make qemu-gdb in another terminal)
# tools/run-gdb does all of it for a user program.
set pagination off
set confirm off
set architecture i386:x86-64
file build/kernel.elf
source tools/gdb/vmkernel.py
echo vmkernel: gdb commands vmas, ptwalk, pte, frames (tools/gdb/vmkernel.py)\n
