tool: trace-cmd version 3.4.0 (not-a-git-repo)
kernel: 7.3.4+deb13-amd64
command: trace-cmd record -o 34-fgboth-v6.dat --file-version 6 -C local -O funcgraph-args -O funcgraph-retval -p function_graph -l __x64_sys_read -l ksys_read -l vfs_read -l read_zero -l __x64_sys_write  -e sched:sched_switch -e sched:sched_wakeup -e irq dd if=/dev/zero of=/dev/null bs=4096 count=8
