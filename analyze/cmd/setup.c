// SPDX-License-Identifier: MIT
/*
 * setup: what darc does around every command, as commands.c's flags say: read
 * the options (the report options of options.h and the command's own), check
 * the arguments, open the recording or the databases they name (analyzing
 * a recording first when a command needs a database), run the command, and
 * close what was opened. The command file keeps only what is its own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "commands.h"
#include "db.h"
#include "fmt.h"
#include "pipeline.h"
#include "reader.h"
#include "setup.h"
#include "suggest.h"
#include "vis.h"
#include "wfile.h"

void setup_error(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* messages quote names from recordings: escaped, and one line whatever they hold */
	fputs("darc: ", stderr);
	vis_put(stderr, msg, 0);
	fputc('\n', stderr);
}

/*
 * Is the database @db the analysis of @rec as it is now, readable by this
 * darc? NULL when it is: newer than @rec, of this darc's schema, and made
 * from @rec (the size, modification time and hash of @rec that its table
 * recording keeps are @rec's: a copy of another recording's database,
 * touched, is not). Else why not, for the message.
 */
static const char *db_stale(const char *db, const char *rec)
{
	struct stat d, r;
	struct fmt_file_identity id;
	struct rdb *x;
	struct err_msg err = {""};
	const char *why = NULL;

	if (stat(db, &d))
		return "";
	if (stat(rec, &r) || fmt_file_identity(rec, &id, &err))
		return "the recording cannot be looked at";
	if (d.st_mtim.tv_sec < r.st_mtim.tv_sec ||
	    (d.st_mtim.tv_sec == r.st_mtim.tv_sec && d.st_mtim.tv_nsec <= r.st_mtim.tv_nsec))
		return "it is older than the recording";
	x = rdb_open(db, &err);
	if (!x)
		why = "this darc cannot read it";
	else if (!rdb_made_from(x, &id))
		why = "it was made from another recording: its size, time or content differ";
	rdb_close(x);
	if (why) /* only looked at: the analysis may replace it */
		wfile_forget_input(db);
	return why;
}

struct rdb *setup_open_db(const char *path, const char *prog, struct err_msg *err)
{
	char *db;
	const char *why;
	struct rdb *r = NULL;
	int n;

	switch (db_is_darc(path)) {
	case 1:
		return rdb_open(path, err);
	case -1:
		err_setf(err, path, "%s", strerror(errno));
		return NULL;
	}
	/* another program's SQLite file: rdb_open() says it is not darc's */
	if (db_sqlite_header(path) == 1)
		return rdb_open(path, err);
	/* not a database: it must be a recording */
	{
		struct fmt_reader *r = fmt_reader_open(path, FMT_OPEN_NO_KALLSYMS, err);
		if (!r)
			return NULL;
		fmt_reader_close(r);
	}
	db = pipeline_db_path(path);
	if (!db) {
		err_setf(err, path, "out of memory");
		return NULL;
	}
	wfile_note_input(path);
	if ((n = db_check_output(db, false, err))) {
		/* this command has no -o or --force: say how to get a database */
		if (n == -2)
			err_setf(err, db, "exists and is not a darc database: not replaced");
		n = strlen(err->msg);
		snprintf(err->msg + n, sizeof(err->msg) - (size_t)n,
			 " (analyze '%s' with 'darc analyze -o DB', then give DB)", path);
		goto out;
	}
	why = db_stale(db, path);
	if (!why) {
		fprintf(stderr, "darc %s: reading '%s' (the analysis of '%s')\n", prog, db, path);
	} else {
		struct pipeline_opts po = PIPELINE_OPTS_INIT;
		fprintf(stderr, "darc %s: analyzing '%s' into '%s' first%s%s%s\n", prog, path, db,
			*why ? " (" : "", why, *why ? ")" : "");
		po.progress = true; /* where stderr is a terminal */
		if (pipeline_run(path, db, &po, NULL, err))
			goto out;
	}
	r = rdb_open(db, err);
out:
	free(db);
	return r;
}

/* "darc hist: MESSAGE (darc hist --help)": a usage error, one line, exit 2. */
static int usage_error(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int usage_error(const char *name, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "darc %s: ", name);
	vis_put(stderr, msg, 0);
	fprintf(stderr, " (darc %s --help)\n", name);
	return EXIT_INPUT;
}

/*
 * The long options of @opts that @word (up to an '=') begins, "--a or --b"
 * into @buf; how many. getopt_long() takes a prefix of one option, and
 * refuses one of two or more: darc names them.
 */
static int options_begun(const struct option *opts, const char *word, char *buf, size_t size)
{
	size_t len = strcspn(word, "="), at = 0;
	int n = 0;

	buf[0] = 0;
	for (const struct option *o = opts; len && o->name; o++) {
		if (strncmp(o->name, word, len))
			continue;
		if (o->name[len] == 0)
			return 0; /* the whole name of one: not ambiguous */
		n++;
		if (at < size)
			at += (size_t)snprintf(buf + at, size - at, "%s--%s", n > 1 ? " or " : "",
					       o->name);
	}
	return n;
}

/* An unknown option @given: the close ones of this command, else the commands that have it. */
static int unknown_option(const struct cmd *cmd, const char *name, const char *given)
{
	const char *word = given + strspn(given, "-");
	const char *close = NULL;
	int best = suggest_close(word) + 1;
	char have[256];

	if (given[1] == '-' && options_begun(cmd->opts, word, have, sizeof(have)) > 1)
		return usage_error(name, "ambiguous option '%s': %s?", given, have);

	for (const struct option *o = cmd->opts; *word && o->name; o++) {
		int d = suggest_distance(word, o->name);
		if (d < best) {
			best = d;
			close = o->name;
		}
	}
	if (close)
		return usage_error(name, "unknown option '%s'; did you mean --%s?", given, close);
	commands_having_option(word, name, have, sizeof(have));
	if (have[0] && given[1] == '-')
		return usage_error(name, "unknown option '%s' (an option of darc %s)", given, have);
	return usage_error(name, "unknown option '%s'", given);
}

