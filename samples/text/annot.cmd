kernel 6.1.0-56-amd64; cmdline console=ttyS0 preempt=full tsc=reliable panic=-1 rdinit=/init no_timer_check
overrun: events sched_switch sched_wakeup sched_waking irq raw_syscalls, buffer 16 KiB; vm-workload cpuhog warm(1 MiB) 200 64, then preads cold warm 6
cpu0: the same events, tracing_cpumask 1, buffer 1408 KiB; vm-workload preads cold warm 4
trace-cmd trace-cmd version 3.1.6 (not-a-git-repo)
