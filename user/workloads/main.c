/* workloads: the profiling workloads, one subcommand each (wl.h). */
#include "wl.h"

#define PR_SET_THP_DISABLE_ 41

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "mix", wl_mix },
	{ "sweep", wl_sweep },
	{ "gc", wl_gc },
	{ "replay", wl_replay },
	{ "sysbench", wl_sysbench },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: workloads mix|sweep|gc|replay|sysbench [OPTIONS] (user/workloads/wl.h)\n");
		return 2;
	}
	/* 4 KiB pages on Linux too (no transparent huge pages), inherited by children */
	sys_prctl(PR_SET_THP_DISABLE_, 1, 0, 0, 0);
	for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0)
			return cmds[i].fn(argc - 1, argv + 1);
	printf("workloads: unknown workload '%s'\n", argv[1]);
	return 2;
}
