-- SPDX-License-Identifier: MIT
-- darc schema: the tables. Applied to a new, empty database by db_create()
-- (schema/db.c), before any row; views.sql follows, indexes.sql comes
-- after the load. Every time is in nanoseconds of the recording's clock;
-- NULL means the recording does not tell (never a guess). Documented, with
-- the meaning of every column, in schema/README.md. The tables the writer
-- fills have their columns listed once more, in this order, in
-- schema/columns.h (its INSERTs are made from it); tests/unit/test_db.c
-- checks that the two agree.
--
-- Bump the version below whenever a table, column, view or code changes
-- meaning; schema/embed.c copies it into the C constant schema_version.
PRAGMA user_version = 14;
-- 'darc' in the header (offset 68): db_is_darc() knows darc's databases by it
-- without reading their schema (DB_APPLICATION_ID, schema/db.h).
PRAGMA application_id = 1684107875;

-- The one row that says what was analysed, and how.
CREATE TABLE recording (
	source TEXT NOT NULL,	-- the recording's path, as given to darc
	format TEXT,		-- e.g. 'trace.dat v7 (zstd)'
	kernel TEXT,		-- uname of the recorded machine
	clock TEXT,		-- trace clock ('local', 'mono', ...)
	cpus INTEGER,
	t_first INTEGER,	-- the earliest event's timestamp, ns
	t_last INTEGER,		-- the latest event's timestamp, ns
	events INTEGER,		-- events read
	lost_events INTEGER,	-- lost events the ring buffers counted, all CPUs
	lost_marks INTEGER,	-- ring-buffer pages that reported lost events
	manifest TEXT,		-- the recording's manifest (JSON), if it has one
	darc_version TEXT,	-- darc that wrote this database
	options TEXT,		-- the analysis options (JSON)
	lacks TEXT,		-- what the format cannot tell (e.g. 'kallsyms, lost events'), NULL if nothing
	source_size INTEGER,	-- the recording's identity when analysed (fmt/file.h): its bytes,
	source_mtime_ns INTEGER, -- its modification time,
	source_hash TEXT,	-- and a hash of its first MiB: a database is reused only for it
	tracer_cost TEXT	-- what one traced call cost, by mechanism (JSON; schema/README.md),
				-- NULL if the recording used no tracing mechanism darc knows
);

-- Every task (thread) seen. tid 0 is the idle task.
CREATE TABLE task (
	tid INTEGER PRIMARY KEY,
	pid INTEGER,		-- thread group (process) id
	comm TEXT		-- last known command name
);

-- Every function that has calls or probe hits: kernel functions, system calls, probes.
CREATE TABLE func (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL,
	kind INTEGER NOT NULL,	-- func_kind.kind
	addr INTEGER,		-- address (kernel or user)
	module TEXT,		-- kernel module, or user binary; NULL for the kernel proper or unknown
	overhead INTEGER NOT NULL DEFAULT 0, -- 1: the tracer's own code (probe handlers, ftrace)
	p50_ns INTEGER,		-- exact quantiles of its complete calls' incl_ns (nearest
	p90_ns INTEGER,		-- rank: the ceil(n q)-th smallest); NULL without one
	p99_ns INTEGER,
	p999_ns INTEGER		-- p99.9
);

