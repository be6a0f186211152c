// A dynamically linked C program (gcc, glibc's libc.so.6 through
// ld-linux-x86-64.so.2): arguments, the environment, malloc, stdio, and the
// file mappings the dynamic linker made, read from /proc/self/maps (each
// library's mappings: permissions, file offset and name, no addresses).
// tools/test-programs runs it on Linux and on the kernel and compares.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

int main(int argc, char **argv)
{
	char line[512], *copy;
	FILE *maps;

	printf("argc %d\n", argc);
	for (int i = 1; i < argc; i++)
		printf("argv[%d] = %s\n", i, argv[i]);
	printf("HOME=%s\n", getenv("HOME"));
	copy = strdup("from malloc");
	printf("%s, AT_BASE %s, AT_ENTRY %s\n", copy, getauxval(AT_BASE) ? "set" : "0",
	       getauxval(AT_ENTRY) ? "set" : "0");
	free(copy);
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return 2;
	while (fgets(line, sizeof(line), maps)) {
		char perms[8], path[256] = "";
		unsigned long off;

		if (sscanf(line, "%*x-%*x %7s %lx %*s %*s %255s", perms, &off, path) < 2)
			continue;
		if (strstr(path, ".so"))
			printf("%s %08lx %s\n", perms, off, strrchr(path, '/') + 1);
	}
	fclose(maps);
	return argc > 3 ? 3 : 0;
}
