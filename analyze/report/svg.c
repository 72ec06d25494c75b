// SPDX-License-Identifier: MIT
#include "svg.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "show.h"
#include "vis.h"

#define W 860		 /* the picture */
#define H 440
#define L 80		 /* margins: left, right, top, bottom */
#define R 24
#define T 64
#define B 84
#define PW (W - L - R) /* the plot */
#define PH (H - T - B)

static const char *const peak_fill[2] = {"#f4a261", "#2a9d8f"};
static const char *const bar_fill[2] = {"#264653", "#e76f51"};

/* @s with XML's special characters escaped, and control characters (which XML forbids) too. */
static void text(FILE *out, const char *s)
{
	for (s = s ? vis(s) : ""; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(*s, out);
		}
}

static void head(FILE *out, const char *title, const char *subtitle)
{
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		     "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		     "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
		W, H, W, H, W, H);
	fprintf(out, "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">", L);
	text(out, title);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"44\" fill=\"#555\">", L);
	text(out, subtitle);
	fputs("</text>\n", out);
}

/* Count of @p at bucket @b. */
static uint64_t at(const struct profile *p, int b)
{
	return p && b >= p->lo && b < p->lo + p->n ? p->count[b - p->lo] : 0;
}

/* The non-empty buckets of @p and @q, one empty bucket of margin each side. */
static void range(const struct profile *p, const struct profile *q, int *lo, int *hi,
		  uint64_t *most)
{
	*lo = 1 << 20;
	*hi = -1;
	*most = 1;
	for (int k = 0; k < 2; k++) {
		const struct profile *x = k ? q : p;
		for (int i = 0; x && i < x->n; i++)
			if (x->count[i]) {
				*lo = x->lo + i < *lo ? x->lo + i : *lo;
				*hi = x->lo + i > *hi ? x->lo + i : *hi;
				*most = x->count[i] > *most ? x->count[i] : *most;
			}
	}
	if (*hi < 0)
		*lo = *hi = 0;
	*lo = *lo > 0 ? *lo - 1 : 0;
	*hi += 1;
}

/* Height of a bar of @count on the log scale whose top is 10^@decades. */
static double bar_h(uint64_t count, int decades)
{
	return count ? PH * (log10((double)count) + 0.3) / (decades + 0.3) : 0;
}

static void y_axis(FILE *out, int decades)
{
	for (int d = 0; d <= decades; d++) {
		double y = T + PH - bar_h((uint64_t)pow(10, d), decades);
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
			     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n",
			L, y, L + PW, y, L - 6, y + 4, pow(10, d));
	}
	fprintf(out, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">"
		     "calls (log scale)</text>\n",
		T + PH / 2);
}

/* The lower edge of every r-th bucket, slanted. */
static void x_axis(FILE *out, int lo, int hi, int resolution, const char *unit, double bw)
{
	char label[32];

	for (int b = lo; b <= hi; b++) {
		uint64_t a, z;
		double x = L + (b - lo) * bw;
		if (b % resolution)
			continue;
		show_bucket_range(b, resolution, &a, &z);
		show_amount(a, unit, label, sizeof(label));
		fprintf(out, "<text transform=\"translate(%.1f %d) rotate(-45)\" "
			     "text-anchor=\"end\">%s</text>\n",
			x + bw / 2, T + PH + 14, label);
	}
	fprintf(out, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">latency (%s, log2 "
		     "buckets)</text>\n<line x1=\"%d\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" "
		     "stroke=\"black\"/>\n",
		L + (hi - lo + 1) * bw / 2, H - 10, unit, L, T + PH, L + (hi - lo + 1) * bw, T + PH);
}

static void peaks(FILE *out, const struct peak *pk, int npk, int lo, double bw)
{
	for (int k = 0; k < npk; k++) {
		double x = L + (pk[k].lo - lo) * bw, w = (pk[k].hi - pk[k].lo + 1) * bw;
		fprintf(out, "<rect class=\"peak\" data-peak=\"%d\" data-lo=\"%d\" data-hi=\"%d\" "
			     "x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
			     "fill-opacity=\"0.25\"/>\n"
			     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\" "
			     "fill=\"%s\">%d</text>\n",
			k + 1, pk[k].lo, pk[k].hi, x, T, w, PH, peak_fill[k % 2], x + w / 2, T - 6,
			peak_fill[k % 2], k + 1);
	}
}

static void bars(FILE *out, const struct profile *p, int side, int sides, int lo, int hi,
		 int decades, double bw)
{
	double w = (bw - 2) / sides;

	for (int b = lo; b <= hi; b++) {
		uint64_t n = at(p, b);
		double h = bar_h(n, decades);
		if (!n)
			continue;
		fprintf(out, "<rect class=\"bar\" data-side=\"%d\" data-bucket=\"%d\" "
			     "data-count=\"%" PRIu64 "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			     "height=\"%.1f\" fill=\"%s\"><title>%" PRIu64 " calls</title></rect>\n",
			side, b, n, L + (b - lo) * bw + 1 + side * w, T + PH - h, w, h, bar_fill[side],
			n);
	}
}

