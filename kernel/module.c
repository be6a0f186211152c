/* Boot modules (include/exec.h): what the loader gave, named by their program name. */
#include "exec.h"
#include "multiboot.h"
#include "arch.h"
#include "kstring.h"

static struct boot_module modules[BOOT_MAX_MODULES];
static unsigned nmodules;
static size_t ndropped;

/* The basename of the first word of s, into out (size max). */
static void first_word_basename(const char *s, char *out, size_t max)
{
	const char *w, *e, *b;
	size_t n;

	while (*s == ' ')
		s++;
	w = s;
	for (e = w; *e && *e != ' '; e++)
		;
	b = w;
	for (const char *p = w; p < e; p++)
		if (*p == '/')
			b = p + 1;
	n = MIN((size_t)(e - b), max - 1);
	memcpy(out, b, n);
	out[n] = 0;
}

void modules_init(const struct boot_info *bi)
{
	nmodules = 0;
	ndropped = bi->modules_dropped;
	for (size_t i = 0; i < bi->nmodules && i < BOOT_MAX_MODULES; i++) {
		struct boot_module *m = &modules[nmodules++];

		m->cmdline = bi->modstr[i];
		m->cmdline_cut = bi->modstr_cut[i];
		first_word_basename(m->cmdline, m->name, sizeof(m->name));
		m->data = phys_to_virt(bi->modules[i].start);
		m->size = bi->modules[i].end - bi->modules[i].start;
	}
}

size_t modules_dropped(void)
{
	return ndropped;
}

unsigned module_count(void)
{
	return nmodules;
}

const struct boot_module *module_get(unsigned i)
{
	return i < nmodules ? &modules[i] : NULL;
}

const struct boot_module *module_find(const char *name)
{
	for (unsigned i = 0; i < nmodules; i++)
		if (strcmp(modules[i].name, name) == 0)
			return &modules[i];
	return NULL;
}
