// SPDX-License-Identifier: MIT
#include "trust.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lazy-indexes.h"
#include "schema.h"


const char *trust_lazy_index_sql(const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < NLAZY; i++) {
		const char *s = lazy_indexes[i] + strlen("CREATE INDEX IF NOT EXISTS ");

		if (!strncmp(s, name, n) && s[n] == ' ')
			return lazy_indexes[i];
	}
	return NULL;
}

/* One object of a schema: sqlite_schema's row, its SQL normalized. */
struct object {
	char *type, *name, *tbl, *sql; /* sql NULL for an automatic index */
};

struct objects {
	struct object *v;
	int n;
};

/*
 * @s without comments and with each run of white space one blank, outside
 * quotes (the text SQLite keeps of a CREATE statement holds the comments
 * written in it, which a darc of the same schema version may word otherwise).
 */
static char *normalize(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out, q = 0;

	if (!out)
		return NULL;
	while (*s) {
		if (q) {
			if (*s == q)
				q = 0;
			*o++ = *s++;
		} else if (*s == '\'' || *s == '"') {
			q = *s;
			*o++ = *s++;
		} else if (s[0] == '-' && s[1] == '-') {
			while (*s && *s != '\n')
				s++;
		} else if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			s = e ? e + 2 : s + strlen(s);
		} else if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
				s++;
			if (o > out && o[-1] != ' ' && o[-1] != '(' && *s != ')' && *s != ',')
				*o++ = ' ';
		} else {
			*o++ = *s++;
		}
	}
	while (o > out && o[-1] == ' ')
		o--;
	*o = 0;
	return out;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? strdup((const char *)t) : NULL;
}

static void objects_free(struct objects *o)
{
	for (int i = 0; i < o->n; i++) {
		free(o->v[i].type);
		free(o->v[i].name);
		free(o->v[i].tbl);
		free(o->v[i].sql);
	}
	free(o->v);
	o->v = NULL;
	o->n = 0;
}

/* Every object of @sql's main schema into @o. 0, or -1 (an SQLite error, or memory). */
static int read_objects(sqlite3 *sql, struct objects *o)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(sql, "SELECT type, name, tbl_name, sql FROM main.sqlite_schema",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct object *v = realloc(o->v, (o->n + 1) * sizeof(*v)), *x;
		const unsigned char *text = sqlite3_column_text(st, 3);

		if (!v)
			break;
		o->v = v;
		x = &o->v[o->n++];
		*x = (struct object){dup_col(st, 0), dup_col(st, 1), dup_col(st, 2), NULL};
		if (text)
			x->sql = normalize((const char *)text);
		if (!x->type || !x->name || !x->tbl || (text && !x->sql)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* darc's own schema for this version, made once in memory. */
static struct objects darc;
static bool darc_failed;
static pthread_once_t darc_once = PTHREAD_ONCE_INIT;

/*
 * darc's objects as listed at build time (schema.h's schema_objects[]):
 * making them here, from the template with the indexes darc may add and
 * ANALYZE's tables, parsed the schema's every view, most of a small
 * report's start.
 */
static void make_darc_schema(void)
{
	darc.v = calloc(schema_nobjects, sizeof(*darc.v));
	darc_failed = !darc.v;
	for (int i = 0; !darc_failed && i < schema_nobjects; i++) {
		const struct schema_object *o = &schema_objects[i];
		struct object *x = &darc.v[darc.n++];

		*x = (struct object){strdup(o->type), strdup(o->name), strdup(o->tbl),
				     o->sql ? normalize(o->sql) : NULL};
		darc_failed = !x->type || !x->name || !x->tbl || (o->sql && !x->sql);
	}
}

static const struct object *find(const struct objects *o, const char *type, const char *name)
{
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->v[i].name, name) && !strcmp(o->v[i].type, type))
			return &o->v[i];
	return NULL;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int trust_check_schema(sqlite3 *sql, const char *path, struct err_msg *err)
{
	struct objects file = {0};
	int rc = -1;

	pthread_once(&darc_once, make_darc_schema);
	if (darc_failed)
		return err_setf(err, path, "cannot make darc's own schema to compare with (out of"
					   " memory?)");
	if (read_objects(sql, &file)) {
		err_setf(err, path, "cannot read its schema: %s", sqlite3_errmsg(sql));
		goto out;
	}
	for (int i = 0; i < file.n; i++) {
		const struct object *x = &file.v[i], *d = find(&darc, x->type, x->name);

		if (!d || !same(d->tbl, x->tbl) || !same(d->sql, x->sql)) {
			err_setf(err, path,
				 "not darc's schema: %s %s is %s (a database is used only"
				 " as darc made it)",
				 x->type, x->name,
				 d ? "not defined as darc defines it" : "not darc's");
			goto out;
		}
	}
	/* every table and view darc reads is there */
	for (int i = 0; i < darc.n; i++) {
		const struct object *d = &darc.v[i];

		if ((!strcmp(d->type, "table") || !strcmp(d->type, "view")) &&
		    strncmp(d->name, "sqlite_", 7) && !find(&file, d->type, d->name)) {
			err_setf(err, path, "not darc's schema: it has no %s %s", d->type, d->name);
			goto out;
		}
	}
	rc = 0;
out:
	objects_free(&file);
	return rc;
}

int trust_open(const char *path, int flags, sqlite3 **out, struct err_msg *err)
{
	sqlite3 *s = NULL;
	int on = 1, off = 0;

	if (sqlite3_open_v2(path, &s, flags, NULL) != SQLITE_OK ||
	    sqlite3_db_config(s, SQLITE_DBCONFIG_DEFENSIVE, on, NULL) != SQLITE_OK ||
	    sqlite3_db_config(s, SQLITE_DBCONFIG_TRUSTED_SCHEMA, off, NULL) != SQLITE_OK ||
	    sqlite3_db_config(s, SQLITE_DBCONFIG_ENABLE_TRIGGER, off, NULL) != SQLITE_OK) {
		err_setf(err, path, "cannot open: %s", s ? sqlite3_errmsg(s) : "out of memory");
		sqlite3_close(s);
		*out = NULL;
		return -1;
	}
	*out = s;
	return 0;
}
