# Turn <asm/unistd_64.h> ("#define __NR_read 0") into a C table of names.
BEGIN { print "/* generated from asm/unistd_64.h by gen-syscalls.awk */"; print "static const char *const syscall_names_x86_64[] = {" }
$1 == "#define" && $2 ~ /^__NR_/ && $3 ~ /^[0-9]+$/ { printf "\t[%d] = \"%s\",\n", $3, substr($2, 6) }
END { print "};" }
