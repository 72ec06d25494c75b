# Turn a kernel unistd header ("#define __NR_read 0", and asm-generic's
# "#define __NR3264_lseek 62", the 64-bit name) into a C table of names:
#	awk -v name=TABLE -f gen-syscalls.awk HEADER
# makes syscall_names_TABLE[]. A number named in both branches of an
# #if/#else keeps the #else branch's name (the if branch is an arch's
# exception, e.g. sync_file_range2); otherwise the first name wins.
BEGIN { print "/* generated from a unistd header by gen-syscalls.awk */" }
/^#if/ { depth++; branch[depth] = 1; next }
/^#else/ { branch[depth] = 2; next }
/^#endif/ { depth--; next }
$1 == "#define" && $2 ~ /^__NR(3264)?_/ && $3 ~ /^[0-9]+$/ {
	n = $2
	sub(/^__NR(3264)?_/, "", n)
	prio = (depth > 0 && branch[depth] == 1) ? 1 : 2
	if (!($3 in nm) || prio > pr[$3]) {
		nm[$3] = n
		pr[$3] = prio
	}
	if ($3 + 0 > max)
		max = $3 + 0
}
END {
	print "static const char *const syscall_names_" name "[] = {"
	for (i = 0; i <= max; i++)
		if (i in nm)
			printf "\t[%d] = \"%s\",\n", i, nm[i]
	print "};"
}
