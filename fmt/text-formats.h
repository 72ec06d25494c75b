/* SPDX-License-Identifier: MIT */
/*
 * Internal to fmt/text.c: the event formats the text reader writes its
 * records in, as the 6.1 kernel (x86-64) has them, with their ids there.
 */
#ifndef DARC_TEXT_FORMATS_H
#define DARC_TEXT_FORMATS_H

#include "text-line.h"

#define TF_COMMON TF_COMMON_TEXT

enum {
	TF_ID_FUNCTION = 1,
	TF_ID_KERNEL_STACK = 4,
	TF_ID_USER_STACK = 13,
	TF_ID_PRINT = 5,
	TF_ID_FG_EXIT = 10,
	TF_ID_FG_ENTRY = 11,
	TF_ID_FG_RETADDR = 12,
	TF_ID_SOFTIRQ_EXIT = 149,
	TF_ID_SOFTIRQ_ENTRY = 150,
	TF_ID_IRQ_EXIT = 151,
	TF_ID_IRQ_ENTRY = 152,
	TF_ID_SWITCH = 319,
	TF_ID_SYS_EXIT = 350,
	TF_ID_SYS_ENTER = 351,
	TF_ID_WAKEUP_NEW = 320,
	TF_ID_WAKEUP = 321,
	TF_ID_WAKING = 322,
	TF_ID_DYNAMIC = 2000, /* irq_vectors and name-only events, numbered on */
};

static const char tf_print[] = "name: print\nID: 5\n" TF_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

/*
 * The function tracer's event (6.1's: 6.15 on add the args[] of
 * func-args), and the stack traces that follow an event with the
 * stacktrace option or trigger, or func_stack_trace: the record holds
 * size frames (at least room for eight, as the format says).
 */
static const char tf_function[] = "name: function\nID: 1\n" TF_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n";

/* 6.15 on: the argument registers (func-args) after the parent, as many as saved */
static const char tf_function_args[] = "name: function\nID: 1\n" TF_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n";

#define TF_STACK_PRINT                                                                     \
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> "     \
	"%ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], " \
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "          \
	"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n"

static const char tf_kernel_stack[] = "name: kernel_stack\nID: 4\n" TF_COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n" TF_STACK_PRINT;

static const char tf_user_stack[] = "name: user_stack\nID: 13\n" TF_COMMON
	"\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n" TF_STACK_PRINT;

static const char tf_fg_exit[] = "name: funcgraph_exit\nID: 10\n" TF_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", (void *)REC->func, "
	"REC->depth, REC->calltime, REC->rettime, REC->depth\n";

static const char tf_fg_entry[] = "name: funcgraph_entry\nID: 11\n" TF_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"--> %ps (%d)\", (void *)REC->func, REC->depth\n";

/*
 * With the options of current kernels (kernel/trace/trace_entries.h): the
 * exit with the return value (funcgraph-retval, CONFIG_FUNCTION_GRAPH_RETVAL,
 * 6.5+), the entry with the saved argument registers (funcgraph-args, 6.15+:
 * FTRACE_REGS_MAX_ARGS of them follow when the option is on), and the entry
 * with the return address (funcgraph-retaddr, 6.13+), in their latest layout.
 */
static const char tf_fg_exit_retval[] = "name: funcgraph_exit\nID: 10\n" TF_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx\", "
	"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, REC->retval\n";

static const char tf_fg_entry_args[] = "name: funcgraph_entry\nID: 11\n" TF_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long depth;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"--> %ps (%lu)\", (void *)REC->func, REC->depth\n";

static const char tf_fg_retaddr[] = "name: fgraph_retaddr_entry\nID: 12\n" TF_COMMON
	"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long depth;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long retaddr;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long args[];\toffset:32;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"--> %ps (%lu) <- %ps\", (void *)REC->func, REC->depth, "
	"(void *)REC->retaddr\n";

#define TF_STATES                                                                          \
	"(0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "  \
	"0x00000020 | 0x00000040)"

static const char tf_switch[] = "name: sched_switch\nID: 319\n" TF_COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & (((" TF_STATES " + 1) << 1) - 1)) ? __print_flags(REC->prev_state & "
	"(((" TF_STATES " + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, "
	"{ 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, "
	"\"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & "
	"(" TF_STATES " + 1) << 1 ? \"+\" : \"\", REC->next_comm, REC->next_pid, "
	"REC->next_prio\n";

#define TF_WAKE(NAME, ID)                                                                  \
	"name: " NAME "\nID: " ID "\n" TF_COMMON                                           \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"                          \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"                              \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"                               \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"                       \
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "     \
	"REC->prio, REC->target_cpu\n"

static const char tf_wakeup[] = TF_WAKE("sched_wakeup", "321");
static const char tf_wakeup_new[] = TF_WAKE("sched_wakeup_new", "320");
static const char tf_waking[] = TF_WAKE("sched_waking", "322");

#define TF_SOFTIRQ(NAME, ID)                                                               \
	"name: " NAME "\nID: " ID "\n" TF_COMMON                                           \
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"                      \
	"print fmt: \"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, { 0, "      \
	"\"HI\" }, { 1, \"TIMER\" }, { 2, \"NET_TX\" }, { 3, \"NET_RX\" }, { 4, \"BLOCK\" }, " \
	"{ 5, \"IRQ_POLL\" }, { 6, \"TASKLET\" }, { 7, \"SCHED\" }, { 8, \"HRTIMER\" }, { 9, "  \
	"\"RCU\" })\n"

static const char tf_softirq_exit[] = TF_SOFTIRQ("softirq_exit", "149");
static const char tf_softirq_entry[] = TF_SOFTIRQ("softirq_entry", "150");

static const char tf_irq_exit[] = "name: irq_handler_exit\nID: 151\n" TF_COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n";

static const char tf_irq_entry[] = "name: irq_handler_entry\nID: 152\n" TF_COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";

static const char tf_sys_exit[] = "name: sys_exit\nID: 350\n" TF_COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";

static const char tf_sys_enter[] = "name: sys_enter\nID: 351\n" TF_COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], "
	"REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n";

/* An irq_vectors event (local_timer_entry, reschedule_exit, ...): "%s", "%d" name, id. */
#define TF_VECTOR_FMT                                                                      \
	"name: %s\nID: %d\n" TF_COMMON "\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n" \
	"print fmt: \"vector=%%d\", REC->vector\n"

/* Any other event, kept by name with its printed fields as text. */
#define TF_NAMED_FMT                                                                       \
	"name: %s\nID: %d\n" TF_COMMON                                                     \
	"\tfield:__data_loc char[] text;\toffset:8;\tsize:4;\tsigned:1;\n\n"               \
	"print fmt: \"%%s\", __get_str(text)\n"

#endif
