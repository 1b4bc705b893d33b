/* The SVG line-plot writer (modelcore/src/svgplot.c): document structure,
 * log-x / linear-or-log-y mapping read back from the coordinates it writes,
 * escaping, and refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention/svgplot.h"

static char *render(const ct_svg_plot *p, const ct_svg_series *s, size_t ns)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    ct_err err;
    int rc = ct_svg_write(m, p, s, ns, &err);
    if (rc)
        print_error("%s\n", err.msg);
    assert_int_equal(rc, 0);
    fclose(m);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, nl = strlen(needle);
    /* walk by offset: GCC 12 -Wdangling-pointer misreads a pointer walk here */
    for (size_t off = 0; hay[off]; off++)
        n += strncmp(hay + off, needle, nl) == 0;
    return n;
}

/* Coordinates of the k-th polyline. */
static size_t polyline_points(const char *svg, size_t k, double *x, double *y, size_t max)
{
    const char *p = svg;
    for (size_t i = 0; i <= k; i++) {
        p = strstr(p, "<polyline");
        assert_non_null(p);
        p++;
    }
    p = strstr(p, "points=\"");
    assert_non_null(p);
    p += 8;
    size_t n = 0;
    while (*p != '"' && n < max) {
        char *end;
        x[n] = strtod(p, &end);
        assert_true(*end == ',');
        y[n] = strtod(end + 1, &end);
        n++;
        p = end;
        while (*p == ' ')
            p++;
    }
    return n;
}

static void test_structure_and_counts(void **state)
{
    (void)state;
    double x[] = {1024, 4096, 16384, 65536}, y1[] = {1, 2, 3, 4}, y2[] = {1.5, 2.5, 3.5, 4.5};
    ct_svg_series s[] = {
        {"measured", x, y1, 4, CT_SVG_MARKERS, 0, 0},
        {"fitted", x, y2, 4, CT_SVG_LINE, 0, 0},
        {"both", x, y2, 3, CT_SVG_BOTH, 1, 1},
        {"empty", x, y1, 0, CT_SVG_BOTH, 2, 0},
    };
    ct_svg_plot p = {"title", "x", "y", 0, 0, 1, 0};
    char *svg = render(&p, s, 4);
    assert_true(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0);
    size_t l = strlen(svg);
    assert_string_equal(svg + l - 7, "</svg>\n");
    assert_int_equal(count(svg, "<svg"), 1);
    assert_int_equal(count(svg, "<polyline"), 2); /* fitted, both */
    /* markers: 4 + 3 points, plus one legend marker per marker series */
    assert_int_equal(count(svg, "<circle"), 4 + 3 + 2);
    assert_int_equal(count(svg, "<g"), count(svg, "</g>"));
    assert_int_equal(count(svg, "<text"), count(svg, "</text>"));
    assert_int_equal(count(svg, "stroke-dasharray"), 2); /* dashed line + its legend */
    assert_non_null(strstr(svg, ">fitted</text>"));
    assert_null(strstr(svg, ">empty</text>")); /* skipped series: no legend */
    /* byte axis: power-of-two ticks labelled with binary suffixes */
    assert_non_null(strstr(svg, ">1K</text>"));
    assert_non_null(strstr(svg, ">64K</text>"));
    double px[8], py[8];
    assert_int_equal(polyline_points(svg, 0, px, py, 8), 4);
    assert_int_equal(polyline_points(svg, 1, px, py, 8), 3);
    free(svg);
}

/* Log x: each factor of 4 is the same distance. Linear y: equal steps in y
 * are equal steps in pixels, upward. Log y: each decade the same distance. */
