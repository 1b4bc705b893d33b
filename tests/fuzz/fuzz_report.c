/* libFuzzer harness for `contention-admin report`'s reader of the plugin's
 * decision log (admin/cmd_report.c; the format in doc/plugin.md, "Decision
 * log"), whose lines carry what users chose (pattern names, trace paths in
 * messages, %XX-escaped) and may sit among other programs' syslog lines.
 * The input is the log; the command reads it from a memory file and its
 * --json output is caught in memory. Beyond "never crash, never leak, never
 * hang" it checks the output: one JSON object whose counts are consistent
 * (applied and scored at most the steps, changed at most the applied, the
 * steps at most the input's lines; TCP mismatches at most the steps that
 * knew both TCPs, those at most the steps) and whose predicted time saved is a finite
 * number, with no raw control character anywhere (json_str escapes them). */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "admin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz.log", 0);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char *out = NULL;
    size_t outlen = 0;
    FILE *mem = open_memstream(&out, &outlen), *saved = stdout;
    if (!mem) {
        close(fd);
        return 0;
    }
    stdout = mem;
    char a0[] = "report", a1[] = "--json";
    char *argv[] = {a0, a1, path, NULL};
    optind = 0; /* getopt starts over at every call */
    int rc = cmd_report(3, argv);
    fflush(mem);
    stdout = saved;
    fclose(mem);
    close(fd);
    if (rc != 0)
        abort(); /* a readable file is always reported */
    long steps, applied, changed, scored;
    double saved_s;
    if (sscanf(out, "{\"steps\": %ld, \"applied\": %ld, \"changed\": %ld, \"scored\": %ld, "
                    "\"predicted_saved_s\": %lf,",
               &steps, &applied, &changed, &scored, &saved_s) != 5)
        abort();
    long lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (size && data[size - 1] != '\n')
        lines++;
    if (steps < 0 || applied > steps || scored > steps || changed > applied || steps > lines ||
        !isfinite(saved_s))
        abort();
    /* the TCP keys (session 63): mismatches among the steps that knew both */
    long tcp_known, tcp_mismatch;
    const char *t = strstr(out, "\"tcp_known\": ");
    if (!t || sscanf(t, "\"tcp_known\": %ld, \"tcp_mismatch\": %ld,", &tcp_known,
                     &tcp_mismatch) != 2 ||
        tcp_mismatch < 0 || tcp_mismatch > tcp_known || tcp_known > steps)
        abort();
    for (size_t i = 0; i < outlen; i++)
        if ((unsigned char)out[i] < 0x20 && out[i] != '\n')
            abort();
    if (outlen < 2 || out[outlen - 2] != '}' || out[outlen - 1] != '\n')
        abort();
    free(out);
    return 0;
}
