# gdb setup for `make qemu-gdb` (QEMU stopped at the first instruction,
# gdb stub on localhost:1234). Start gdb from the repository root:
#     gdb -x .gdbinit
# (plain `gdb` reads this file only if your ~/.gdbinit has
#  "add-auto-load-safe-path <this directory>").
# Known limitation (QEMU 7.2, TCG, checked with gdb 13): breakpoints in the
# 32-bit boot code work (`hbreak *0x100040` stops at _start), but breakpoints
# at higher-half addresses (kmain, ...) did not fire. Interrupting a running
# kernel (Ctrl-C, or attaching to `make qemu-gdb QEMU_GDB_NOWAIT=1`) and then
# bt / print / x / info registers work.
set architecture i386:x86-64
file build/kernel.elf
target remote localhost:1234
echo \n.gdbinit: connected to QEMU; 'hbreak *0x100040' + 'continue' stops at _start\n
