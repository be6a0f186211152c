/* The CMOS real-time clock, read once at boot for CLOCK_REALTIME's epoch offset. */
#include "x86.h"

#define CMOS_ADDR 0x70
#define CMOS_DATA 0x71

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_ADDR, reg);
	return inb(CMOS_DATA);
}

static unsigned bcd(uint8_t v, bool binary)
{
	return binary ? v : (v & 0x0f) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static uint64_t days_from_civil(int y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (uint64_t)(era * 146097 + (int)doe - 719468);
}

/* rtc_read_epoch: seconds since 1970 from the CMOS clock (UTC assumed), or 0 if it looks absent. */
uint64_t rtc_read_epoch(void)
{
	uint8_t s, mi, h, d, mo, y, b;
	bool binary;

	for (unsigned spins = 0; (cmos_read(0x0a) & 0x80) && spins < 100000; spins++)
		;                       /* update in progress */
	s = cmos_read(0x00); mi = cmos_read(0x02); h = cmos_read(0x04);
	d = cmos_read(0x07); mo = cmos_read(0x08); y = cmos_read(0x09);
	b = cmos_read(0x0b);
	binary = b & 0x04;
	if (mo == 0 || mo == 0xff)
		return 0;
	unsigned hour = bcd(h & 0x7f, binary);
	if (!(b & 0x02) && (h & 0x80))          /* 12-hour clock, PM */
		hour = (hour % 12) + 12;
	return days_from_civil(2000 + bcd(y, binary), bcd(mo, binary), bcd(d, binary)) * 86400 +
	       hour * 3600 + bcd(mi, binary) * 60 + bcd(s, binary);
}
