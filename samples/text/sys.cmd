kernel 6.1.0-56-amd64; cmdline console=ttyS0 preempt=full tsc=reliable panic=-1 rdinit=/init no_timer_check
sys: events syscalls sys_enter_/sys_exit_ openat pread64 close ioctl clone clone3 wait4 exit_group (those the kernel has), filter comm sh or vm-workload, buffer 256 KiB; sh -c 'test -t 1; vm-workload preads cold warm 2'
sys-tgid.txt: the same buffer with record-tgid 1
trace-cmd trace-cmd version 3.1.6 (not-a-git-repo)
sysprobe: eprobe kprobe: e:sysprobe/openat_e syscalls.sys_enter_openat dfd=$dfd path=+0($filename):ustring flags=$flags;e:sysprobe/pread_e syscalls.sys_enter_pread64 fd=$fd count=$count pos=$pos;p:sysprobe/pread_k __x64_sys_pread64 regs=%di;r10:sysprobe/pread_r __x64_sys_pread64 ret=$retval; filter comm vm-workload; vm-workload preads cold warm 2
