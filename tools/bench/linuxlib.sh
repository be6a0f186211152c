# tools/bench/linuxlib.sh: fetching what the benchmarks against Linux boot,
# shared by tools/bench/bench-linux and tools/bench/smpbench (sourced; each
# defines die MESSAGE). Nothing is installed: packages are unpacked under
# build/ with dpkg-deb -x.
#
# fetch_linux                sets vmlinuz: Debian's cloud kernel, in build/linux/
#                            (LINUX_PKG, LINUX_VMLINUZ as docs/bench-linux.md says)
# fetch_linux_new            sets vmlinuz_new: Debian 12's backported Linux 6.12
#                            (LINUX_NEW_PKG, LINUX_NEW_VMLINUZ), or returns 1
# fetch_icount_smp_qemu      sets smp_qemu and smp_qemu_args: a QEMU that can run
#                            Linux on several CPUs under -icount (see below)

linuxdir=build/linux

# meta_dep META: the kernel package the Debian metapackage META depends on
# ("" when apt does not know META).
meta_dep() {
	apt-cache depends "$1" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'
}

# unpack_linux PKG: leaves in $vmlinuz the vmlinuz of package PKG, unpacked
# into build/linux/PKG (apt-get download + dpkg-deb -x) unless it is there.
unpack_linux() {
	local pkg=$1
	vmlinuz=$(ls "$linuxdir/$pkg"/boot/vmlinuz-* 2>/dev/null | head -n1)
	[ -n "$vmlinuz" ] && return
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
		die "need apt-get and dpkg-deb to fetch $pkg; set LINUX_VMLINUZ=/path/to/vmlinuz instead"
	mkdir -p "$linuxdir/dl"
	echo "fetching $pkg (apt-get download)" >&2
	(cd "$linuxdir/dl" && apt-get download "$pkg" >/dev/null 2>&1) ||
		die "apt-get download $pkg failed (no network or no such package?); set LINUX_PKG or LINUX_VMLINUZ"
	dpkg-deb -x "$linuxdir/dl/${pkg}"_*.deb "$linuxdir/$pkg" || die "dpkg-deb -x failed"
	rm -f "$linuxdir/dl/${pkg}"_*.deb
	vmlinuz=$(ls "$linuxdir/$pkg"/boot/vmlinuz-* 2>/dev/null | head -n1)
	[ -n "$vmlinuz" ] || die "$pkg has no boot/vmlinuz-*"
}

# fetch_linux: leaves the path of a Linux vmlinuz in $vmlinuz.
fetch_linux() {
	if [ -n "${LINUX_VMLINUZ:-}" ]; then
		[ -f "$LINUX_VMLINUZ" ] || die "LINUX_VMLINUZ=$LINUX_VMLINUZ: no such file"
		vmlinuz=$LINUX_VMLINUZ
		return
	fi
	local pkg=${LINUX_PKG:-}
	if [ -z "$pkg" ]; then
		command -v apt-cache >/dev/null ||
			die "no apt-cache: cannot find a Debian Linux kernel package; set LINUX_VMLINUZ=/path/to/vmlinuz"
		pkg=$(meta_dep linux-image-cloud-amd64)
		[ -n "$pkg" ] ||
			die "apt knows no linux-image-cloud-amd64 (run apt-get update, or set LINUX_PKG or LINUX_VMLINUZ)"
		pkg=$pkg-unsigned
	fi
	unpack_linux "$pkg"
}

# fetch_linux_new: leaves in $vmlinuz_new a newer Linux than fetch_linux's,
# one with per-VMA locks (6.4 and later): LINUX_NEW_VMLINUZ, else the package
# LINUX_NEW_PKG, else what Debian's linux-image-6.12-cloud-amd64 (Debian 12's
# backported 6.12) depends on. Returns 1, with $vmlinuz_new empty, when
# there is none (apt does not know the metapackage, or LINUX_NEW_PKG=none).
fetch_linux_new() {
	local pkg=${LINUX_NEW_PKG:-} saved=${vmlinuz:-}
	vmlinuz_new=
	if [ -n "${LINUX_NEW_VMLINUZ:-}" ]; then
		[ -f "$LINUX_NEW_VMLINUZ" ] || die "LINUX_NEW_VMLINUZ=$LINUX_NEW_VMLINUZ: no such file"
		vmlinuz_new=$LINUX_NEW_VMLINUZ
		return 0
	fi
	[ "$pkg" = none ] && return 1
	if [ -z "$pkg" ]; then
		pkg=$(meta_dep linux-image-6.12-cloud-amd64)
		[ -n "$pkg" ] || return 1
		pkg=$pkg-unsigned
	fi
	unpack_linux "$pkg"
	vmlinuz_new=$vmlinuz
	vmlinuz=$saved
}

