# The side-by-side benchmark against Linux (tools/bench/bench-linux):
#
#   make bench-linux [BENCH_LINUX_ARGS="page_fault1 brk1"]
#                       user/mmbench on Debian's Linux kernel (fetched into
#                       build/linux/ with apt-get download) and on this kernel,
#                       in the same QEMU under -icount shift=0; prints Linux,
#                       ours and the ratio per benchmark and writes the table
#                       into docs/bench-linux.md; then the swap benchmarks
#                       (swap_in swap_out thrash: mmbench --swap) on both,
#                       each machine with a virtio-blk swap disk (SWAP=1G)

.PHONY: bench-linux
bench-linux: deps-check
	@tools/bench/bench-linux --doc docs/bench-linux.md $(BENCH_LINUX_ARGS)
