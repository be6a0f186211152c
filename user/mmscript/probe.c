/*
 * probe.c - real user-mode accesses for read/write/fill that survive faults.
 *
 * A SIGSEGV or SIGBUS handler (installed with our SA_RESTORER trampoline)
 * siglongjmps back to the probe, which reports the signal. sigsetjmp saves
 * the signal mask and siglongjmp restores it, so the signal, blocked while
 * its handler runs, is unblocked again for the next probe.
 */
#include "mmscript.h"

static sigjmp_buf probe_jb;
static volatile int probe_active;          /* a probe is in progress */
static volatile unsigned long probe_cur;   /* fill: the address being stored */

static void probe_on_fault(int sig)
{
	struct sigaction dfl;

	if (probe_active) {
		probe_active = 0;
		siglongjmp(probe_jb, sig);
	}
	/* A fault outside a probe is a runner bug: die of it (the parent then
	 * reports the script as INCOMPLETE). Returning retries the access. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
}

/* mms_probe_install - see mmscript.h. */
int mms_probe_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_on_fault;
	if (sigaction(SIGSEGV, &sa, NULL) < 0 || sigaction(SIGBUS, &sa, NULL) < 0)
		return -errno;
	return 0;
}

/* mms_probe_read - see mmscript.h. */
int mms_probe_read(unsigned long addr, unsigned int *val)
{
	int sig = sigsetjmp(probe_jb, 1);

	if (sig)
		return sig;
	probe_active = 1;
	*val = *(volatile unsigned char *)addr;
	probe_active = 0;
	return 0;
}

/* mms_probe_write - see mmscript.h. */
int mms_probe_write(unsigned long addr, unsigned int val)
{
	int sig = sigsetjmp(probe_jb, 1);

	if (sig)
		return sig;
	probe_active = 1;
	*(volatile unsigned char *)addr = (unsigned char)val;
	probe_active = 0;
	return 0;
}

/* mms_probe_fill - see mmscript.h. */
int mms_probe_fill(unsigned long addr, unsigned long len, unsigned int val,
		   unsigned long *fault_page)
{
	int sig;

	probe_cur = addr;
	sig = sigsetjmp(probe_jb, 1);
	if (sig) {
		*fault_page = probe_cur & ~(UPAGE_SIZE - 1);
		return sig;
	}
	probe_active = 1;
	for (;;) {
		unsigned long next;

		*(volatile unsigned char *)probe_cur = (unsigned char)val;
		next = (probe_cur & ~(UPAGE_SIZE - 1)) + UPAGE_SIZE;
		if (next == 0 || next - addr >= len)
			break;
		probe_cur = next;
	}
	probe_active = 0;
	return 0;
}