-- The calls. View call (below) has one row per call, complete or flagged
-- incomplete. For a complete call incl_ns = excl_ns + children_ns + irq_ns +
-- softirq_ns + preempt_ns + blocked_ns exactly (view identity_violations
-- lists the calls where not). Its rows are kept in two tables: call_base has
-- the columns every call has; call_extra has a row only for the few calls that
-- were interrupted, spent time off CPU, carry a flag or were interrupts
-- themselves. Nearly every call has no call_extra row, which makes writing
-- and reading the calls faster than one wide table would. A call's function
-- and depth are its fnode's (view call shows them): call_base does not repeat
-- them. Query view call; put your own indexes on call_base.
CREATE TABLE call_base (
	id INTEGER PRIMARY KEY,	-- 1, 2, ... in order of entry
	task_id INTEGER NOT NULL, -- task.tid (irq calls: the interrupted task, or 0)
	parent_id INTEGER,	-- call.id of the enclosing call; NULL for a root
	fnode_id INTEGER NOT NULL, -- fnode.id: the function in the context of its path
	cpu INTEGER,		-- CPU of the entry (of the exit if no entry)
	t_entry INTEGER,	-- ns; NULL if the entry was not recorded
	incl_ns INTEGER,	-- t_exit - t_entry; NULL if either is unknown
	children_ns INTEGER,	-- sum of the children's incl_ns
	last_id INTEGER NOT NULL, -- the largest id in the call's subtree (its own for a leaf)
	retval INTEGER		-- the return value (a system call's; a kernel function's under
				-- funcgraph-retval), an error code as a negative number; NULL if
				-- not recorded
);
-- No index on parent_id: ids follow the order of entry, so a call's
-- descendants are among the ids id + 1 .. last_id, a range of rowids. The
-- children of call X: WHERE id BETWEEN X.id + 1 AND X.last_id AND parent_id =
-- X.id. (Keeping an index up to date cost 0.22 s of the 0.52 s SQLite spent
-- on 935 K calls of function_graph trees; call-indexes.sql has it, for
-- --indexes.)

-- What only some calls have. A call without a row here has t_exit = t_entry
-- + incl_ns, no interrupted call, flags 0, and irq_ns, softirq_ns,
-- preempt_ns and blocked_ns 0.
CREATE TABLE call_extra (
	id INTEGER PRIMARY KEY,	-- call_base.id
	t_exit INTEGER,		-- ns; NULL if the exit was not recorded
	interrupted_id INTEGER,	-- irq calls: call.id of the task call they interrupted
	irq_ns INTEGER NOT NULL,	-- in hard irqs while this was the task's innermost call
	softirq_ns INTEGER NOT NULL,	-- in softirqs while this was the innermost call
	preempt_ns INTEGER NOT NULL,	-- off CPU, runnable (preempted)
	blocked_ns INTEGER NOT NULL,	-- off CPU, sleeping
	flags INTEGER NOT NULL	-- sum of call_flag.bit
);

-- One row per call. excl_ns is what is left of incl_ns once the other parts
-- are taken out (time on CPU in the function itself); NULL when incl_ns is.
-- func_id and depth are the fnode's (a LEFT JOIN on its key, which SQLite
-- leaves out of a query that needs neither).
CREATE VIEW call(id, task_id, func_id, parent_id, fnode_id, interrupted_id, depth, cpu,
	t_entry, t_exit, incl_ns, excl_ns, children_ns, irq_ns, softirq_ns, preempt_ns,
	blocked_ns, flags, last_id, retval) AS
SELECT b.id, b.task_id, n.func_id, b.parent_id, b.fnode_id, x.interrupted_id, n.depth, b.cpu,
	b.t_entry,
	CASE WHEN x.id IS NULL THEN b.t_entry + b.incl_ns ELSE x.t_exit END,
	b.incl_ns,
	b.incl_ns - b.children_ns - CASE WHEN x.id IS NULL THEN 0
		ELSE x.irq_ns + x.softirq_ns + x.preempt_ns + x.blocked_ns END,
	b.children_ns,
	coalesce(x.irq_ns, 0), coalesce(x.softirq_ns, 0), coalesce(x.preempt_ns, 0),
	coalesce(x.blocked_ns, 0), coalesce(x.flags, 0), b.last_id, b.retval
FROM call_base b
LEFT JOIN fnode n ON n.id = b.fnode_id
LEFT JOIN call_extra x ON x.id = b.id;

