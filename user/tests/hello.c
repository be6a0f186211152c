/*
 * Small helper programs inside the test binary, chosen by argv[1]:
 *   tests --hello           prints "hello" with write(1) and exits 0
 *   tests --exit N          exits with status N
 *   tests --args A B ...    prints argc and each argument, one per line
 *   tests --segv            dereferences an unmapped address (dies of SIGSEGV)
 * Used by tools/run's own checks and by the execve tests.
 */
#include "utests.h"

int helper_main(int argc, char **argv)
{
	if (strcmp(argv[1], "--hello") == 0) {
		write(1, "hello\n", 6);
		return 0;
	}
	if (strcmp(argv[1], "--exit") == 0)
		return argc > 2 ? (int)strtol(argv[2], NULL, 0) : 0;
	if (strcmp(argv[1], "--args") == 0) {
		printf("argc %d\n", argc);
		for (int i = 0; i < argc; i++)
			printf("argv[%d] %s\n", i, argv[i]);
		return 0;
	}
	if (strcmp(argv[1], "--segv") == 0) {
		volatile int *volatile bad = (volatile int *)16;

		*bad = 1;
		return 0;
	}
	dprintf(2, "tests: unknown helper %s\n", argv[1]);
	return 2;
}
