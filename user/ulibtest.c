/*
 * ulibtest.c - self-test of the tiny libc (user/lib): formatting, strings,
 * numbers, malloc, setjmp, signals with sigsetjmp/siglongjmp, fork/wait.
 * Prints one line per check and a final "N passed, N failed"; exit status 0
 * when all passed. Expected values are written out by hand below.
 */
#include "ulib.h"

static int passed, failed;

static void check(int ok, const char *what)
{
	if (ok)
		passed++;
	else
		failed++;
	printf("%s %s\n", ok ? "ok" : "FAILED", what);
}

static int fmt_is(const char *want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fmt_is(const char *want, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (strcmp(buf, want) != 0 || n != (int)strlen(want)) {
		printf("  got \"%s\" want \"%s\"\n", buf, want);
		return 0;
	}
	return 1;
}

static sigjmp_buf jb;
static volatile char *volatile bad_ptr = (volatile char *)8;   /* an unmapped page */
static volatile int handled;

static void on_segv(int sig)
{
	handled = sig;
	siglongjmp(jb, 7);
}

int main(int argc, char **argv, char **envp)
{
	char small[5];
	char *p;
	unsigned char *m;
	int status, r;
	sigset_t mask;
	struct sigaction sa;

	(void)envp;
	check(argc >= 1 && argv[0] && argv[argc] == NULL, "argv from the initial stack");
	check(getauxval(6) == 4096, "auxv AT_PAGESZ is 4096");

	check(fmt_is("0x1f", "0x%lx", 31UL), "%lx");
	check(fmt_is("-42|42  |  042", "%d|%-4d|%5.3d", -42, 42, 42), "%d flags");
	check(fmt_is("00ff|FF|0x0", "%04x|%X|%p", 255, 255, (void *)0), "hex, %p");
	check(fmt_is("ab  |  cd|x", "%-4s|%4s|%.1s", "ab", "cd", "xyz"), "%s width/precision");
	check(fmt_is("18446744073709551615 -9223372036854775808", "%lu %ld", ~0UL,
		     (long)(1UL << 63)), "64-bit extremes");
	check(snprintf(small, sizeof(small), "%s", "abcdefgh") == 8 && strcmp(small, "abcd") == 0,
	      "snprintf truncates and returns the full length");

	check(strtoul("0x1F", &p, 0) == 31 && *p == 0, "strtoul hex");
	check(strtoul("123z", &p, 10) == 123 && *p == 'z', "strtoul decimal stops");
	check(strcmp("abc", "abd") < 0 && strncmp("abc", "abd", 2) == 0, "strcmp/strncmp");
	check(strrchr("a/b/c", '/') && strcmp(strrchr("a/b/c", '/'), "/c") == 0, "strrchr");

	m = malloc(100000);
	check(m && ((unsigned long)m & 15) == 0, "malloc aligned");
	memset(m, 0x5a, 100000);
	m = realloc(m, 200000);
	check(m && m[99999] == 0x5a && m[150000] == 0, "realloc keeps data");
	free(m);

	r = sigsetjmp(jb, 0);
	if (r == 0)
		siglongjmp(jb, 0);
	check(r == 1, "longjmp with 0 returns 1");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	check(sigaction(SIGSEGV, &sa, NULL) == 0, "sigaction SIGSEGV");
	for (volatile int round = 0; round < 2; round++) {
		handled = 0;
		r = sigsetjmp(jb, 1);
		if (r == 0)
			*bad_ptr = 1;       /* faults */
		check(r == 7 && handled == SIGSEGV, "SIGSEGV caught, siglongjmp out");
		sigprocmask(SIG_BLOCK, NULL, &mask);
		check(!(mask & sigmask_of(SIGSEGV)), "mask restored: SIGSEGV unblocked");
	}

	r = fork();
	if (r == 0)
		_exit(42);
	check(r > 0 && waitpid(r, &status, 0) == r && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 42, "fork, exit status through wait4");
	r = fork();
	if (r == 0) {
		sa.sa_handler = SIG_DFL;
		sigaction(SIGSEGV, &sa, NULL);
		*bad_ptr = 1;
		_exit(0);
	}
	check(r > 0 && waitpid(r, &status, 0) == r && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGSEGV, "child killed by SIGSEGV");
	check(mmap((void *)0x10000, 4096, PROT_READ, MAP_PRIVATE, -1, 0) == MAP_FAILED &&
	      errno == EBADF, "mmap error sets errno");
	check(strcmp(uerrno_name(ENOMEM), "ENOMEM") == 0, "errno names");

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
