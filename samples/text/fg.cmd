kernel 6.1.0-56-amd64; cmdline console=ttyS0 preempt=full tsc=reliable panic=-1 rdinit=/init no_timer_check
current_tracer function_graph, set_graph_function __x64_sys_pread64, max_graph_depth 4, buffer 4096 KiB; events sched_switch
fg-quiet: the same with funcgraph-irqs 0 and sleep-time 0
vm-workload preads cold(16 MiB) warm(1 MiB) 6 (each trace)
trace-cmd trace-cmd version 3.1.6 (not-a-git-repo)
