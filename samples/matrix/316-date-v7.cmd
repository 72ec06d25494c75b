tool: trace-cmd version 3.1.6 (not-a-git-repo)
kernel: 6.1.0-56-amd64
command: trace-cmd record -o 316-date-v7.dat --file-version 7 --compression none -C local --date -p function_graph -l __x64_sys_read -l ksys_read -l vfs_read -l read_zero -l __x64_sys_write  -e sched:sched_switch -e sched:sched_wakeup -e irq dd if=/dev/zero of=/dev/null bs=4096 count=8
