#!/bin/bash
# fetch-kernel.sh: make sure one of Debian's stock amd64 kernels is in the VM
# lab's cache, and print its directory.
#
#   tests/vm/fetch-kernel.sh [--offline] KERNEL
#
# KERNEL is a kernel series, MAJOR.MINOR (5.10: bullseye's; 6.1: bookworm's;
# 6.12: trixie's; 7.3: trixie-backports'; any other series a suite has),
# MAJOR.MINOR-rt for the PREEMPT_RT flavour of a series (5.10-rt, 6.1-rt:
# Debian's linux-image-*-rt-amd64), or the name of the Debian package that
# holds the kernel image (linux-image-... or linux-binary-...).  The newest package of the series is found by name in a
# private apt configuration (its own sources list and package lists under
# the cache, refreshed once a day; the system's apt sources are not
# touched), downloaded with apt-get download, and only what the lab needs is
# kept: vmlinuz, config, and the modules for virtio-blk and ext4 (those not
# built in) with everything their .modinfo "depends=" and "softdep=pre:"
# lists pull in, decompressed, and their load order in modules.load.
#
# The cache ($DARC_VM_CACHE, else $XDG_CACHE_HOME/darc-vm, else
# ~/.cache/darc-vm) holds kernels/PACKAGE_VERSION/ per kernel (11-18 MB)
# and apt/ (the package lists, about 30 MB).  When the download fails, or
# with --offline (or DARC_VM_OFFLINE=1), the newest cached kernel of the
# series is used.  DARC_VM_MIRROR (default http://deb.debian.org) is the
# archive to download from.
#
# Exit status: 0 (directory on stdout), 77 when no kernel of that series can
# be had (no network, nothing cached), 2 for a bad argument.
set -uo pipefail

PROG=fetch-kernel.sh
msg() { printf '%s: %s\n' "$PROG" "$*" >&2; }

OFFLINE=${DARC_VM_OFFLINE:-0}
[ "${1:-}" = --offline ] && { OFFLINE=1; shift; }
KERNEL=${1:-}
case $KERNEL in
[0-9]*.[0-9]*-rt) case ${KERNEL%-rt} in *[!0-9.]*) KERNEL= ;; esac ;;
[0-9]*.[0-9]*) case $KERNEL in *[!0-9.]*) KERNEL= ;; esac ;;
linux-image-*-amd64 | linux-binary-*-amd64) ;;
*) KERNEL= ;;
esac
if [ -z "$KERNEL" ] || [ $# -ne 1 ]; then
	echo "usage: $PROG [--offline] MAJOR.MINOR[-rt]|linux-image-...|linux-binary-..." >&2
	exit 2
fi

CACHE=${DARC_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/darc-vm}
KERNELS=$CACHE/kernels
APTDIR=$CACHE/apt
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${DARC_VM_MIRROR:-http://deb.debian.org}

# What the guest needs as modules (when not built in): the disks, their bus,
# and the scratch disk's file system.
ROOTS=(virtio_pci virtio_blk ext4)

# Known good packages, for when the lists cannot be searched (see README.md).
fallback_pkg() {
	case $1 in
	5.10) echo linux-image-5.10.0-46-amd64 ;;
	5.10-rt) echo linux-image-5.10.0-43-rt-amd64 ;;
	6.1) echo linux-image-6.1.0-56-amd64 ;;
	6.1-rt) echo linux-image-6.1.0-56-rt-amd64 ;;
	6.12) echo linux-image-6.12.117+deb13-amd64 ;;
	7.3) echo linux-image-7.3.4+deb13-amd64 ;;
	esac
}

# --- the private apt configuration ------------------------------------------

APT_OPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o Dir::State::status=/dev/null -o APT::Sandbox::User=root
	-o Acquire::Languages=none -q)

