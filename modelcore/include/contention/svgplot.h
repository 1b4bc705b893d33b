/* A small SVG line-plot writer (no external library): several series of
 * (x, y) points on a log-x axis, y linear or log, with ticks, a legend and
 * a title. Used by `contention-admin fit --plot` to draw measured against
 * fitted times per process count. */
#ifndef CONTENTION_SVGPLOT_H
#define CONTENTION_SVGPLOT_H

#include <stddef.h>
#include <stdio.h>

#include "contention/error.h"

typedef enum ct_svg_style {
    CT_SVG_LINE = 1,    /* a polyline through the points */
    CT_SVG_MARKERS = 2, /* a circle at each point */
    CT_SVG_BOTH = 3,
} ct_svg_style;

typedef struct ct_svg_series {
    const char *label; /* legend text (escaped on output), may be NULL */
    const double *x;
    const double *y;
    size_t n;
    ct_svg_style style;
    int color;  /* palette index (series of one process count share it) */
    int dashed; /* 1: dashed line */
} ct_svg_series;

typedef struct ct_svg_plot {
    const char *title;
    const char *xlabel;
    const char *ylabel;
    int width, height; /* pixels; 0 picks 760 x 480 */
    int x_bytes;       /* 1: x is a size in bytes, ticks at powers of two labelled 1K, 1M... */
    int logy;          /* 1: log y axis (needs y > 0), else linear from 0 */
} ct_svg_plot;

/* Write the plot as a standalone SVG document. Every x must be finite and
 * > 0 (log axis); every y finite (and > 0 when logy). Series with n = 0 are
 * skipped; at least one point is needed. */
int ct_svg_write(FILE *f, const ct_svg_plot *plot, const ct_svg_series *s, size_t ns, ct_err *err);

/* Write s with XML special characters escaped (&, <, >, ", '). */
void ct_svg_escape(FILE *f, const char *s);

#endif