-- Rows inserted into view call go to call_base and, when they need one, to
-- call_extra. A complete call's excl_ns must be the rest of its incl_ns, and
-- its function and depth its fnode's.
CREATE TRIGGER call_insert INSTEAD OF INSERT ON call
BEGIN
	SELECT RAISE(ABORT, 'call: excl_ns is not incl_ns less the other parts')
	WHERE NEW.incl_ns IS NOT NULL AND NEW.excl_ns IS NOT NEW.incl_ns - NEW.children_ns
		- NEW.irq_ns - NEW.softirq_ns - NEW.preempt_ns - NEW.blocked_ns;
	SELECT RAISE(ABORT, 'call: t_exit is not t_entry + incl_ns')
	WHERE NEW.incl_ns IS NOT NULL AND NEW.t_exit IS NOT NEW.t_entry + NEW.incl_ns;
	SELECT RAISE(ABORT, 'call: func_id and depth are not its fnode''s')
	WHERE NOT EXISTS (SELECT 1 FROM fnode WHERE id = NEW.fnode_id
		AND func_id IS NEW.func_id AND depth IS NEW.depth);
	INSERT INTO call_base VALUES (NEW.id, NEW.task_id, NEW.parent_id, NEW.fnode_id,
		NEW.cpu, NEW.t_entry, NEW.incl_ns, NEW.children_ns, coalesce(NEW.last_id, NEW.id),
		NEW.retval);
	INSERT INTO call_extra
	SELECT NEW.id, NEW.t_exit, NEW.interrupted_id, NEW.irq_ns, NEW.softirq_ns,
		NEW.preempt_ns, NEW.blocked_ns, NEW.flags
	WHERE NEW.incl_ns IS NULL OR NEW.interrupted_id IS NOT NULL OR NEW.flags != 0
		OR NEW.irq_ns != 0 OR NEW.softirq_ns != 0 OR NEW.preempt_ns != 0
		OR NEW.blocked_ns != 0;
END;

CREATE TRIGGER call_delete INSTEAD OF DELETE ON call
BEGIN
	DELETE FROM call_extra WHERE id = OLD.id;
	DELETE FROM call_base WHERE id = OLD.id;
END;

-- What a call was given, where the recording says: its arguments
-- (funcgraph-args) and where it returned to (funcgraph-retaddr). A row only
-- for the calls that have one of them (its return value is call_base.retval).
CREATE TABLE call_value (
	id INTEGER PRIMARY KEY,	-- call_base.id
	args TEXT,		-- the arguments as a JSON object, e.g. {"fd":3,"buf":"0x7ffd1000"}
	retaddr TEXT		-- where it returned to: 'caller+0x1c' (offset in hex)
);

-- The ftree: a function in the context of its call path (recursion gives one
-- node per level). The sums are over the node's complete calls.
CREATE TABLE fnode (
	id INTEGER PRIMARY KEY,
	parent_id INTEGER,	-- fnode.id; NULL for a root
	func_id INTEGER NOT NULL, -- func.id
	depth INTEGER NOT NULL,	-- 0 for a root
	calls INTEGER NOT NULL,	-- complete calls
	incl_ns INTEGER,
	excl_ns INTEGER,
	children_ns INTEGER,
	irq_ns INTEGER,
	softirq_ns INTEGER,
	preempt_ns INTEGER,
	blocked_ns INTEGER,
	max_ns INTEGER,		-- slowest complete call (incl_ns)
	max_excl_ns INTEGER,	-- largest excl_ns of a complete call
	p50_ns INTEGER,		-- exact quantiles of the complete calls' incl_ns (nearest
	p90_ns INTEGER,		-- rank: the ceil(n q)-th smallest); NULL without one
	p99_ns INTEGER,
	p999_ns INTEGER,	-- p99.9
	incomplete INTEGER	-- calls flagged no_entry or no_exit
);

-- OSprof histograms: one row per non-empty bucket. A bucket b at resolution r
-- holds the latencies ns with floor(r * log2(ns)) = b (ns < 1 counts as 1),
-- that is 2^(b/r) <= ns < 2^((b+1)/r); view hist_range gives the bounds.
-- darc analyze stores resolution 1; the first report that asks for 2, 3 or
-- 4 makes it from the calls (all four are stored when --max-depth cut calls).
CREATE TABLE hist (
	owner_kind INTEGER NOT NULL, -- hist_owner.owner_kind: 0 func, 1 fnode
	owner_id INTEGER NOT NULL, -- func.id or fnode.id
	metric INTEGER NOT NULL, -- hist_metric.metric: 0 incl_ns, 1 excl_ns
	resolution INTEGER NOT NULL, -- buckets per octave, 1..4
	bucket INTEGER NOT NULL,
	count INTEGER NOT NULL,
	-- stored in the order of its key (written in that order): an owner's
	-- buckets are together, with no index to build after the load
	PRIMARY KEY (owner_kind, owner_id, metric, resolution, bucket)
) WITHOUT ROWID;