apt_setup() {
	local s line
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" || return 1
	# bullseye for 5.10 (an LTS release: its kernels are in bullseye-security)
	for s in bullseye bullseye-updates bookworm bookworm-updates trixie trixie-updates \
		trixie-backports; do
		echo "deb [signed-by=$KEYRING] $MIRROR/debian $s main"
	done >"$APTDIR/sources.list.new"
	for s in bullseye-security bookworm-security trixie-security; do
		echo "deb [signed-by=$KEYRING] $MIRROR/debian-security $s main"
	done >>"$APTDIR/sources.list.new"
	mv "$APTDIR/sources.list.new" "$APTDIR/sources.list"
	# fresh enough: updated in the last day, with these sources
	line=$(find "$APTDIR/updated" -mmin -1440 2>/dev/null)
	if [ -n "$line" ] && cmp -s "$APTDIR/updated" "$APTDIR/sources.list"; then
		return 0
	fi
	if apt-get "${APT_OPTS[@]}" update >"$APTDIR/update.log" 2>&1 &&
		! grep -q '^\(W\|E\): ' "$APTDIR/update.log"; then
		cp "$APTDIR/sources.list" "$APTDIR/updated"
		return 0
	fi
	msg "apt-get update of the lab's own package lists failed:"
	sed 's/^/    /' "$APTDIR/update.log" | tail -n 5 >&2
	return 1
}

# The linux-image packages of series $1, newest first (a meta package in
# trixie-backports since 6.19: packages_of() follows it), or nothing.
# SERIES-rt: the PREEMPT_RT flavour (linux-image-6.1.0-NN-rt-amd64); a plain
# series never takes it.
series_pkgs() {
	local series=${1%-rt} flavour=
	local re=${series//./\\.}
	[ "$series" = "$1" ] || flavour=-rt
	apt-cache "${APT_OPTS[@]}" pkgnames linux-image- 2>/dev/null |
		grep -E "^linux-image-$re\.[0-9]+(-[0-9]+)?(\+[a-z0-9]+)?$flavour-amd64$" |
		sort -V -r
}

# The packages to download for kernel package $1: the image itself, or, for
# a linux-image meta package, what it depends on (binary, modules, base).
packages_of() {
	local deps
	case $1 in
	linux-binary-*)
		printf '%s\n' "$1" "${1/binary/modules}" "${1/binary/base}"
		return ;;
	esac
	deps=$(apt-cache "${APT_OPTS[@]}" depends "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-(binary|modules|base)-/ { print $2 }' | sort -u)
	echo "${deps:-$1}"
}

pkg_version() {
	apt-cache "${APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		awk '$1 == "Version:" { print $2; exit }'
}

# --- modules ---------------------------------------------------------------

# Module file $1 (.ko, compressed or not) to stdout, as a .ko.
unpack() {
	case $1 in
	*.ko.xz) xz -dc "$1" ;;
	*.ko.zst) zstd -qdc "$1" ;;
	*.ko.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# FIELD of module file $1, one value a line.
modinfo() {
	local f=$1 field=$2
	unpack "$f" >"$TMP/modinfo.ko" || return 1
	objcopy -O binary --only-section=.modinfo "$TMP/modinfo.ko" /dev/stdout |
		tr '\0' '\n' | sed -n "s/^$field=//p"
}

# Module file of module $1 (- and _ are the same in module names), or nothing.
module_file() {
	local n=${1//-/_}
	awk -v n="$n" '{ b = $0; sub(/.*\//, "", b); sub(/\.ko(\.[a-z]+)?$/, "", b);
		gsub(/-/, "_", b); if (b == n) { print; exit } }' "$TMP/all-modules"
}

