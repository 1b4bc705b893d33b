/* Helpers shared by the tests that drive contention-admin as a program
 * (test_admin.c, test_install.c): run the binary meson built, capture its
 * exit status, stdout and stderr, and check them. Include after <cmocka.h>. */
#ifndef CT_TEST_RUN_H
#define CT_TEST_RUN_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ADMIN CT_BUILD_ROOT "/admin/contention-admin"

typedef struct result {
    int status; /* exit status, or -1 if it did not exit normally */
    char *out, *err;
} result;

static inline char *read_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    lseek(fd, 0, SEEK_SET);
    ssize_t r;
    while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)r;
        if (len + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[len] = '\0';
    return buf;
}

/* Run ADMIN with args (NULL-terminated), stdout and stderr to temp files. */
static inline result run(const char *first, ...)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = ADMIN;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 63; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    char o[] = "/tmp/ct-test-out-XXXXXX", e[] = "/tmp/ct-test-err-XXXXXX";
    int fo = mkstemp(o), fe = mkstemp(e);
    assert_true(fo >= 0 && fe >= 0);
    unlink(o);
    unlink(e);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fo, 1);
        dup2(fe, 2);
        execv(ADMIN, (char *const *)argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    result r = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, read_fd(fo), read_fd(fe)};
    close(fo);
    close(fe);
    return r;
}

static inline void done(result *r)
{
    free(r->out);
    free(r->err);
}

static inline void expect_status(const result *r, int status)
{
    if (r->status != status) {
        print_error("exit %d, wanted %d\nstdout:\n%s\nstderr:\n%s\n", r->status, status, r->out,
                    r->err);
        fail();
    }
}

static inline void expect_in(const char *hay, const char *needle)
{
    if (!strstr(hay, needle)) {
        print_error("output lacks '%s':\n%s\n", needle, hay);
        fail();
    }
}

static inline void expect_not_in(const char *hay, const char *needle)
{
    if (strstr(hay, needle)) {
        print_error("output has '%s':\n%s\n", needle, hay);
        fail();
    }
}

#endif