-- The intervals a CPU spent in interrupt context (outermost level only).
CREATE TABLE irq_interval (
	id INTEGER PRIMARY KEY,
	cpu INTEGER NOT NULL,
	kind INTEGER NOT NULL,	-- irq_kind.kind
	irq INTEGER,		-- IRQ number or softirq vector; NULL for vector handlers
	name TEXT,		-- handler or vector name ('virtio0-requests', 'TIMER', ...)
	t_start INTEGER,
	t_end INTEGER,
	task_id INTEGER,	-- the interrupted task, 0 for idle
	call_id INTEGER		-- the interrupted call, NULL if none
);

-- The intervals a task spent off CPU.
CREATE TABLE sched_interval (
	id INTEGER PRIMARY KEY,
	task_id INTEGER NOT NULL,
	kind INTEGER NOT NULL,	-- sched_kind.kind: 0 preempted, 1 blocked
	state INTEGER,		-- prev_state of the sched_switch that ended the run
	cpu_out INTEGER,	-- CPU it left
	cpu_in INTEGER,		-- CPU it came back on; NULL if it did not
	t_out INTEGER,
	t_in INTEGER,		-- NULL if it did not come back
	call_id INTEGER,	-- the call charged: innermost open at switch-in (or out), NULL if none
	wakeup_id INTEGER	-- wakeup.id that ended a blocked interval
);

-- Times a task was off its CPU where the recording does not show it: its
-- switches are not all in the recording (a pid filter on sched events, as
-- darc-record's or trace-cmd record -F's; lost events). Seen as another
-- task's event on the CPU the task was on, as far as the recorded switches
-- said: it left after its last event there, and was off (or elsewhere)
-- until its next event anywhere; or as a task off after a recorded switch
-- seen running again with no switch in recorded. Its time then is not in
-- sched_interval, and is not known.
CREATE TABLE sched_gap (
	id INTEGER PRIMARY KEY,
	task_id INTEGER NOT NULL,
	cpu INTEGER,		-- the CPU it was last seen on, NULL if not known
	t_from INTEGER NOT NULL, -- its last event there, or its recorded switch out
	t_to INTEGER		-- its next event anywhere, NULL if none
);

-- Wake-ups (sched_waking, else sched_wakeup).
CREATE TABLE wakeup (
	id INTEGER PRIMARY KEY,
	task_id INTEGER NOT NULL, -- the task woken
	t INTEGER NOT NULL,
	waker_tid INTEGER,	-- the waking task (0: idle, or an irq on idle)
	waker_cpu INTEGER,
	ctx INTEGER NOT NULL,	-- wakeup_ctx.ctx: the waker's context
	waker_call_id INTEGER,	-- innermost open call of the waker (or its irq call)
	handler TEXT		-- the irq handler or softirq vector running then ('TIMER',
				-- 'virtio0-req.0', ...: irq events), or NULL
);

-- Every probe event (kprobe, kretprobe, uprobe, uretprobe), with its fetch
-- args. A probe entry opens a call only where the recording also has a return
-- probe on the same function; every other hit is a point in time (role 0).
CREATE TABLE probe_hit (
	id INTEGER PRIMARY KEY,	-- 1, 2, ... in time order
	t INTEGER NOT NULL,
	cpu INTEGER NOT NULL,
	task_id INTEGER NOT NULL, -- common_pid: the task on the CPU (0: idle)
	func_id INTEGER,	-- func.id of the probed function (or of the event, off a symbol)
	event TEXT NOT NULL,	-- 'system:name', e.g. 'kprobes:submit_bio'
	role INTEGER NOT NULL,	-- probe_role.role: 0 point, 1 entry of a call, 2 return
	ctx INTEGER NOT NULL,	-- wakeup_ctx.ctx: the context it fired in
	call_id INTEGER,	-- the call it opened or closed; for a point, the innermost
				-- open call of the task (in irq context: of the CPU); NULL if none
	args TEXT		-- fetch args as a JSON object; 8-byte unsigned values as
				-- '0x...' strings (pointers), others as numbers or strings
);

