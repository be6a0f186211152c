# gdb setup for `make qemu-gdb` (QEMU stopped at the first instruction,
# gdb stub on localhost:1234). Start gdb from the repository root:
#     gdb -x .gdbinit          (or: make gdb)
# (plain `gdb` reads this file only if your ~/.gdbinit has
#  "add-auto-load-safe-path <this directory>"; -x never needs it).
# Use hardware breakpoints for kernel code: `hbreak kmain`, then `continue`.
# QEMU starts the CPU in 32-bit mode with paging off, so gdb cannot write a
# software breakpoint into a higher-half address that is not mapped yet (a
# plain `break kmain` silently never fires); hbreak works from the start
# (checked with QEMU 7.2 TCG and gdb 13). Once the kernel runs, `break` works too.
source tools/gdb/vmkernel.gdb
target remote localhost:1234
echo \n.gdbinit: connected to QEMU; try 'hbreak kmain' then 'continue'\n