# A module that says it is $1 (alias=), for a soft dependency such as
# "crypto-crc32c". Only kernel/crypto and kernel/lib are searched: the
# generic implementations, which need no particular CPU.
alias_file() {
	local f
	while read -r f; do
		case $f in */kernel/crypto/* | */kernel/lib/*) ;; *) continue ;; esac
		if modinfo "$f" alias | grep -qxF "$1"; then
			echo "$f"
			return
		fi
	done <"$TMP/all-modules"
}

# Add module $1 (and, first, what it needs) to $TMP/order.
LOADING=" "
add_module() {
	local name=${1//-/_} f dep
	grep -qxF "$name" "$TMP/order" && return 0
	case $LOADING in *" $name "*) msg "module dependency loop at $name"; return 1 ;; esac
	f=$(module_file "$name")
	[ -n "$f" ] || { msg "module $name is not in the package"; return 1; }
	LOADING="$LOADING$name "
	for dep in $(modinfo "$f" depends | tr ',' ' '); do
		add_module "$dep" || return 1
	done
	# "softdep=pre: a b post: c": the pre ones, where the package has them
	for dep in $(modinfo "$f" softdep | sed -n '/^pre:/{s/^pre: *//; s/ *post:.*//; p}'); do
		local d
		d=$(module_file "$dep")
		[ -n "$d" ] || d=$(alias_file "$dep")
		[ -z "$d" ] || add_module "$(basename "${d%%.ko*}")" || return 1
	done
	echo "$name" >>"$TMP/order"
	printf '%s\n' "$f" >>"$TMP/order-files"
}

# The modules of the root list that are modules here (a built-in one is in
# modules.builtin), in load order, into $1/modules and $1/modules.load.
pick_modules() {
	local k=$1 x=$2 r f n
	find "$x" -name '*.ko*' -path '*/kernel/*' | sort >"$TMP/all-modules"
	: >"$TMP/order"
	: >"$TMP/order-files"
	for r in "${ROOTS[@]}"; do
		if [ -z "$(module_file "$r")" ] &&
			grep -q "/$r\.ko$" "$x"/{,usr/}lib/modules/*/modules.builtin 2>/dev/null; then
			continue
		fi
		add_module "$r" || return 1
	done
	mkdir -p "$k/modules"
	while IFS=$'\t' read -r n f; do
		unpack "$f" >"$k/modules/$n.ko" || return 1
	done < <(paste "$TMP/order" "$TMP/order-files")
	cp "$TMP/order" "$k/modules.load"
}

# --- the cache ---------------------------------------------------------------

# The newest cached kernel of series $1 (or package $1).
newest_cached() {
	local d
	[ -d "$KERNELS" ] || return 0
	for d in "$KERNELS"/*/; do
		d=${d%/}
		[ -f "$d/ready" ] || continue
		case $1 in
		linux-*) [[ ${d##*/} == "$1"_* ]] || continue ;;
		*-rt) [[ $(cat "$d/release") == "${1%-rt}".*-rt-amd64 ]] || continue ;;
		*) [[ $(cat "$d/release") == "$1".* && $(cat "$d/release") != *-rt-* ]] ||
			continue ;;
		esac
		printf '%s %s\n' "$(cat "$d/release")" "$d"
	done | sort -V | tail -n 1 | cut -d' ' -f2-
}