-- The peaks of latency profiles, as darc peaks found (or was given) them: one
-- row per peak, numbered left to right, for each profile and way of finding.
CREATE TABLE peak (
	owner_kind INTEGER NOT NULL, -- hist_owner.owner_kind: 0 func, 1 fnode
	owner_id INTEGER NOT NULL,   -- func.id or fnode.id
	metric INTEGER NOT NULL,     -- hist_metric.metric: 0 incl, 1 excl, 2 irq, ... 5 blocked
	resolution INTEGER NOT NULL, -- buckets per octave, 1..4
	params TEXT NOT NULL,	     -- how (JSON): prominence and smoothing, or the ranges
				     -- given, and the calls' filters (task, comm, time, unit)
	number INTEGER NOT NULL,     -- 1, 2, ... from left to right
	lo INTEGER NOT NULL,	     -- bucket range, inclusive
	hi INTEGER NOT NULL,
	calls INTEGER NOT NULL,	     -- complete calls in it
	share_calls REAL,	     -- of the profile's calls, 0..1
	share_latency REAL,	     -- of the profile's latency, 0..1
	mean REAL,		     -- mean value (ns, or cycles if params say so)
	max INTEGER,		     -- largest value
	PRIMARY KEY (owner_kind, owner_id, metric, resolution, params, number)
);

-- DARC's root-cause searches (darc paths): one row per search, with what it
-- searched and how, so searches with other peaks and thresholds sit side by side.
CREATE TABLE search (
	id INTEGER PRIMARY KEY,
	f0 TEXT NOT NULL,	     -- the function (or call path) searched from
	owner_kind INTEGER NOT NULL, -- hist_owner.owner_kind: 0 func, 1 fnode
	owner_id INTEGER NOT NULL,
	peak INTEGER,		     -- the peak's number, NULL for a range given
	lo INTEGER NOT NULL,	     -- f0's bucket range searched (log2 of incl_ns)
	hi INTEGER NOT NULL,
	calls INTEGER NOT NULL,	     -- f0 calls in it
	params TEXT NOT NULL,	     -- max_depth, maxcount_pct, min_bucket, mode, filters (JSON)
	created TEXT NOT NULL	     -- when, UTC ISO 8601
);

-- The tree of winners of a search: node 0 is f0, every other a winner at its
-- level (several winners: the path branches).
CREATE TABLE search_path (
	search_id INTEGER NOT NULL,  -- search.id
	node INTEGER NOT NULL,	     -- 0 for f0, then 1, 2, ... depth first
	parent INTEGER,		     -- the node it was found at, NULL for f0
	depth INTEGER NOT NULL,	     -- levels below f0
	kind TEXT NOT NULL,	     -- 'fnode', 'self', 'irq', 'softirq', 'preemption', 'blocked'
	fnode_id INTEGER,	     -- for kind fnode (and f0): fnode.id
	name TEXT,		     -- the function, or the interrupt source
	maxcount INTEGER NOT NULL,   -- its votes: calls where it was (tied for) the largest
	calls INTEGER NOT NULL,	     -- the peak's f0 calls
	total_ns REAL NOT NULL,	     -- its value summed over them
	share REAL NOT NULL,	     -- of f0's latency in the peak, 0..1
	status TEXT NOT NULL,	     -- '', 'root cause found', 'maximum depth reached',
				     -- 'below min_bucket'
	PRIMARY KEY (search_id, node)
);

-- Every candidate a search weighed, winners and runners-up, with its votes.
CREATE TABLE search_candidate (
	search_id INTEGER NOT NULL,  -- search.id
	node INTEGER NOT NULL,	     -- search_path.node it was weighed at
	kind TEXT NOT NULL,	     -- as search_path.kind
	fnode_id INTEGER,
	name TEXT,
	maxcount INTEGER NOT NULL,
	total_ns REAL NOT NULL,
	winner INTEGER NOT NULL	     -- 1 if it won (it is a node of search_path)
);