static void test_axes_mapping(void **state)
{
    (void)state;
    double x[] = {1, 4, 16, 64, 256}, ylin[] = {10, 20, 30, 40, 50},
           ylog[] = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2};
    ct_svg_series s = {"s", x, ylin, 5, CT_SVG_LINE, 0, 0};
    ct_svg_plot p = {NULL, NULL, NULL, 800, 500, 0, 0};
    char *svg = render(&p, &s, 1);
    double px[5], py[5];
    assert_int_equal(polyline_points(svg, 0, px, py, 5), 5);
    double dx = px[1] - px[0], dy = py[1] - py[0];
    assert_true(dx > 0 && dy < 0);
    for (int i = 1; i < 5; i++) {
        /* coordinates are printed with 2 decimals: tolerance 0.02 px */
        assert_true(fabs(px[i] - px[i - 1] - dx) < 0.02);
        assert_true(fabs(py[i] - py[i - 1] - dy) < 0.02);
        assert_true(px[i] >= 0 && px[i] <= 800 && py[i] >= 0 && py[i] <= 500);
    }
    free(svg);

    s.y = ylog;
    p.logy = 1;
    svg = render(&p, &s, 1);
    assert_int_equal(polyline_points(svg, 0, px, py, 5), 5);
    dy = py[1] - py[0];
    assert_true(dy < 0);
    for (int i = 1; i < 5; i++)
        assert_true(fabs(py[i] - py[i - 1] - dy) < 0.02);
    assert_non_null(strstr(svg, ">1e-06</text>")); /* decade tick labels */
    free(svg);

    /* a single point: ranges are widened, nothing divides by zero */
    double one = 5;
    ct_svg_series s1 = {"one", &one, &one, 1, CT_SVG_BOTH, 0, 0};
    p.logy = 0;
    svg = render(&p, &s1, 1);
    assert_int_equal(polyline_points(svg, 0, px, py, 5), 1);
    assert_true(isfinite(px[0]) && isfinite(py[0]));
    free(svg);
}

static void test_escaping(void **state)
{
    (void)state;
    double x[] = {1, 2}, y[] = {1, 2};
    ct_svg_series s = {"<n=2 & \"q\" 'a'>", x, y, 2, CT_SVG_LINE, 0, 0};
    ct_svg_plot p = {"a<b", "x&y", NULL, 0, 0, 0, 0};
    char *svg = render(&p, &s, 1);
    assert_non_null(strstr(svg, "&lt;n=2 &amp; &quot;q&quot; &apos;a&apos;&gt;"));
    assert_non_null(strstr(svg, ">a&lt;b</text>"));
    assert_non_null(strstr(svg, ">x&amp;y</text>"));
    assert_null(strstr(svg, "<n=2"));
    free(svg);
}

static void expect_refusal(const ct_svg_plot *p, const ct_svg_series *s, size_t ns,
                           const char *what)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ct_err err;
    assert_int_equal(ct_svg_write(m, p, s, ns, &err), -1);
    fclose(m);
    if (!strstr(err.msg, what)) {
        print_error("message '%s' lacks '%s'\n", err.msg, what);
        fail();
    }
    free(buf);
}

static void test_refusals(void **state)
{
    (void)state;
    double x[] = {1, 0}, y[] = {1, 2}, ybad[] = {1, NAN}, xok[] = {1, 2}, yzero[] = {0, 1};
    ct_svg_plot p = {NULL, NULL, NULL, 0, 0, 0, 0};
    ct_svg_series s = {"a", x, y, 2, CT_SVG_LINE, 0, 0};
    expect_refusal(&p, &s, 1,
                   "plot series 'a' point 1 has x = 0 (accepted: finite x > 0 on the log x axis)");
    s.x = xok;
    s.y = ybad;
    expect_refusal(&p, &s, 1, "point 1 has y = nan (accepted: finite y)");
    s.y = yzero;
    p.logy = 1;
    expect_refusal(&p, &s, 1, "point 0 has y = 0 (accepted: finite y > 0 on the log y axis)");
    s.n = 0;
    expect_refusal(&p, &s, 1, "nothing to plot");
    expect_refusal(&p, NULL, 0, "nothing to plot");
    s.n = 2;
    s.y = y;
    p.width = 50;
    expect_refusal(&p, &s, 1, "plot size 50x480");
    p.width = 0;
    ct_svg_series nodata = {"z", NULL, NULL, 3, CT_SVG_LINE, 0, 0};
    expect_refusal(&p, &nodata, 1, "has no data arrays");
    double huge[] = {-1e308, 1e308};
    s.y = huge;
    p.logy = 0;
    expect_refusal(&p, &s, 1, "cannot be drawn");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structure_and_counts),
        cmocka_unit_test(test_axes_mapping),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
