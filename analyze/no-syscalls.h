/* no <asm/unistd_64.h> on the build machine: no system call names */
