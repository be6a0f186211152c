/*
 * VM event counters and page-state gauges (include/vmstat.h), and the text
 * of /proc/vmstat (Linux mm/vmstat.c: vmstat_show over vmstat_text).
 *
 * Locking: none (see include/vmstat.h). Event rows are per CPU, one cache
 * line apart, added to with relaxed atomics; the gauges are shared atomics.
 */
#include "vmstat.h"
#include "lockless.h"
#include "arch.h"
#include "kstring.h"
#include "pmm.h"
#include "printk.h"

struct vm_event_row vm_events[NR_CPUS];
long vm_stats[NR_VM_STATS];

#define VM_NAME(id, name) name,
static const char *const vm_event_names[NR_VM_EVENTS] = { VM_EVENT_TABLE(VM_NAME) };
static const char *const vm_stat_names[NR_VM_STATS] = { VM_STAT_TABLE(VM_NAME) };
#undef VM_NAME

unsigned long vm_event_sum(enum vm_event e)
{
	unsigned long sum = 0;
	unsigned c;

	for_each_cpu(c, arch_cpu_online_mask())        /* only a CPU that is up has counted */
		sum += READ_ONCE(vm_events[c].n[e]);
	return sum;
}

unsigned long vm_stat_read(enum vm_stat s)
{
	long v = READ_ONCE(vm_stats[s]);

	return v > 0 ? (unsigned long)v : 0;
}

/* Append "name value\n" to buf (size bytes) at *len; *len grows by the full length. */
static void put_line(char *buf, size_t size, size_t *len, const char *name, unsigned long v)
{
	char line[64];
	int n = ksnprintf(line, sizeof(line), "%s %lu\n", name, v);

	if (*len + n <= size)
		memcpy(buf + *len, line, n);
	*len += n;
}

size_t vmstat_format(char *buf, size_t size)
{
	size_t len = 0;

	put_line(buf, size, &len, "nr_free_pages", pmm_free_frames());
	for (unsigned s = 0; s < NR_VM_STATS; s++)
		if (vm_stat_names[s])
			put_line(buf, size, &len, vm_stat_names[s], vm_stat_read(s));
	for (unsigned e = 0; e < NR_VM_EVENTS; e++)
		put_line(buf, size, &len, vm_event_names[e], vm_event_sum(e));
	return len;
}