# Linux on several CPUs under -icount needs a newer QEMU than Debian 12's 7.2.
# With -icount, QEMU runs the vCPUs in turns on one thread, and 7.2 gives the
# vCPU whose turn it is every instruction left until the next timer event.
# Linux 6.1's boot CPU waits for each secondary CPU in a loop that calls
# schedule() and neither halts nor pauses, so it spends the whole allowance;
# the secondary's turn then comes with none left, and it never runs its next
# instruction: boot stops after "x86: Booting SMP configuration:" (seen in
# QEMU's monitor: CPU 1 sits on the instruction after a `pause` in cpu_init's
# wait for the boot CPU, whose go-ahead bit is already set). Newer QEMU
# shares the allowance among the vCPUs; 10.0.2 from bookworm-backports boots
# Linux 6.1 with -smp 4 -icount shift=0 (4 CPUs brought up). This kernel's
# own waits pause or halt, which ends a vCPU's turn, but a user program that
# runs without a system call that blocks starves the other vCPUs just the
# same: profile-suite's 2007 runs under memory pressure hung on 7.2 with a
# task queued on an idle CPU while another ran the pressure child's loop
# (a gdb attach, which stops and restarts every vCPU, let them go on), so
# they run on this QEMU too.
#
# fetch_icount_smp_qemu: sets smp_qemu (a qemu-system-x86_64) and
# smp_qemu_args (its -L data directory, when not the system's). Uses
# SMP_QEMU when set; else the system's QEMU when it is 10.0 or newer (the
# version checked); else QEMU from bookworm-backports, unpacked into
# build/qemu-bpo/ through a private apt state (the system's apt sources and
# packages are not touched).
fetch_icount_smp_qemu() {
	local ver dir=build/qemu-bpo st
	smp_qemu_args=
	if [ -n "${SMP_QEMU:-}" ]; then
		smp_qemu=$SMP_QEMU
		return
	fi
	ver=$(qemu-system-x86_64 --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p')
	if [ -n "$ver" ] && [ "$ver" -ge 10 ]; then
		smp_qemu=qemu-system-x86_64
		return
	fi
	smp_qemu=$dir/root/usr/bin/qemu-system-x86_64
	smp_qemu_args="-L $dir/root/usr/share/qemu"
	[ -x "$smp_qemu" ] && return
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
		die "QEMU $ver cannot run Linux on several CPUs under -icount; need apt-get to fetch a newer one (or set SMP_QEMU)"
	st=$dir/apt
	mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$dir/dl"
	echo "deb http://deb.debian.org/debian bookworm-backports main" >"$st/sources.list"
	set -- -o Dir::Etc::sourcelist="$PWD/$st/sources.list" -o Dir::Etc::sourceparts=/nonexistent \
		-o Dir::State::lists="$PWD/$st/lists" -o Dir::Cache="$PWD/$st/cache" -o APT::Sandbox::User=root
	echo "fetching QEMU from bookworm-backports (QEMU $ver starves secondary CPUs under -icount)" >&2
	apt-get -q "$@" update >/dev/null 2>&1 && (cd "$dir/dl" &&
		apt-get -q "$@" download qemu-system-x86 qemu-system-common qemu-system-data >/dev/null 2>&1) ||
		die "could not fetch QEMU from bookworm-backports (no network?); set SMP_QEMU=/path/to/qemu-system-x86_64 (10.0 or newer)"
	for d in "$dir"/dl/*.deb; do dpkg-deb -x "$d" "$dir/root" || die "dpkg-deb -x $d failed"; done
	rm -f "$dir"/dl/*.deb
	"$smp_qemu" --version >/dev/null 2>&1 || die "$smp_qemu does not run on this machine; set SMP_QEMU"
}