-- darc explain's answers: one row per slow part of an entry point explained
-- (keyed by the search of that part), and the causes that search names.
CREATE TABLE explain_subject (
	search_id INTEGER PRIMARY KEY, -- search.id of the slow part's search
	rank INTEGER NOT NULL,	     -- the subject's place in its run: 1, 2, ...
	part INTEGER NOT NULL,	     -- 1 for the costliest slow part, 2, ... for others
	func TEXT NOT NULL,	     -- the entry point
	fnode_id INTEGER NOT NULL,   -- its fnode
	kind TEXT NOT NULL,	     -- 'syscall', 'user' or 'root'
	calls INTEGER NOT NULL,	     -- its complete calls
	total_ns REAL NOT NULL,	     -- their latency
	how TEXT NOT NULL,	     -- 'peak', 'tail', or 'body' (nothing slower: the body itself)
	lo INTEGER NOT NULL,	     -- the slow part's buckets (log2 of incl_ns)
	hi INTEGER NOT NULL,
	slow_calls INTEGER NOT NULL,
	slow_ns REAL NOT NULL,
	share REAL NOT NULL,	     -- slow_ns / total_ns
	body_lo INTEGER,	     -- what it is contrasted with; NULL if nothing
	body_hi INTEGER,
	body_calls INTEGER,
	body_ns REAL,
	title TEXT NOT NULL	     -- the name the sentences use: 'write()'
);

CREATE TABLE explain_cause (
	search_id INTEGER NOT NULL,  -- explain_subject.search_id
	rank INTEGER NOT NULL,	     -- 1 for the largest
	path TEXT NOT NULL,	     -- JSON array: the functions from below f0, then '[blocked]', ...
	kind TEXT NOT NULL,	     -- 'blocked', 'io', 'preempt', 'irq', 'softirq', 'self'
	ns REAL NOT NULL,	     -- its time in the slow part's calls
	share REAL NOT NULL,	     -- of the slow part's latency
	votes INTEGER,		     -- maxcount at the path's last node
	who TEXT,		     -- waker, preempting task or interrupt; NULL if unknown
	sentence TEXT NOT NULL,
	PRIMARY KEY (search_id, rank)
);

-- Every bio, from its submission to its completion (block tracepoints): keyed
-- by (device, sector), live only between the two; merged bios complete with
-- the request they joined.
CREATE TABLE bio (
	id INTEGER PRIMARY KEY,	-- 1, 2, ... in order of submission (or completion)
	dev INTEGER NOT NULL,	-- device: major << 20 | minor
	sector INTEGER NOT NULL,
	nr_sector INTEGER,	-- 512-byte sectors
	op TEXT,		-- rwbs: 'R', 'WS', 'FWS', ...
	t_queue INTEGER,	-- submitted (block_bio_queue); NULL if not seen
	t_getrq INTEGER,	-- a request made for it (block_getrq)
	t_insert INTEGER,	-- its request queued (block_rq_insert)
	t_issue INTEGER,	-- its request sent to the device (block_rq_issue)
	t_complete INTEGER,	-- completed (block_rq_complete or block_bio_complete)
	task_id INTEGER,	-- the task that submitted it
	call_id INTEGER,	-- its innermost open call then: the submitting call
	queue_cpu INTEGER,	-- CPU of the submission
	complete_cpu INTEGER,	-- CPU of the completion
	complete_ctx INTEGER,	-- wakeup_ctx.ctx: the completion's context (hardirq, ...)
	error INTEGER,		-- the completion's error (0: none)
	flags INTEGER NOT NULL,	-- bio_flag bits
	ptr TEXT		-- its address ('0x...') from a submit_bio probe just before, or NULL
);

-- darc io's answers: each request it split, its latency per layer (ns);
-- the layers of one call add up to its incl_ns exactly.
CREATE TABLE io_layer (
	call_id INTEGER NOT NULL, -- the request: a complete call (call.id)
	layer TEXT NOT NULL,	  -- 'vfs', 'fs', ..., 'device', 'run delay', 'other wait'
	ns INTEGER NOT NULL,
	PRIMARY KEY (call_id, layer)
);

