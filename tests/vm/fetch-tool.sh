#!/bin/bash
# fetch-tool.sh: make sure a Debian release's build of a tracing tool is in
# the lab's cache, runnable on this host (and in a VM guest) with its own
# loader and libraries, and print the path of the command that runs it.
#
#   tests/vm/fetch-tool.sh [--offline] TOOL SUITE
#
# TOOL is a Debian package with a program of the same name in /usr/bin
# (trace-cmd, uftrace); SUITE a Debian release that has it (bullseye,
# bookworm, trixie, sid). The package and the libraries it depends on (the
# lib* (and zlib1g) packages of its dependency closure, libc6 and the loader included)
# are downloaded with apt-get download from a private apt configuration
# (its own sources list and package lists under the cache, refreshed once a
# day; the system's apt sources are not touched), unpacked into
# $CACHE/tools/TOOL_VERSION/root, and a wrapper is written beside it:
#
#   $CACHE/tools/TOOL_VERSION/TOOL ARGS...
#
# runs root's /usr/bin/TOOL through root's own ld-linux-x86-64.so.2 with
# root's library directories, so that sid's trace-cmd runs on bookworm. A
# libtraceevent looks for its plugins in a directory compiled into it
# (/usr/lib/x86_64-linux-gnu/traceevent/plugins), where this host has its
# own release's: as root, where unshare(1) can, the wrapper runs the tool
# in a mount namespace of its own with the tool's plugin directory bound
# over that one; otherwise it points TRACEEVENT_PLUGIN_DIR at the tool's
# plugins, which the system's then override (the wrapper says so on stderr
# once a run when DARC_TOOL_VERBOSE is set).
#
# The cache is the VM lab's ($DARC_VM_CACHE, else $XDG_CACHE_HOME/darc-vm,
# else ~/.cache/darc-vm); a tool takes 5-60 MB. With --offline (or
# DARC_VM_OFFLINE=1), or when the download fails, the newest cached build of
# TOOL from SUITE is used. The wrapper works at the same absolute path in a
# VM guest whose initramfs holds the tool's directory (vm.sh --add DIR).
#
# Exit status: 0 (the wrapper's path on stdout), 77 when the tool cannot be
# had (no network, nothing cached), 2 for a bad argument.
set -uo pipefail

PROG=fetch-tool.sh
msg() { printf '%s: %s\n' "$PROG" "$*" >&2; }

