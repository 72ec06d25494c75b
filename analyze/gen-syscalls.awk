# Turn a kernel unistd header ("#define __NR_read 0", and asm-generic's
# "#define __NR3264_lseek 62", the 64-bit name) into a C table of names:
#	awk -v name=TABLE -f gen-syscalls.awk HEADER [NEWER]
# makes syscall_names_TABLE[]. A number named in both branches of an
# #if/#else keeps the #else branch's name (the if branch is an arch's
# exception, e.g. sync_file_range2); otherwise the first name wins.
# NEWER (syscalls-newer.tbl: "ABI NUMBER NAME" lines) names the numbers the
# header does not, for ABI TABLE or "all". __NR_syscalls (asm-generic's
# count of them) is no call.
BEGIN { print "/* generated from a unistd header by gen-syscalls.awk */" }
{ hdr = FILENAME == ARGV[1] }
hdr && /^#if/ { depth++; branch[depth] = 1; next }
hdr && /^#else/ { branch[depth] = 2; next }
hdr && /^#endif/ { depth--; next }
hdr && $1 == "#define" && $2 ~ /^__NR(3264)?_/ && $3 ~ /^[0-9]+$/ && $2 != "__NR_syscalls" {
	n = $2
	sub(/^__NR(3264)?_/, "", n)
	add($3, n, (depth > 0 && branch[depth] == 1) ? 1 : 2)
}
!hdr && NF == 3 && ($1 == name || $1 == "all") && $2 ~ /^[0-9]+$/ {
	add($2, $3, 0)
}
function add(nr, n, prio) {
	if (!(nr in nm) || prio > pr[nr]) {
		nm[nr] = n
		pr[nr] = prio
	}
	if (nr + 0 > max)
		max = nr + 0
}
END {
	print "static const char *const syscall_names_" name "[] = {"
	for (i = 0; i <= max; i++)
		if (i in nm)
			printf "\t[%d] = \"%s\",\n", i, nm[i]
	print "};"
}
