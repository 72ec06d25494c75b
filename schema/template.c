// SPDX-License-Identifier: MIT
/*
 * template: the empty database of the schema, made at build time and
 * embedded in darc, so that an analysis (and a report that checks a
 * database against darc's schema, trust.c) starts from its bytes instead
 * of running the schema's SQL: SQLite parsed each CREATE twice and wrote
 * each into sqlite_schema, a fifth of a small recording's analysis.
 *
 *	template OUT.c CALL-INDEXES.sql FILE.sql...
 *
 * Runs the FILE.sql in order on a new database without auto-vacuum (as
 * schema/db.c makes them), once with 64 KiB pages and once with 4 KiB
 * pages, and writes OUT.c: each file's bytes, mostly zeros, as runs
 * (image.c reads them), in schema_template[] and schema_template_small[]:
 *
 *	varint zeros, varint n, n bytes	...
 *
 * (a varint: 7 bits a byte, low first, the high bit set but in the last).
 * Then, on the small one, CALL-INDEXES.sql, lazy-indexes.h's and ANALYZE:
 * its sqlite_schema rows in schema_objects[] (schema.h), the schema a
 * report checks a database against (trust.c) without making it each time.
 * Exit status 0, or 1 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lazy-indexes.h"

#define MIN_ZEROS 16 /* a shorter run of zeros stays in the bytes around it */

static const char *prog = "template";

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, why);
	return 1;
}

