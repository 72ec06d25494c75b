kernel 6.1.0-56-amd64; cmdline console=ttyS0 preempt=full tsc=reliable panic=-1 rdinit=/init 
set_graph_function __x64_sys_pread64, max_graph_depth 6, buffer 8192 KiB
events sched_switch sched_wakeup sched_waking irq irq_vectors
vm-workload preads cold(16 MiB) warm(1 MiB) 40
trace-cmd trace-cmd version 3.1.6 (not-a-git-repo)
     convert - convert trace file to different version