/* The wrong number of arguments: say what the command takes. */
static int wrong_arguments(const struct cmd *cmd, const char *name, unsigned flags,
			   const struct cmd_ctx *ctx)
{
	const char *what = cmd->nargs == 2		  ? "two recordings or databases, A and B"
			   : flags & CMD_NEEDS_DB	  ? "a recording or a database"
							  : "a recording";

	if (ctx->nargs < cmd->nargs)
		return usage_error(name, "needs %s; %s", what,
				   ctx->nargs ? "got one" : "none given");
	return usage_error(name, "takes %s: '%s' is one too many", what, ctx->args[cmd->nargs]);
}

/*
 * The end of a command that did not run, by options_parse_short()'s result @how
 * (or OPTION_USAGE for the wrong number of arguments): its usage on stdout
 * (OPTION_HELP, EXIT_OK), or one line on stderr. Returns the exit status.
 */
static int usage(const struct cmd *cmd, const char *name, unsigned flags, int how,
		 const struct cmd_ctx *ctx)
{
	switch (how) {
	case OPTION_HELP:
		printf("%s%s%s", cmd->usage_head, cmd->usage_mid ? cmd->usage_mid : "",
		       cmd->usage_tail ? cmd->usage_tail : "");
		return EXIT_OK;
	case OPTION_BAD:
		return usage_error(name, "%s", ctx->err.msg);
	case OPTION_UNKNOWN:
		return unknown_option(cmd, name, ctx->err.msg);
	case OPTION_NOARG:
		return usage_error(name, "%s needs an argument", ctx->err.msg);
	}
	return wrong_arguments(cmd, name, flags, ctx);
}

struct taking {
	const struct cmd *cmd;
	struct cmd_ctx *ctx;
};

/* options_parse_short()'s hook for the options that are not the report options. */
static int take(void *p, int c, const char *arg, struct err_msg *err)
{
	struct taking *t = p;

	return t->cmd->take ? t->cmd->take(t->ctx, t->cmd->args, c, arg, err) : -1;
}

/* Read the options and find the arguments: OPTION_OK, or what usage() takes. */
static int parse(const struct cmd *cmd, unsigned flags, struct cmd_ctx *ctx, int argc,
		 char **argv)
{
	struct taking t = {cmd, ctx};
	int rc = options_parse_short(argc, argv, cmd->shortopts ? cmd->shortopts : "h", cmd->opts,
				  &ctx->o, take, &t, &ctx->err);

	ctx->args = argv + optind;
	ctx->nargs = argc - optind;
	if (rc == OPTION_OK && ctx->nargs != cmd->nargs)
		return OPTION_USAGE;
	if (rc == OPTION_OK && options_check(&ctx->o, flags & CMD_SELECTION, &ctx->err))
		return OPTION_BAD;
	/* --force replaces --svg's file: alone it would be ignored (export's is -o's: its own) */
	if (rc == OPTION_OK && ctx->o.force && !ctx->o.svg && options_name(cmd->opts, OPTION_SVG))
		return err_setf(&ctx->err, NULL,
				"--force replaces the file of --svg: give --svg FILE"),
		       OPTION_BAD;
	if (rc == OPTION_OK && cmd->check)
		rc = cmd->check(ctx, cmd->args);
	return rc;
}

/* Open what @flags say the command reads: 0, or -1 with ctx->err set. */
static int open_inputs(unsigned flags, struct cmd_ctx *ctx)
{
	if (flags & CMD_NEEDS_RECORDING) {
		ctx->reader = fmt_reader_open(ctx->args[0],
					      flags & CMD_NO_KALLSYMS ? FMT_OPEN_NO_KALLSYMS : 0,
					      &ctx->err);
		if (!ctx->reader)
			return -1;
	}
	if (flags & CMD_NEEDS_DB)
		for (int i = 0; i < ctx->nargs && i < 2; i++)
			if (!(ctx->db[i] = setup_open_db(ctx->args[i], ctx->name, &ctx->err)))
				return -1;
	return 0;
}

int setup_run(const struct cmd *cmd, const char *name, unsigned flags, int argc, char **argv)
{
	struct cmd_ctx ctx = {.name = name};
	int rc;

	options_init(&ctx.o);
	rc = parse(cmd, flags, &ctx, argc, argv);
	if (rc != OPTION_OK) {
		options_release(&ctx.o);
		return usage(cmd, name, flags, rc, &ctx);
	}
	ctx.err.msg[0] = 0;
	rc = open_inputs(flags, &ctx);
	/* a name that names nothing is said here, the same way for every command */
	if (!rc && (flags & CMD_NEEDS_DB))
		rc = suggest_check_selection(ctx.db[0], &ctx.o,
					     options_name(cmd->opts, OPTION_TIME), &ctx.err);
	if (!rc)
		rc = cmd->run(&ctx, cmd->args);
	if (rc) {
		/* never a silent failure: a path that forgot to say why is a bug, said as one */
		if (ctx.err.msg[0])
			setup_error("%s", ctx.err.msg);
		else
			setup_error(
			    "%s failed without saying why (a bug in darc: please report it)", name);
		rc = EXIT_INPUT;
	}
	fmt_reader_close(ctx.reader);
	rdb_close(ctx.db[0]);
	rdb_close(ctx.db[1]);
	options_release(&ctx.o);
	return rc;
}
