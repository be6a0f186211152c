/* Kernel command-line parsing (include/cmdline.h). */
#include "cmdline.h"
#include "printk.h"
#include "kstring.h"
#include "kernel.h"
#include "mm.h"

struct kernel_params kparams;

/* Copy the value into dst, a buffer of size bytes (truncated with a warning). */
static void set_str(char *dst, size_t size, const char *v, size_t vlen, const char *key)
{
	if (vlen >= size) {
		printk("cmdline: warning: value of %s= too long, truncated\n", key);
		vlen = size - 1;
	}
	memcpy(dst, v, vlen);
	dst[vlen] = 0;
}

static bool word_is(const char *w, size_t wlen, const char *s)
{
	return strlen(s) == wlen && strncmp(w, s, wlen) == 0;
}

/* Parse on|off (or 1|0) into *dst; returns 1 (a warning) for anything else. */
static unsigned set_bool(bool *dst, const char *v, size_t vlen, const char *key)
{
	if (word_is(v, vlen, "on") || word_is(v, vlen, "1"))
		*dst = true;
	else if (word_is(v, vlen, "off") || word_is(v, vlen, "0"))
		*dst = false;
	else {
		printk("cmdline: warning: %s=%.*s: expected on or off; keeping %s\n",
		       key, (int)vlen, v, *dst ? "on" : "off");
		return 1;
	}
	return 0;
}

/* Parse a decimal number into *dst; returns 1 (a warning) when it is not one. */
static unsigned set_uint(unsigned *dst, const char *v, size_t vlen, const char *key)
{
	unsigned long n = 0;

	for (size_t i = 0; i < vlen || vlen == 0; i++) {
		if (vlen == 0 || v[i] < '0' || v[i] > '9' || n > 100000000UL) {
			printk("cmdline: warning: %s=%.*s: expected a number; keeping %u\n",
			       key, (int)vlen, v, *dst);
			return 1;
		}
		n = n * 10 + (unsigned long)(v[i] - '0');
	}
	*dst = (unsigned)n;
	return 0;
}

/* Parse one of two words into *dst (yes: true, no: false); returns 1 (a warning) for anything else. */
static unsigned set_choice(bool *dst, const char *v, size_t vlen, const char *key, const char *yes,
			   const char *no)
{
	if (word_is(v, vlen, yes))
		*dst = true;
	else if (word_is(v, vlen, no))
		*dst = false;
	else {
		printk("cmdline: warning: %s=%.*s: expected %s or %s; ignored\n", key, (int)vlen, v,
		       no, yes);
		return 1;
	}
	return 0;
}

/*
 * Parse one of count words into *dst (its index in names); returns 1 (a
 * warning) for anything else. thp=always|madvise|never (an enum thp_mode),
 * fbcon=on|off|hold (an enum fbcon_mode).
 */
static unsigned set_enum(unsigned *dst, const char *v, size_t vlen, const char *key,
			 const char *const *names, unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		if (word_is(v, vlen, names[i])) {
			*dst = i;
			return 0;
		}
	printk("cmdline: warning: %s=%.*s: expected one of", key, (int)vlen, v);
	for (unsigned i = 0; i < count; i++)
		printk(" %s", names[i]);
	printk("; keeping %s\n", names[*dst]);
	return 1;
}

static const char *const fbcon_mode_names[] = { "on", "off", "hold" };

/* The on|off options: key=on|off sets the field at offset (the field of that name). */
#define BOOL_OPTION(field) { .key = #field, .offset = offsetof(struct kernel_params, field) }
static const struct {
	const char *key;
	size_t offset;
} bool_options[] = {
	BOOL_OPTION(merge),
	BOOL_OPTION(zero_page),
	BOOL_OPTION(ktest_list),
	BOOL_OPTION(pku),
	BOOL_OPTION(acpi),
	BOOL_OPTION(x2apic),
	BOOL_OPTION(strace),
	BOOL_OPTION(profile_stacks),
	BOOL_OPTION(profile_dither),
	BOOL_OPTION(profile_entry),
	BOOL_OPTION(vmastat),
};

