#include "contention/svgplot.h"

#include <math.h>
#include <string.h>

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NPALETTE (sizeof palette / sizeof palette[0])

void ct_svg_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            /* XML 1.0 forbids most C0 controls even escaped */
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                fputc('?', f);
            else
                fputc(*s, f);
        }
    }
}

typedef struct axis {
    double lo, hi; /* data range after padding (log10 units when log) */
    int log;
    double p0, p1; /* pixel positions of lo and hi */
} axis;

static double to_px(const axis *a, double v)
{
    double u = a->log ? log10(v) : v;
    return a->p0 + (u - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static void size_label(char *buf, size_t sz, double v)
{
    static const char *const suf[] = {"", "K", "M", "G", "T"};
    int k = 0;
    while (v >= 1024 && k < 4) {
        v /= 1024;
        k++;
    }
    snprintf(buf, sz, "%g%s", v, suf[k]);
}

/* 1, 2 or 5 times a power of ten, close to range/target */
static double nice_step(double range, int target)
{
    double raw = range / target;
    double mag = pow(10, floor(log10(raw)));
    double r = raw / mag;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

static void tick(FILE *f, int vertical, double px, double a0, double a1, const char *label)
{
    if (vertical) { /* x tick: grid line from top to bottom */
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n",
                px, a0, px, a1);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px, a1 + 16);
    } else {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n",
                a0, px, a1, px);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", a0 - 6, px + 4);
    }
    ct_svg_escape(f, label);
    fputs("</text>\n", f);
}