/* The whole of @path, malloc'd, its size in *@n; NULL with a message. */
static unsigned char *slurp(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;

	if (f && !fseek(f, 0, SEEK_END) && (*n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (p = malloc(*n + 1)) && fread(p, 1, *n, f) != (size_t)*n) {
		free(p);
		p = NULL;
	}
	if (f)
		fclose(f);
	if (!p)
		fail(path, "cannot read it");
	return p;
}

/* The database of @files at @db, of pages of @page_size bytes. 0, or 1 with a message. */
static int make(const char *db, int page_size, char **files, int nfiles)
{
	sqlite3 *s = NULL;
	char *pragmas = sqlite3_mprintf("PRAGMA page_size = %d; PRAGMA auto_vacuum = NONE;",
					page_size);
	int rc = !pragmas || sqlite3_open(db, &s) != SQLITE_OK ||
		 sqlite3_exec(s, pragmas, NULL, NULL, NULL) != SQLITE_OK;

	sqlite3_free(pragmas);

	for (int i = 0; i < nfiles && !rc; i++) {
		long n;
		unsigned char *sql = slurp(files[i], &n);

		if (!sql)
			rc = 1;
		else {
			sql[n] = 0;
			if (sqlite3_exec(s, (const char *)sql, NULL, NULL, NULL) != SQLITE_OK)
				rc = fail(files[i], sqlite3_errmsg(s));
			free(sql);
		}
	}
	if (sqlite3_close(s) != SQLITE_OK && !rc)
		rc = fail(db, "cannot close it");
	return rc;
}

static void put_varint(FILE *out, unsigned long v)
{
	do {
		fprintf(out, "%lu,", (v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

/* The runs of @p (@n bytes) as the body of a C array. */
static void put_runs(FILE *out, const unsigned char *p, long n)
{
	long at = 0;

	while (at < n) {
		long z = 0, lit = 0;

		while (at + z < n && !p[at + z])
			z++;
		/* the bytes up to the next run of MIN_ZEROS zeros (or the end) */
		for (long k = at + z; k < n; k++, lit++) {
			long run = 0;

			while (k + run < n && !p[k + run] && run < MIN_ZEROS)
				run++;
			if (run == MIN_ZEROS || k + run == n)
				break;
		}
		put_varint(out, z);
		put_varint(out, lit);
		for (long k = 0; k < lit; k++)
			fprintf(out, "%u,%s", p[at + z + k], k % 24 == 23 ? "\n" : "");
		fputc('\n', out);
		at += z + lit;
	}
}

/* @s as a C string literal, or NULL. */
static void put_string(FILE *out, const unsigned char *s)
{
	if (!s) {
		fputs("NULL", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s < 0x20 || *s >= 0x7f)
			fprintf(out, "\\%03o", *s); /* octal: never swallows the next char */
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * The objects of database @db with @call (CALL-INDEXES.sql), the lazy
 * indexes and ANALYZE's tables into @out as schema_objects[]. 0 or 1.
 */
static int emit_objects(FILE *out, const char *db, const char *call)
{
	sqlite3 *s = NULL;
	sqlite3_stmt *st = NULL;
	unsigned char *sql;
	long n;
	int rc = sqlite3_open(db, &s) != SQLITE_OK, count = 0;

	if (!rc && !(sql = slurp(call, &n)))
		rc = 1;
	else if (!rc) {
		sql[n] = 0;
		rc = sqlite3_exec(s, (const char *)sql, NULL, NULL, NULL) != SQLITE_OK;
		free(sql);
	}
	for (int i = 0; !rc && i < NLAZY; i++)
		rc = sqlite3_exec(s, lazy_indexes[i], NULL, NULL, NULL) != SQLITE_OK;
	rc = rc || sqlite3_exec(s, "ANALYZE", NULL, NULL, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(s, "SELECT type, name, tbl_name, sql FROM sqlite_schema", -1, &st,
				NULL) != SQLITE_OK;
	if (rc)
		fail(db, s ? sqlite3_errmsg(s) : "cannot open it");
	else
		fprintf(out, "const struct schema_object schema_objects[] = {\n");
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		fputs("\t{", out);
		for (int i = 0; i < 4; i++) {
			put_string(out, sqlite3_column_text(st, i));
			fputs(i < 3 ? ", " : "},\n", out);
		}
		count++;
	}
	if (!rc && sqlite3_errcode(s) != SQLITE_DONE)
		rc = fail(db, sqlite3_errmsg(s));
	if (!rc)
		fprintf(out, "};\nconst int schema_nobjects = %d;\n", count);
	sqlite3_finalize(st);
	sqlite3_close(s);
	return rc;
}

/* The database of @files with pages of @page_size bytes into @out as array @name. 0 or 1. */
static int emit(FILE *out, const char *db, int page_size, const char *name, char **files,
		int nfiles)
{
	unsigned char *bytes;
	long n;

	unlink(db);
	if (make(db, page_size, files, nfiles) || !(bytes = slurp(db, &n)))
		return 1;
	unlink(db);
	fprintf(out, "const unsigned char %s[] = {\n", name);
	put_runs(out, bytes, n);
	fprintf(out, "};\nconst unsigned long %s_len = sizeof(%s);\n"
		     "const unsigned long %s_size = %ldUL;\n", name, name, name, n);
	free(bytes);
	return 0;
}

int main(int argc, char **argv)
{
	char db[4096];
	FILE *out;
	int rc;

	if (argc < 4)
		return fail("usage", "template OUT.c CALL-INDEXES.sql FILE.sql...");
	snprintf(db, sizeof(db), "%s.db", argv[1]);
	if (!(out = fopen(argv[1], "w")))
		return fail(argv[1], "cannot write it");
	fprintf(out, "/* Generated by schema/template.c from the schema's .sql files: do not edit. */\n"
		     "#include <stddef.h>\n\n#include \"schema.h\"\n\n");
	rc = emit(out, db, 65536, "schema_template", argv + 3, argc - 3) ||
	     emit(out, db, 4096, "schema_template_small", argv + 3, argc - 3) ||
	     make(db, 4096, argv + 3, argc - 3) || emit_objects(out, db, argv[2]);
	unlink(db);
	if (fclose(out) && !rc)
		rc = fail(argv[1], "cannot write it");
	if (rc)
		unlink(argv[1]);
	return rc;
}
