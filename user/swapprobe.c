#include "ulib.h"
#include "ustdio.h"
static char buf[16384];
static long val(const char *path, const char *name) {
	int fd = open(path, O_RDONLY); long n = 0, r; size_t len = strlen(name);
	while ((r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0) n += r;
	close(fd); buf[n] = 0;
	for (char *l = buf; *l; ) { if (!strncmp(l, name, len) && (l[len]==' '||l[len]==':')) { char *v = l+len+1; while (*v==' ') v++; return (long)strtoul(v, NULL, 10);} while (*l && *l != '\n') l++; if (*l) l++; }
	return -1;
}
static long now(void) { long ts[2]; usys2(228, 1, (long)ts); return ts[0]*1000 + ts[1]/1000000; }
int main(void) {
	size_t n = (size_t)val("/proc/meminfo", "MemTotal") * 1024 / 4096 * 2;
	char *p = mmap(NULL, n * 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
	long t0 = now();
	for (size_t i = 0; i < n; i++) {
		p[i*4096] = 1;
		if (i % 16384 == 0)
			printf("%zu/%zu t=%ld ms free=%ld out=%ld steal_d=%ld steal_k=%ld scan_d=%ld scan_k=%ld stall=%ld\n", i, n, now()-t0, val("/proc/vmstat","nr_free_pages"), val("/proc/vmstat","pswpout"), val("/proc/vmstat","pgsteal_direct"), val("/proc/vmstat","pgsteal_kswapd"), val("/proc/vmstat","pgscan_direct"), val("/proc/vmstat","pgscan_kswapd"), val("/proc/vmstat","allocstall_normal"));
	}
	printf("done t=%ld\n", now()-t0);
	return 0;
}