# Download packages $2... of kernel package $1 (version $V) and extract what
# the lab keeps into $KERNELS/$1_$V.
fetch() {
	local main=$1 deb f rel dir=$KERNELS/${1}_$V
	shift
	mkdir -p "$TMP/dl" "$TMP/x" "$TMP/k" || return 1
	if ! (cd "$TMP/dl" && apt-get "${APT_OPTS[@]}" download "$@") >"$TMP/apt.log" 2>&1; then
		msg "apt-get download $* failed:"
		sed 's/^/    /' "$TMP/apt.log" | tail -n 5 >&2
		return 1
	fi
	for deb in "$TMP"/dl/*.deb; do
		# bookworm's packages have /boot and /lib/modules, trixie's /usr/lib/modules
		dpkg-deb --fsys-tarfile "$deb" | tar x -C "$TMP/x" --wildcards \
			'./boot/vmlinuz-*' './boot/config-*' './*lib/modules/*/vmlinuz' \
			'./*lib/modules/*/config' './*lib/modules/*/modules.builtin' \
			'./*lib/modules/*/kernel/*' 2>/dev/null
	done
	f=$(find "$TMP/x" \( -path '*/boot/vmlinuz-*' -o -path '*/modules/*/vmlinuz' \) | head -n 1)
	[ -n "$f" ] || { msg "no vmlinuz in $*"; return 1; }
	cp "$f" "$TMP/k/vmlinuz" || return 1
	f=$(find "$TMP/x" \( -path '*/boot/config-*' -o -path '*/modules/*/config' \) | head -n 1)
	[ -z "$f" ] || cp "$f" "$TMP/k/config"
	rel=$(find "$TMP/x" -type d -path '*/lib/modules/*/kernel' -prune | head -n 1)
	[ -n "$rel" ] || { msg "no modules in $*"; return 1; }
	basename "$(dirname "$rel")" >"$TMP/k/release"
	pick_modules "$TMP/k" "$TMP/x" || return 1
	printf '%s %s\n' "$main" "$V" >"$TMP/k/package"
	printf '%s\n' "$@" >"$TMP/k/packages"
	touch "$TMP/k/ready"
	mkdir -p "$KERNELS" || return 1
	# another run may have won the race; either copy is fine
	mv -T "$TMP/k" "$dir" 2>/dev/null || [ -f "$dir/ready" ] ||
		{ msg "cannot create $dir"; return 1; }
	msg "cached $main $V ($(tr '\n' ' ' <"$dir/modules.load"| sed 's/ $//'))"
	echo "$dir"
}

# --- main --------------------------------------------------------------------

for t in apt-get apt-cache dpkg-deb objcopy xz; do
	command -v "$t" >/dev/null 2>&1 || { msg "$t not found"; OFFLINE=1; }
done
DIR=
if [ "$OFFLINE" != 1 ]; then
	mkdir -p "$CACHE" || exit 1
	TMP=$(mktemp -d "$CACHE/.fetch.XXXXXX") || exit 1
	trap 'rm -rf "$TMP"' EXIT
	apt_setup
	# searching the lists takes seconds: the answer is kept until they change
	RESOLVED=$APTDIR/resolved.$KERNEL
	PKG='' V=''
	[ "$RESOLVED" -nt "$APTDIR/updated" ] && read -r PKG V <"$RESOLVED"
	if [ -n "$V" ] && [ -f "$KERNELS/${PKG}_$V/ready" ]; then
		DIR=$KERNELS/${PKG}_$V
	else
		case $KERNEL in
		linux-*) CANDIDATES=("$KERNEL") ;;
		*) mapfile -t CANDIDATES < <(series_pkgs "$KERNEL")
		   [ ${#CANDIDATES[@]} -gt 0 ] || mapfile -t CANDIDATES < <(fallback_pkg "$KERNEL") ;;
		esac
		[ ${#CANDIDATES[@]} -gt 0 ] ||
			msg "no Debian package of kernel $KERNEL in the lab's package lists"
		# the archive may lack the newest builds the lists name (bullseye-security's
		# 5.10 RT images were missing, 404): the next older ones, a few
		for PKG in "${CANDIDATES[@]:0:6}"; do
			V=$(pkg_version "$PKG")
			[ -n "$V" ] || continue
			if [ -f "$KERNELS/${PKG}_$V/ready" ]; then
				DIR=$KERNELS/${PKG}_$V
			else
				mapfile -t PKGS < <(packages_of "$PKG")
				DIR=$(fetch "$PKG" "${PKGS[@]}") || DIR=
			fi
			[ -z "$DIR" ] || { echo "$PKG $V" >"$RESOLVED"; break; }
			rm -rf "$TMP/dl" "$TMP/x" "$TMP/k"
		done
	fi
fi
if [ -z "$DIR" ]; then
	DIR=$(newest_cached "$KERNEL")
	[ -n "$DIR" ] || { msg "no kernel $KERNEL: none could be downloaded, none is cached in $KERNELS"; exit 77; }
	[ "$OFFLINE" = 1 ] || msg "using the cached kernel $DIR"
fi
echo "$DIR"