int ct_svg_write(FILE *f, const ct_svg_plot *plot, const ct_svg_series *s, size_t ns, ct_err *err)
{
    static const ct_svg_plot defaults = {0};
    if (!plot)
        plot = &defaults;
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    size_t npts = 0;
    for (size_t i = 0; i < ns; i++) {
        if (s[i].n && (!s[i].x || !s[i].y))
            return ct_err_set(err, "plot series %zu ('%s') has no data arrays", i,
                              s[i].label ? s[i].label : "");
        for (size_t j = 0; j < s[i].n; j++) {
            double x = s[i].x[j], y = s[i].y[j];
            if (!isfinite(x) || !(x > 0))
                return ct_err_set(err,
                                  "plot series '%s' point %zu has x = %g (accepted: finite "
                                  "x > 0 on the log x axis)",
                                  s[i].label ? s[i].label : "", j, x);
            if (!isfinite(y) || (plot->logy && !(y > 0)))
                return ct_err_set(err,
                                  "plot series '%s' point %zu has y = %g (accepted: finite "
                                  "y%s)",
                                  s[i].label ? s[i].label : "", j, y,
                                  plot->logy ? " > 0 on the log y axis" : "");
            xmin = fmin(xmin, x);
            xmax = fmax(xmax, x);
            ymin = fmin(ymin, y);
            ymax = fmax(ymax, y);
            npts++;
        }
    }
    if (!npts)
        return ct_err_set(err, "nothing to plot (accepted: at least one point)");

    int W = plot->width > 0 ? plot->width : 760, H = plot->height > 0 ? plot->height : 480;
    if (W < 200 || H < 150 || W > 20000 || H > 20000)
        return ct_err_set(err, "plot size %dx%d (accepted: 200x150 to 20000x20000 pixels)", W, H);
    const double left = 80, right = 190, top = 40, bottom = 60;
    axis ax = {log10(xmin), log10(xmax), 1, left, W - right};
    if (ax.hi - ax.lo < 1e-9) {
        ax.lo -= 0.5;
        ax.hi += 0.5;
    }
    axis ay;
    ay.log = plot->logy;
    ay.p0 = H - bottom;
    ay.p1 = top;
    if (ay.log) {
        ay.lo = floor(log10(ymin));
        ay.hi = ceil(log10(ymax));
        if (ay.hi - ay.lo < 1)
            ay.hi = ay.lo + 1;
    } else {
        ay.lo = fmin(0, ymin);
        ay.hi = ymax > ay.lo ? ymax : ay.lo + 1;
        double st = nice_step(ay.hi - ay.lo, 5);
        ay.lo = floor(ay.lo / st) * st;
        ay.hi = ceil(ay.hi / st) * st;
        if (!isfinite(ay.hi - ay.lo) || !(ay.hi > ay.lo))
            return ct_err_set(err,
                              "y range %g to %g cannot be drawn (accepted: values of "
                              "ordinary magnitude)",
                              ymin, ymax);
    }

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    if (plot->title) {
        fprintf(f, "<text x=\"%.1f\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">",
                (left + W - right) / 2);
        ct_svg_escape(f, plot->title);
        fputs("</text>\n", f);
    }

    fputs("<g class=\"ticks\">\n", f);
    char label[32];
    if (plot->x_bytes) {
        /* powers of two, every 2^k so that about 8 ticks show */
        int e0 = (int)ceil(ax.lo / log10(2) - 1e-9), e1 = (int)floor(ax.hi / log10(2) + 1e-9);
        int step = 1;
        while ((e1 - e0) / step > 8)
            step++;
        for (int e = e0; e <= e1; e++) {
            if (((e % step) + step) % step)
                continue;
            double v = ldexp(1.0, e);
            size_label(label, sizeof label, v);
            tick(f, 1, to_px(&ax, v), top, H - bottom, label);
        }
    } else {
        for (int e = (int)ceil(ax.lo - 1e-9); e <= (int)floor(ax.hi + 1e-9); e++) {
            snprintf(label, sizeof label, "%g", pow(10, e));
            tick(f, 1, to_px(&ax, pow(10, e)), top, H - bottom, label);
        }
    }
    if (ay.log) {
        int step = 1;
        while ((ay.hi - ay.lo) / step > 8)
            step++;
        for (int e = (int)ay.lo; e <= (int)ay.hi; e += step) {
            snprintf(label, sizeof label, "%g", pow(10, e));
            tick(f, 0, to_px(&ay, pow(10, e)), left, W - right, label);
        }
    } else {
        double st = nice_step(ay.hi - ay.lo, 5);
        for (int k = 0; k <= 12; k++) {
            double v = ay.lo + k * st;
            if (v > ay.hi + st * 1e-9)
                break;
            snprintf(label, sizeof label, "%g", fabs(v) < st * 1e-9 ? 0.0 : v);
            tick(f, 0, to_px(&ay, v), left, W - right, label);
        }
    }
    fputs("</g>\n", f);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"black\"/>\n",
            left, top, W - right - left, H - bottom - top);
    if (plot->xlabel) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (left + W - right) / 2,
                (double)H - 18);
        ct_svg_escape(f, plot->xlabel);
        fputs("</text>\n", f);
    }
    if (plot->ylabel) {
        fprintf(f,
                "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" "
                "transform=\"rotate(-90 18 %.1f)\">",
                (top + H - bottom) / 2, (top + H - bottom) / 2);
        ct_svg_escape(f, plot->ylabel);
        fputs("</text>\n", f);
    }

    size_t legend = 0;
    for (size_t i = 0; i < ns; i++) {
        if (!s[i].n)
            continue;
        const char *col = palette[(size_t)(s[i].color < 0 ? 0 : s[i].color) % NPALETTE];
        const char *dash = s[i].dashed ? " stroke-dasharray=\"6 4\"" : "";
        fprintf(f, "<g class=\"series\">\n");
        if (s[i].style & CT_SVG_LINE) {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"",
                    col, dash);
            for (size_t j = 0; j < s[i].n; j++)
                fprintf(f, "%s%.2f,%.2f", j ? " " : "", to_px(&ax, s[i].x[j]),
                        to_px(&ay, s[i].y[j]));
            fputs("\"/>\n", f);
        }
        if (s[i].style & CT_SVG_MARKERS) {
            for (size_t j = 0; j < s[i].n; j++)
                fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\"/>\n",
                        to_px(&ax, s[i].x[j]), to_px(&ay, s[i].y[j]), col);
        }
        if (s[i].label) {
            double lx = W - right + 14, ly = top + 10 + 18 * (double)legend++;
            if (s[i].style & CT_SVG_LINE)
                fprintf(f,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"1.5\"%s/>\n",
                        lx, ly, lx + 22, ly, col, dash);
            if (s[i].style & CT_SVG_MARKERS)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", lx + 11, ly,
                        col);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", lx + 28, ly + 4);
            ct_svg_escape(f, s[i].label);
            fputs("</text>\n", f);
        }
        fputs("</g>\n", f);
    }
    fputs("</svg>\n", f);
    if (ferror(f))
        return ct_err_set(err, "write error while writing the plot");
    return 0;
}
