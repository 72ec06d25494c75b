/* SPDX-License-Identifier: MIT */
/*
 * schema: darc's SQL schema, the .sql files of this folder embedded at build
 * time by embed.c (a generated schema.c defines these). Apply tables and views
 * to a new database, load, then create the indexes. schema/README.md says
 * what every table, column and view means. image.h writes the template out.
 */
#ifndef DARC_SCHEMA_H
#define DARC_SCHEMA_H

/* tables.sql: PRAGMA user_version, the tables and the lookup tables' rows. */
extern const char schema_tables_sql[];
/* views.sql: the views (they may be created before any row). */
extern const char schema_views_sql[];
/* indexes.sql: the indexes, to create after the load. */
extern const char schema_indexes_sql[];
/* call-indexes.sql: the optional indexes on table call (--indexes). */
extern const char schema_call_indexes_sql[];

/* The PRAGMA user_version that tables.sql sets: the schema's version. */
extern const int schema_version;

/*
 * The empty database of tables.sql, views.sql and indexes.sql (no
 * auto-vacuum), made at build time by template.c: its runs in
 * schema_template[] (schema_template_len bytes), the file's size; of 64 KiB
 * pages, and of 4 KiB pages in schema_template_small[] (image.h says which
 * serves what).
 */
extern const unsigned char schema_template[], schema_template_small[];
extern const unsigned long schema_template_len, schema_template_size;
extern const unsigned long schema_template_small_len, schema_template_small_size;

/*
 * Every object of a darc database at its fullest: the template's, those of
 * call-indexes.sql and lazy-indexes.h, and the statistics tables ANALYZE
 * makes, as sqlite_schema lists them (sql NULL for an automatic index),
 * listed at build time by template.c. trust.c compares a database with
 * them.
 */
struct schema_object {
	const char *type, *name, *tbl, *sql;
};

extern const struct schema_object schema_objects[];
extern const int schema_nobjects;

#endif
