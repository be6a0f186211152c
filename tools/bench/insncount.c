/*
 * tools/bench/insncount.c: a QEMU TCG plugin that counts the guest
 * instructions each virtual CPU executes, exactly, and writes every CPU's
 * count whenever the guest executes a marker instruction. Under
 * `-icount` the guest clock counts the instructions of all CPUs
 * together (QEMU runs them in turns), so no clock in the guest can tell
 * one thread's instructions from another's; a thread pinned to its own
 * CPU that executes a marker before and after its work can, through
 * this plugin (tools/bench/mixedcost uses it for threadbench's mixed1).
 *
 * Build: cc -shared -fPIC -O2 -o insncount.so tools/bench/insncount.c
 * Use:   qemu-system-x86_64 ... -plugin ./insncount.so,out=FILE[,wait=LO-HI...]
 *
 * The marker is a no-op on every x86-64 CPU, so the same binary runs
 * unchanged on real hardware, under KVM and on any kernel:
 *
 *     nopl 0x4b4d56NN(%rax,%rax,1)      bytes 0f 1f 84 00 NN 56 4d 4b
 *
 * (NN, 0-255: the marker's code). Each time a CPU executes one, the
 * plugin appends to FILE the line
 *
 *     mark CODE cpu V insns C0 C1 ... C(n-1) wait W0 W1 ... W(n-1)
 *
 * with Ci the instructions CPU i has executed since QEMU started (user
 * and kernel mode, interrupt handlers included; a halted CPU executes
 * none), and Wi those of them at addresses in the wait=LO-HI ranges
 * (hexadecimal, HI excluded; any number of them): e.g. the kernel's
 * lock-waiting loops, to tell waiting from working. Counting is per instruction, not per translation block, so the
 * rest of a block after an instruction that faults (a page fault in the
 * middle of a block) is not counted until it really runs; the faulting
 * instruction itself counts once when it faults and once when it runs
 * again (one instruction per fault more than the CPU retires).
 *
 * Run it with the guest CPUs as host threads (multi-threaded TCG, no
 * -icount): under -icount with several CPUs QEMU 10.0.2 passed it CPU 0
 * for instructions that other CPUs executed.
 *
 * The plugin API is QEMU's (include/qemu/qemu-plugin.h, API version 4:
 * QEMU 9.2 to 10.0); the declarations below are the few functions used,
 * written from its documentation, so that no QEMU headers (nor glib's)
 * are needed to build it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the QEMU plugin API's declarations used here */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	bool system_emulation;
	struct { int smp_vcpus, max_vcpus; } system;
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
size_t qemu_plugin_insn_data(const struct qemu_plugin_insn *insn, void *dest, size_t len);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    void (*cb)(unsigned int vcpu_index, void *userdata),
					    enum qemu_plugin_cb_flags flags, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 4;
__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
							       int argc, char **argv);
/* ---- end of the API's declarations */

static const uint8_t marker_prefix[4] = { 0x0f, 0x1f, 0x84, 0x00 };
static const uint8_t marker_suffix[3] = { 0x56, 0x4d, 0x4b };
#define MARKER_LEN 8

#define MAX_CPUS 64
#define MAX_RANGES 32
/* Per vCPU (each written by its own vCPU): instructions executed, and those in the wait ranges. */
static uint64_t count[MAX_CPUS], waits[MAX_CPUS];
static unsigned ncpus;
static struct { uint64_t lo, hi; } wait_range[MAX_RANGES];
static unsigned nranges;
static FILE *out;

/* The marker's code (0-255), or -1 when insn is no marker. */
static int marker_code(const struct qemu_plugin_insn *insn)
{
	uint8_t b[MARKER_LEN];

	if (qemu_plugin_insn_size(insn) != MARKER_LEN || qemu_plugin_insn_data(insn, b, sizeof(b)) != MARKER_LEN)
		return -1;
	if (memcmp(b, marker_prefix, 4) || memcmp(b + 5, marker_suffix, 3))
		return -1;
	return b[4];
}

/* A marker ran on vcpu: every CPU's count, one line (fprintf's own lock orders the lines; under
 * multi-threaded TCG the other CPUs' counts are a snapshot of a moving target). */
static void on_marker(unsigned int vcpu, void *code)
{
	char line[64 + 2 * 24 * MAX_CPUS];
	int n = snprintf(line, sizeof(line), "mark %u cpu %u insns", (unsigned)(uintptr_t)code, vcpu);

	for (unsigned i = 0; i < ncpus; i++)
		n += snprintf(line + n, sizeof(line) - n, " %llu", (unsigned long long)count[i]);
	n += snprintf(line + n, sizeof(line) - n, " wait");
	for (unsigned i = 0; i < ncpus; i++)
		n += snprintf(line + n, sizeof(line) - n, " %llu", (unsigned long long)waits[i]);
	fprintf(out, "%s\n", line);
	fflush(out);
}

/*
 * Every instruction calls this. (QEMU's inline per-CPU counters would be
 * faster, but QEMU 10.0.2 crashes in the code they generate under
 * -icount with more than one CPU.)
 */
static void on_insn(unsigned int vcpu, void *unused)
{
	(void)unused;
	count[vcpu]++;
}

static void on_wait_insn(unsigned int vcpu, void *unused)
{
	(void)unused;
	waits[vcpu]++;
}

static bool in_wait_range(uint64_t va)
{
	for (unsigned i = 0; i < nranges; i++)
		if (va >= wait_range[i].lo && va < wait_range[i].hi)
			return true;
	return false;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int code = marker_code(insn);

		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (in_wait_range(qemu_plugin_insn_vaddr(insn)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_wait_insn, QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (code >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)code);
	}
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;

	for (int i = 0; i < argc; i++) {
		unsigned long long lo, hi;
		char end;

		if (strncmp(argv[i], "out=", 4) == 0) {
			path = argv[i] + 4;
		} else if (sscanf(argv[i], "wait=%llx-%llx%c", &lo, &hi, &end) == 2 && lo < hi && nranges < MAX_RANGES) {
			wait_range[nranges].lo = lo;
			wait_range[nranges++].hi = hi;
		} else {
			path = NULL;
			break;
		}
	}
	if (!path || !info->system_emulation) {
		fprintf(stderr, "insncount: usage: -plugin insncount.so,out=FILE[,wait=LO-HI]... "
			"(system emulation only; at most %d ranges)\n", MAX_RANGES);
		return 1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return 1;
	}
	ncpus = (unsigned)info->system.max_vcpus;
	if (ncpus > MAX_CPUS) {
		fprintf(stderr, "insncount: at most %d CPUs\n", MAX_CPUS);
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
