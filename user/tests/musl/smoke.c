/*
 * A program built outside this project's libc: static musl (musl-gcc
 * -static). Exercises musl's start-up (TLS through arch_prctl,
 * set_tid_address), stdio (writev, ioctl), malloc (brk, mmap, munmap,
 * mremap), SSE floating point, SA_SIGINFO handlers with siglongjmp, fork
 * and wait. tools/run-check runs it on our kernel and on Linux and compares.
 * Not built by mk/user.mk (it only looks at user/tests/*.c).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf jb;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	printf("caught signal %d at %p\n", sig, si->si_addr);
	siglongjmp(jb, 1);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	char *big, *small;
	double d = 1.25;
	int st;
	pid_t pid;

	printf("argc %d:", argc);
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	big = malloc(1 << 20);
	small = malloc(40);
	memset(big, 'b', 1 << 20);
	strcpy(small, "small");
	big = realloc(big, 4 << 20);
	printf("malloc %s %c %c\n", small, big[0], big[(1 << 20) - 1]);
	free(big);
	free(small);
	for (int i = 0; i < 10; i++)
		d = d * 1.5 + 0.25;
	printf("double %.4f\n", d);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (!sigsetjmp(jb, 1))
		*(volatile int *)16 = 1;
	printf("recovered\n");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		printf("child\n");
		exit(3);
	}
	waitpid(pid, &st, 0);
	printf("child status %d\n", WEXITSTATUS(st));
	return 7;
}
