kernel 7.3.4+deb13-amd64; cmdline console=ttyS0 preempt=full tsc=reliable panic=-1 rdinit=/init no_timer_check
current_tracer function, func_stack_trace 1, set_ftrace_filter __x64_sys_pread64 vfs_read submit_bio blk_mq_start_request (buffer 4096 KiB)
events sched_switch; trace-cmd saw a /proc/kallsyms of the 17 symbols the texts name
vm-workload preads cold(16 MiB) warm(1 MiB) 6
trace-cmd trace-cmd version 3.1.6 (not-a-git-repo)
func-args: the same with func-args 1 and func_stack_trace 0