OFFLINE=${DARC_VM_OFFLINE:-0}
[ "${1:-}" = --offline ] && { OFFLINE=1; shift; }
TOOL=${1:-} SUITE=${2:-}
if [ $# -ne 2 ] || [[ ! $TOOL =~ ^[a-z0-9][a-z0-9.+-]*$ ]] ||
	[[ ! $SUITE =~ ^(bullseye|bookworm|trixie|forky|sid)$ ]]; then
	echo "usage: $PROG [--offline] TOOL bullseye|bookworm|trixie|forky|sid" >&2
	exit 2
fi

CACHE=${DARC_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/darc-vm}
TOOLS=$CACHE/tools
APTDIR=$CACHE/apt-$SUITE
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${DARC_VM_MIRROR:-http://deb.debian.org}

APT_OPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
	-o Dir::State::status=/dev/null -o APT::Sandbox::User=root
	-o Acquire::Languages=none -q)

# The suite's own package lists (one suite a configuration, so that its
# candidates are its own), updated once a day.
apt_setup() {
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" || return 1
	echo "deb [signed-by=$KEYRING] $MIRROR/debian $SUITE main" >"$APTDIR/sources.list"
	if [ -n "$(find "$APTDIR/updated" -mmin -1440 2>/dev/null)" ] &&
		cmp -s "$APTDIR/updated" "$APTDIR/sources.list"; then
		return 0
	fi
	if apt-get "${APT_OPTS[@]}" update >"$APTDIR/update.log" 2>&1 &&
		! grep -q '^\(W\|E\): ' "$APTDIR/update.log"; then
		cp "$APTDIR/sources.list" "$APTDIR/updated"
		return 0
	fi
	msg "apt-get update of $SUITE's package lists failed:"
	sed 's/^/    /' "$APTDIR/update.log" | tail -n 5 >&2
	return 1
}

pkg_version() {
	apt-cache "${APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		awk '$1 == "Version:" { print $2; exit }'
}

# The packages to download for $TOOL: itself, the plugins of a libtraceevent,
# and the lib* (and zlib1g) packages of its dependency closure (not perl, python's
# modules, tzdata and the like, which a program does not load).
closure() {
	{
		echo "$TOOL"
		apt-cache "${APT_OPTS[@]}" depends --recurse --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances "$TOOL" 2>/dev/null |
			awk '/^[a-z0-9]/ && $1 ~ /^(lib|zlib)/ { print $1 }'
		apt-cache "${APT_OPTS[@]}" show --no-all-versions libtraceevent1-plugin >/dev/null 2>&1 &&
			echo libtraceevent1-plugin
	} | sort -u
}

# The newest cached build of $TOOL from $SUITE.
newest_cached() {
	local d
	for d in "$TOOLS"/"${TOOL}"_*/; do
		d=${d%/}
		[ -f "$d/ready" ] && [ "$(cat "$d/suite")" = "$SUITE" ] || continue
		printf '%s %s\n' "$(cat "$d/version")" "$d"
	done 2>/dev/null | sort -V | tail -n 1 | cut -d' ' -f2-
}

write_wrapper() {
	local w=$1
	cat >"$w" <<'EOF'
#!/bin/sh
# Runs the Debian build of a tool unpacked in ./root with root's own loader and
# libraries (tests/vm/fetch-tool.sh wrote this).
d=$(cd "$(dirname "$0")" && pwd) || exit 1
r=$d/root
tool=$(basename "$0")
ld=
for f in "$r/usr/lib64/ld-linux-x86-64.so.2" "$r/lib64/ld-linux-x86-64.so.2" \
	"$r/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" "$r/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"; do
	[ -e "$f" ] && { ld=$f; break; }
done
[ -n "$ld" ] || { echo "$0: no loader in $r" >&2; exit 127; }
libs=$r/usr/lib/x86_64-linux-gnu:$r/lib/x86_64-linux-gnu:$r/usr/lib:$r/lib
plugins=$r/usr/lib/x86_64-linux-gnu/traceevent/plugins
sys=/usr/lib/x86_64-linux-gnu/traceevent/plugins
if [ -d "$plugins" ] && [ -d "$sys" ] && [ "$(id -u)" = 0 ] && [ -z "${DARC_TOOL_NS:-}" ] &&
	command -v unshare >/dev/null 2>&1; then
	# the tool's libtraceevent would load this system's plugins: bind its own there
	DARC_TOOL_NS=1 exec unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' \
		sh "$plugins" "$sys" "$0" "$@"
fi
if [ -d "$plugins" ]; then
	export TRACEEVENT_PLUGIN_DIR=$plugins
	[ -n "${DARC_TOOL_NS:-}" ] || [ -z "${DARC_TOOL_VERBOSE:-}" ] ||
		echo "$0: not root or no unshare: $sys's plugins override the tool's" >&2
fi
exec "$ld" --library-path "$libs" "$r/usr/bin/$tool" "$@"
EOF
	chmod +x "$w"
}

fetch() {
	local dir=$TOOLS/${TOOL}_$V deb
	mapfile -t PKGS < <(closure)
	mkdir -p "$TMP/dl" "$TMP/t/root" || return 1
	if ! (cd "$TMP/dl" && apt-get "${APT_OPTS[@]}" download "${PKGS[@]}") >"$TMP/apt.log" 2>&1; then
		msg "apt-get download ${PKGS[*]} failed:"
		sed 's/^/    /' "$TMP/apt.log" | tail -n 5 >&2
		return 1
	fi
	for deb in "$TMP"/dl/*.deb; do
		dpkg-deb -x "$deb" "$TMP/t/root" || return 1
	done
	[ -x "$TMP/t/root/usr/bin/$TOOL" ] || { msg "no /usr/bin/$TOOL in package $TOOL"; return 1; }
	# drop what no run needs (documentation, locales)
	rm -rf "$TMP/t/root/usr/share/doc" "$TMP/t/root/usr/share/man" "$TMP/t/root/usr/share/locale"
	write_wrapper "$TMP/t/$TOOL"
	echo "$V" >"$TMP/t/version"
	echo "$SUITE" >"$TMP/t/suite"
	printf '%s\n' "${PKGS[@]}" >"$TMP/t/packages"
	# a run that prints its version (trace-cmd's exits 255, with its usage)
	local said
	said=$("$TMP/t/$TOOL" --version 2>&1)
	if ! grep -qi "version" <<<"$said"; then
		msg "$TOOL $V from $SUITE does not run here: $(grep -m1 . <<<"$said")"
		return 1
	fi
	touch "$TMP/t/ready"
	mkdir -p "$TOOLS" || return 1
	mv -T "$TMP/t" "$dir" 2>/dev/null || [ -f "$dir/ready" ] ||
		{ msg "cannot create $dir"; return 1; }
	msg "cached $TOOL $V from $SUITE (${#PKGS[@]} packages)"
	echo "$dir/$TOOL"
}

for t in apt-get apt-cache dpkg-deb; do
	command -v "$t" >/dev/null 2>&1 || { msg "$t not found"; OFFLINE=1; }
done
OUT=
if [ "$OFFLINE" != 1 ]; then
	mkdir -p "$CACHE" || exit 1
	TMP=$(mktemp -d "$CACHE/.fetch-tool.XXXXXX") || exit 1
	trap 'rm -rf "$TMP"' EXIT
	if apt_setup; then
		V=$(pkg_version "$TOOL")
		if [ -z "$V" ]; then
			msg "no package $TOOL in $SUITE"
		elif [ -f "$TOOLS/${TOOL}_$V/ready" ]; then
			OUT=$TOOLS/${TOOL}_$V/$TOOL
		else
			OUT=$(fetch) || OUT=
		fi
	fi
fi
if [ -z "$OUT" ]; then
	d=$(newest_cached)
	[ -n "$d" ] || { msg "no $TOOL from $SUITE: none could be downloaded, none is cached in $TOOLS"; exit 77; }
	[ "$OFFLINE" = 1 ] || msg "using the cached $d"
	OUT=$d/$TOOL
fi
echo "$OUT"