-- Lookup tables: the integer codes above by name, so queries need no C.
-- schema/rows.h holds the same codes; tests/unit/test_db.c checks both agree.
CREATE TABLE func_kind (kind INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO func_kind VALUES
	(0, 'kernel', 'a kernel function (function_graph, or a kprobe on its start)'),
	(1, 'syscall', 'a system call (sys_enter/sys_exit)'),
	(2, 'kprobe', 'a kprobe off a function''s start, named after its event'),
	(3, 'uprobe', 'a uprobe/uretprobe pair: a user function');

CREATE TABLE call_flag (bit INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO call_flag VALUES
	(1, 'no_entry', 'entry not recorded (before the recording, or lost)'),
	(2, 'no_exit', 'exit not recorded (after the recording, or lost)'),
	(4, 'gap', 'events were lost while the call was open'),
	(8, 'hardirq', 'ran in hard-interrupt context'),
	(16, 'softirq', 'ran in softirq context'),
	(32, 'nmi', 'ran in NMI context'),
	(64, 'clamped', 'a timestamp went backwards across CPUs and was clamped'),
	(128, 'bad_time', 'function_graph''s calltime or rettime was implausible and not used');

CREATE TABLE hist_owner (owner_kind INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO hist_owner VALUES
	(0, 'func', 'owner_id is a func.id: all calls of the function'),
	(1, 'fnode', 'owner_id is an fnode.id: the calls on one path');

CREATE TABLE hist_metric (metric INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO hist_metric VALUES
	(0, 'incl', 'inclusive latency, incl_ns'),
	(1, 'excl', 'exclusive latency, excl_ns'),
	(2, 'irq', 'hard-interrupt time, irq_ns (peak only)'),
	(3, 'softirq', 'softirq time, softirq_ns (peak only)'),
	(4, 'preempt', 'preempted time, preempt_ns (peak only)'),
	(5, 'blocked', 'blocked time, blocked_ns (peak only)');

CREATE TABLE irq_kind (kind INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO irq_kind VALUES
	(0, 'hardirq', 'hard interrupt'),
	(1, 'softirq', 'softirq'),
	(2, 'nmi', 'non-maskable interrupt');

CREATE TABLE sched_kind (kind INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO sched_kind VALUES
	(0, 'preempted', 'switched out runnable (state R or R+)'),
	(1, 'blocked', 'switched out sleeping (any other state)');

CREATE TABLE bio_flag (bit INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO bio_flag VALUES
	(1, 'merged', 'it joined another bio''s request (back or front merge)'),
	(2, 'requeued', 'its request went back to the queue at least once'),
	(4, 'no_queue', 'its completion came with no submission seen'),
	(8, 'no_complete', 'not completed when the recording ended'),
	(16, 'lost', 'submitted again before it completed: its end was lost');

CREATE TABLE probe_role (role INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO probe_role VALUES
	(0, 'point', 'a probe hit that is no call''s entry or return'),
	(1, 'entry', 'the entry of a probe pair: it opened call_id'),
	(2, 'return', 'the return of a probe pair: it closed call_id');

CREATE TABLE wakeup_ctx (ctx INTEGER PRIMARY KEY, name TEXT NOT NULL, meaning TEXT);
INSERT INTO wakeup_ctx VALUES
	(0, 'task', 'a task woke it'),
	(1, 'hardirq', 'a hard interrupt woke it'),
	(2, 'softirq', 'a softirq woke it'),
	(3, 'nmi', 'an NMI woke it');

-- The error codes by name (include/uapi/asm-generic/errno*.h, the numbers of
-- x86, arm64 and riscv; 512 and up: the kernel's own, include/linux/errno.h),
-- for return values: a call that returned -11 failed with -EAGAIN.
CREATE TABLE errno_name (code INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO errno_name VALUES
	(1, 'EPERM'), (2, 'ENOENT'), (3, 'ESRCH'), (4, 'EINTR'), (5, 'EIO'), (6, 'ENXIO'),
	(7, 'E2BIG'), (8, 'ENOEXEC'), (9, 'EBADF'), (10, 'ECHILD'), (11, 'EAGAIN'),
	(12, 'ENOMEM'), (13, 'EACCES'), (14, 'EFAULT'), (15, 'ENOTBLK'), (16, 'EBUSY'),
	(17, 'EEXIST'), (18, 'EXDEV'), (19, 'ENODEV'), (20, 'ENOTDIR'), (21, 'EISDIR'),
	(22, 'EINVAL'), (23, 'ENFILE'), (24, 'EMFILE'), (25, 'ENOTTY'), (26, 'ETXTBSY'),
	(27, 'EFBIG'), (28, 'ENOSPC'), (29, 'ESPIPE'), (30, 'EROFS'), (31, 'EMLINK'),
	(32, 'EPIPE'), (33, 'EDOM'), (34, 'ERANGE'), (35, 'EDEADLK'), (36, 'ENAMETOOLONG'),
	(37, 'ENOLCK'), (38, 'ENOSYS'), (39, 'ENOTEMPTY'), (40, 'ELOOP'), (42, 'ENOMSG'),
	(43, 'EIDRM'), (44, 'ECHRNG'), (45, 'EL2NSYNC'), (46, 'EL3HLT'), (47, 'EL3RST'),
	(48, 'ELNRNG'), (49, 'EUNATCH'), (50, 'ENOCSI'), (51, 'EL2HLT'), (52, 'EBADE'),
	(53, 'EBADR'), (54, 'EXFULL'), (55, 'ENOANO'), (56, 'EBADRQC'), (57, 'EBADSLT'),
	(59, 'EBFONT'), (60, 'ENOSTR'), (61, 'ENODATA'), (62, 'ETIME'), (63, 'ENOSR'),
	(64, 'ENONET'), (65, 'ENOPKG'), (66, 'EREMOTE'), (67, 'ENOLINK'), (68, 'EADV'),
	(69, 'ESRMNT'), (70, 'ECOMM'), (71, 'EPROTO'), (72, 'EMULTIHOP'), (73, 'EDOTDOT'),
	(74, 'EBADMSG'), (75, 'EOVERFLOW'), (76, 'ENOTUNIQ'), (77, 'EBADFD'), (78, 'EREMCHG'),
	(79, 'ELIBACC'), (80, 'ELIBBAD'), (81, 'ELIBSCN'), (82, 'ELIBMAX'), (83, 'ELIBEXEC'),
	(84, 'EILSEQ'), (85, 'ERESTART'), (86, 'ESTRPIPE'), (87, 'EUSERS'), (88, 'ENOTSOCK'),
	(89, 'EDESTADDRREQ'), (90, 'EMSGSIZE'), (91, 'EPROTOTYPE'), (92, 'ENOPROTOOPT'),
	(93, 'EPROTONOSUPPORT'), (94, 'ESOCKTNOSUPPORT'), (95, 'EOPNOTSUPP'),
	(96, 'EPFNOSUPPORT'), (97, 'EAFNOSUPPORT'), (98, 'EADDRINUSE'), (99, 'EADDRNOTAVAIL'),
	(100, 'ENETDOWN'), (101, 'ENETUNREACH'), (102, 'ENETRESET'), (103, 'ECONNABORTED'),
	(104, 'ECONNRESET'), (105, 'ENOBUFS'), (106, 'EISCONN'), (107, 'ENOTCONN'),
	(108, 'ESHUTDOWN'), (109, 'ETOOMANYREFS'), (110, 'ETIMEDOUT'), (111, 'ECONNREFUSED'),
	(112, 'EHOSTDOWN'), (113, 'EHOSTUNREACH'), (114, 'EALREADY'), (115, 'EINPROGRESS'),
	(116, 'ESTALE'), (117, 'EUCLEAN'), (118, 'ENOTNAM'), (119, 'ENAVAIL'), (120, 'EISNAM'),
	(121, 'EREMOTEIO'), (122, 'EDQUOT'), (123, 'ENOMEDIUM'), (124, 'EMEDIUMTYPE'),
	(125, 'ECANCELED'), (126, 'ENOKEY'), (127, 'EKEYEXPIRED'), (128, 'EKEYREVOKED'),
	(129, 'EKEYREJECTED'), (130, 'EOWNERDEAD'), (131, 'ENOTRECOVERABLE'), (132, 'ERFKILL'),
	(133, 'EHWPOISON'), (512, 'ERESTARTSYS'), (513, 'ERESTARTNOINTR'),
	(514, 'ERESTARTNOHAND'), (515, 'ENOIOCTLCMD'), (516, 'ERESTART_RESTARTBLOCK'),
	(517, 'EPROBE_DEFER'), (518, 'EOPENSTALE'), (519, 'ENOPARAM'), (521, 'EBADHANDLE'),
	(522, 'ENOTSYNC'), (523, 'EBADCOOKIE'), (524, 'ENOTSUPP'), (525, 'ETOOSMALL'),
	(526, 'ESERVERFAULT'), (527, 'EBADTYPE'), (528, 'EJUKEBOX'), (529, 'EIOCBQUEUED');