/* Apply one word [w, w+len); returns 1 if it produced a warning. */
static unsigned apply_word(struct kernel_params *p, const char *w, size_t len, bool first)
{
	const char *eq = NULL;
	const char *v;
	size_t klen, vlen;

	for (size_t i = 0; i < len; i++)
		if (w[i] == '=') {
			eq = w + i;
			break;
		}
	if (!eq) {
		if (first)
			return 0;       /* the kernel's path, as loaders pass it */
		printk("cmdline: warning: ignoring '%.*s' (expected key=value)\n", (int)len, w);
		return 1;
	}
	klen = eq - w;
	v = eq + 1;
	vlen = len - klen - 1;
	for (size_t i = 0; i < ARRAY_SIZE(bool_options); i++)
		if (word_is(w, klen, bool_options[i].key))
			return set_bool((bool *)((char *)p + bool_options[i].offset), v, vlen, bool_options[i].key);
	if (word_is(w, klen, "ktest")) {
		set_str(p->ktest, sizeof(p->ktest), v, vlen, "ktest");
	} else if (word_is(w, klen, "profile")) {
		set_str(p->profile, sizeof(p->profile), v, vlen, "profile");
	} else if (word_is(w, klen, "vma")) {
		set_str(p->vma, sizeof(p->vma), v, vlen, "vma");
	} else if (word_is(w, klen, "crash")) {
		set_str(p->crash, sizeof(p->crash), v, vlen, "crash");
	} else if (word_is(w, klen, "swap")) {
		set_str(p->swap, sizeof(p->swap), v, vlen, "swap");
	} else if (word_is(w, klen, "thp")) {
		return set_enum(&p->thp, v, vlen, "thp", thp_mode_names, THP_ALWAYS + 1);
	} else if (word_is(w, klen, "fbcon")) {
		return set_enum(&p->fbcon, v, vlen, "fbcon", fbcon_mode_names, ARRAY_SIZE(fbcon_mode_names));
	} else if (word_is(w, klen, "smp")) {
		return set_uint(&p->smp, v, vlen, "smp");
	} else if (word_is(w, klen, "fault_lock")) {
		return set_choice(&p->fault_lock_vma, v, vlen, "fault_lock", "vma", "mmap");
	} else if (word_is(w, klen, "madv_lock")) {
		return set_choice(&p->madv_lock_write, v, vlen, "madv_lock", "write", "read");
	} else if (word_is(w, klen, "reclaim")) {
		return set_choice(&p->reclaim_lru, v, vlen, "reclaim", "lru", "scan");
	} else if (word_is(w, klen, "khugepaged_sleep_ms")) {
		return set_uint(&p->khugepaged_sleep_ms, v, vlen, "khugepaged_sleep_ms");
	} else if (word_is(w, klen, "profile_hz")) {
		return set_uint(&p->profile_hz, v, vlen, "profile_hz");
	} else if (word_is(w, klen, "profile_seed")) {
		return set_uint(&p->profile_seed, v, vlen, "profile_seed");
	} else {
		printk("cmdline: warning: unknown option '%.*s' ignored\n", (int)len, w);
		return 1;
	}
	return 0;
}

const char *kernel_cmdline = "";

unsigned cmdline_parse(struct kernel_params *p, const char *line)
{
	bool first = true;

	memset(p, 0, sizeof(*p));
	set_str(p->ktest, sizeof(p->ktest), "default", 7, "ktest");
	p->merge = true;
	p->zero_page = true;
	p->fault_lock_vma = mm_fault_lock_vma;  /* its default: mm/vma_lock.c */
	p->thp = THP_ALWAYS;            /* Linux's Kconfig default, Debian's too */
	p->khugepaged_sleep_ms = 10000; /* Linux's scan_sleep_millisecs */
	p->pku = true;
	p->acpi = true;
	p->x2apic = true;
	p->profile_hz = 1000;           /* TIMER_HZ */
	p->profile_dither = true;
	p->reclaim_lru = true;          /* reclaim=lru: the LRU lists (mm/vmscan_lru.c) */
	while (line && *line) {
		const char *w;

		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line)
			break;
		w = line;
		while (*line && *line != ' ' && *line != '\t')
			line++;
		p->warnings += apply_word(p, w, line - w, first);
		first = false;
	}
	return p->warnings;
}
