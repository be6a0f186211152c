/*
 * start.c - C half of process start-up: decode the initial stack, call main.
 */
#include "ulib.h"

char **environ;
unsigned long *__uauxv;

int main(int argc, char **argv, char **envp);
void __ustart(unsigned long *sp) __attribute__((noreturn, used));

/*
 * __ustart - called by _start with the initial stack pointer: sp[0] = argc,
 * then argv pointers, NULL, envp pointers, NULL, auxv pairs ending in AT_NULL.
 */
void __ustart(unsigned long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	char **e = envp;

	while (*e)
		e++;
	environ = envp;
	__uauxv = (unsigned long *)(e + 1);
	exit(main(argc, argv, envp));
}

/* getauxval - see ulib.h. */
unsigned long getauxval(unsigned long type)
{
	unsigned long *a;

	for (a = __uauxv; a && a[0] != 0; a += 2)
		if (a[0] == type)
			return a[1];
	return 0;
}
