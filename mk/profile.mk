# The profiling suite (tools/profile/profile-suite, docs/results/README.md): the
# 1998, 2001 and 2007 measurements from Linux's history, reproduced on this
# kernel with user workloads (user/workloads/) in QEMU under -icount shift=0.
#
#   make profile                  every experiment: tables, CSV, plots and README.md in
#                                 docs/results/ (about 7 minutes on 2 cores)
#   make profile PROFILE_QUICK=1  smaller workloads, results in build/profile-quick/
#                                 (under 2 minutes)
#   make profile-check            the quick self-test make test runs: one profiled run,
#                                 its readprofile table and folded stacks well formed; the
#                                 2007 workload's lock and fault counts in two variants; every
#                                 claim of README.md.in against docs/results/values.json
#   make profile-traces           record the strace traces of real compiler runs again
#                                 (user/workloads/traces/*.replay; needs strace, gcc, g++)
# PROFILE_JOBS=N runs N QEMUs at a time (default 2).

.PHONY: profile profile-check profile-traces
# gnuplot (Debian's gnuplot-nox) is installed by tools/profile/profile-suite when missing.
profile: deps-check
	@PROFILE_QUICK=$(PROFILE_QUICK) tools/profile/profile-suite

profile-check: $(KERNEL32) user
	@tools/profile/profile-suite --check

profile-traces:
	@tools/profile/profile-traces
