# User-mode tests (user/tests/, built by mk/user.mk's rule for program
# directories into build/user/tests): each test runs in a forked child; the
# program ends with "N passed, N failed" and a frame-leak check on our kernel.
#
#   make test-user [UTESTS="a b*"]       run them (or the named ones: names or globs,
#                                        '*' and '?') on the kernel in QEMU (tools/run)
#   make test-user UTESTS=... LIST=1     list the names instead
#   make test-user-linux [UTESTS="a b"]  run the same binary on the host Linux
#   make test-run          tools/run-check: tools/run's statuses, arguments and
#                          output streams, and a static musl program (musl-tools)
#   make run-user PROG=path ARGS="..."   any static program through tools/run
#   make bench-console     program output throughput -> docs/console-bench.md
#   make bench-smp [QUICK=1]  threads and processes on several CPUs -> docs/smp-bench.md
#   make bench-mixedcost      a mixed1 fault's cost to its own thread, 1-4 threads -> docs/smp-bench.md
#   make test-programs     unmodified programs, Linux vs the kernel -> docs/programs.md

USERTESTS := $(BUILD)/user/tests
UTESTS_ARGS = $(if $(filter 1 yes on,$(LIST)),--list) $(UTESTS)

.PHONY: test-user test-user-linux run-user test-run test-swap-big
# The guest CPU has protection keys, as most x86 machines Linux runs on now,
# so the execute-only path is what test-user checks (the kernel's path
# without them is checked by make test's run and mmscript stages).
# Kernel reports the tests provoke on purpose (fault lines, "killed by
# signal") come out as "# " diagnostics (tools/stderr-as-diag).
test-user: $(USERTESTS) $(KERNEL32)
	@set -f; QEMU_CPU=$${QEMU_CPU:-qemu64,+pku} tools/stderr-as-diag tools/run $(USERTESTS) $(UTESTS_ARGS)

# The swap round trip at the size of the memory-pressure issue: 1 GiB written
# in a 512 MiB machine with 2 GiB of swap, read back, and read by a forked
# child (make test's user-swap stage runs it at an eighth of that). A swap
# test prints nothing while it writes and reads: the console's silence
# limit and the test watchdog are 1800 s, for a loaded host.
test-swap-big: $(USERTESTS) $(KERNEL32)
	@RUN_TIMEOUT=1800 tools/stderr-as-diag tools/run --mem 512M --swap 2G --env UTEST_SWAP=1 \
		--env UTESTS_TIMEOUT=1800 $(USERTESTS) 'swap_*'

test-user-linux: $(USERTESTS)
	@set -f; $(USERTESTS) $(UTESTS_ARGS)

run-user: $(KERNEL32)
	@tools/run $(PROG) $(ARGS)

test-run: $(USERTESTS) $(KERNEL32)
	@tools/run-check

# Program output throughput through tools/run, virtio ports against the serial port.
.PHONY: bench-console
bench-console: $(USERTESTS) $(KERNEL32)
	@tools/bench/bench-console --mb 8 --out docs/console-bench.md

# The SMP benchmark (tools/bench/smpbench): user threads (tools/bench/threadbench.c) under -icount and
# multi-threaded TCG, processes; rewrites its tables in docs/smp-bench.md. QUICK=1: fewer.
.PHONY: bench-smp
bench-smp: $(KERNEL32)
	@tools/bench/smpbench $(if $(filter 1 yes on,$(QUICK)),--quick) docs/smp-bench.md

# What one mixed1 fault costs the faulting thread itself, with the mapper beside it
# (tools/bench/mixedcost: per-CPU instruction counts from the QEMU plugin tools/bench/insncount.c);
# rewrites its table in docs/smp-bench.md.
.PHONY: bench-mixedcost
bench-mixedcost:
	@tools/bench/mixedcost docs/smp-bench.md

# Unmodified programs (busybox, bash, a static glibc C++ program, lua, jq) on Linux and on
# the kernel, compared; writes docs/programs.md. Installs or builds what is missing.
.PHONY: test-programs
test-programs: $(KERNEL32)
	@tools/test-programs --out docs/programs.md