int svg_hist(FILE *out, const struct profile *p, const struct profile *q, const struct peak *pk,
	     int npk, const char *title, const char *subtitle, const char *unit)
{
	int lo, hi, decades;
	uint64_t most;
	double bw;

	range(p, q, &lo, &hi, &most);
	decades = (int)ceil(log10((double)most));
	decades = decades < 1 ? 1 : decades;
	bw = (double)PW / (hi - lo + 1);
	head(out, title, subtitle);
	peaks(out, pk, npk, lo, bw);
	y_axis(out, decades);
	bars(out, p, 0, q ? 2 : 1, lo, hi, decades, bw);
	if (q)
		bars(out, q, 1, 2, lo, hi, decades, bw);
	x_axis(out, lo, hi, p ? p->resolution : 1, unit, bw);
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}

/* A cell's colour: white for 0, to dark blue for the most, on log(count + 1). */
static void cell_colour(uint64_t n, uint64_t most, char *buf, size_t len)
{
	double f = most ? log((double)n + 1) / log((double)most + 1) : 0;

	snprintf(buf, len, "rgb(%d,%d,%d)", (int)(255 - f * (255 - 20)), (int)(255 - f * (255 - 60)),
		 (int)(255 - f * (255 - 130)));
}

static void cells(FILE *out, const struct profile *rows, int nrows, int lo, double bw, double rh,
		  uint64_t most)
{
	char colour[32];

	for (int w = 0; w < nrows; w++)
		for (int i = 0; i < rows[w].n; i++) {
			cell_colour(rows[w].count[i], most, colour, sizeof(colour));
			fprintf(out, "<rect class=\"cell\" data-row=\"%d\" data-bucket=\"%d\" "
				     "data-count=\"%" PRIu64 "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				     "height=\"%.1f\" fill=\"%s\"/>\n",
				w, rows[w].lo + i, rows[w].count[i], L + (rows[w].lo + i - lo) * bw,
				T + w * rh, bw, rh, colour);
		}
}

#define KEY_W 80 /* the heat map's right margin: its colours' key */

/*
 * The colours' key, right of the plot: boxes from 0 to the most calls a
 * cell has, evenly spaced on the same log scale, each with its count.
 */
static void heat_legend(FILE *out, uint64_t most)
{
	char colour[32];
	uint64_t last = UINT64_MAX;
	int x = W - R - KEY_W + 16, y = T;

	fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#555\">calls</text>\n", x, T - 6);
	for (int i = 0; i < 6; i++) {
		uint64_t n = (uint64_t)llround(exp(i / 5.0 * log((double)most + 1)) - 1);
		if (n == last)
			continue;
		last = n;
		cell_colour(n, most, colour, sizeof(colour));
		fprintf(out, "<rect class=\"legend\" data-count=\"%" PRIu64 "\" x=\"%d\" y=\"%d\" "
			     "width=\"16\" height=\"16\" fill=\"%s\" stroke=\"#999\" "
			     "stroke-width=\"0.5\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"11\">%" PRIu64
			     "</text>\n",
			n, x, y, colour, x + 22, y + 12, n);
		y += 20;
	}
}

int svg_heatmap(FILE *out, const struct profile *rows, int nrows, int64_t t0_ns,
		int64_t interval_ns, const char *title, const char *unit)
{
	int lo = nrows ? rows[0].lo : 0, hi = nrows ? rows[0].lo + rows[0].n - 1 : 0;
	int step = nrows > 20 ? (nrows + 19) / 20 : 1;
	uint64_t most = 0;
	double bw = (double)(PW - KEY_W) / (hi - lo + 1), rh = nrows ? (double)PH / nrows : PH;
	char sub[128];

	for (int w = 0; w < nrows; w++)
		for (int i = 0; i < rows[w].n; i++)
			most = rows[w].count[i] > most ? rows[w].count[i] : most;
	snprintf(sub, sizeof(sub), "calls per bucket and %.3g s window (darker: more, log scale)",
		 interval_ns / 1e9);
	head(out, title, sub);
	heat_legend(out, most);
	cells(out, rows, nrows, lo, bw, rh, most);
	for (int w = 0; w < nrows; w += step)
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3f s</text>\n", L - 6,
			T + (w + 0.5) * rh + 4, (t0_ns + (double)w * interval_ns) / 1e9);
	fprintf(out, "<text transform=\"translate(14 %d) rotate(-90)\" text-anchor=\"middle\">"
		     "window start, s from the recording's start</text>\n",
		T + PH / 2);
	x_axis(out, lo, hi, nrows ? rows[0].resolution : 1, unit, bw);
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
