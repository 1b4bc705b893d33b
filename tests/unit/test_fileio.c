/* The shared whole-file reader (modelcore/src/fileio.c: ct_read_file) and
 * contention-admin's atomic writer (admin/common.c: admin_atomic_*). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admin.h"
#include "contention/fileio.h"

typedef struct fx {
    char dir[64];
    char path[128];
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/ct-fileio-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/data", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    DIR *d = opendir(f->dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", f->dir, e->d_name);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void put(const char *path, const char *bytes, size_t n)
{
    FILE *o = fopen(path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(bytes, 1, n, o), n);
    assert_int_equal(fclose(o), 0);
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void test_read_whole_file(void **state)
{
    fx *f = *state;
    put(f->path, "ab\0cd", 5); /* NUL bytes inside are kept */
    char *buf = NULL;
    size_t len = 0;
    ct_err err = {{0}};
    assert_int_equal(ct_read_file(f->path, 100, "x", &buf, &len, &err), 0);
    assert_int_equal(len, 5);
    assert_memory_equal(buf, "ab\0cd", 5);
    assert_int_equal(buf[5], '\0'); /* terminated past the end */
    free(buf);
    /* an empty file is a valid, empty buffer */
    put(f->path, "", 0);
    assert_int_equal(ct_read_file(f->path, 100, "x", &buf, &len, &err), 0);
    assert_int_equal(len, 0);
    assert_non_null(buf);
    assert_int_equal(buf[0], '\0');
    free(buf);
}

static void test_read_size_cap_exact(void **state)
{
    fx *f = *state;
    /* larger than the reader's first chunk, so growth is exercised too */
    size_t max = 40000;
    char *big = malloc(max + 1);
    assert_non_null(big);
    memset(big, 'y', max + 1);
    put(f->path, big, max);
    char *buf = NULL;
    size_t len = 0;
    ct_err err = {{0}};
    assert_int_equal(ct_read_file(f->path, max, "a test file", &buf, &len, &err), 0);
    assert_int_equal(len, max);
    free(buf);
    put(f->path, big, max + 1);
    buf = (char *)1;
    len = 7;
    assert_int_equal(ct_read_file(f->path, max, "a test file", &buf, &len, &err), -1);
    assert_null(buf);
    assert_int_equal(len, 0);
    assert_non_null(strstr(err.msg, "larger than 40000 bytes (accepted: a test file)"));
    assert_non_null(strstr(err.msg, f->path));
    free(big);
}

static void test_read_refusals(void **state)
{
    fx *f = *state;
    char *buf = (char *)1;
    size_t len = 7;
    ct_err err = {{0}};
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none", f->dir);
    assert_int_equal(ct_read_file(missing, 100, "x", &buf, &len, &err), -1);
    assert_null(buf);
    assert_non_null(strstr(err.msg, "/none: cannot open: No such file or directory"));
    /* a directory opens but is not a regular file */
    assert_int_equal(ct_read_file(f->dir, 100, "a signature file", &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file (accepted: a signature file)"));
    /* a device: never read (it would never end) */
    assert_int_equal(ct_read_file("/dev/zero", 100, "x", &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "/dev/zero: not a regular file"));
    /* a FIFO with no writer: refused at once, never waited on (a blocking
     * open would hang here until the test's timeout fails it) */
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s/fifo", f->dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(ct_read_file(fifo, 100, "x", &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "/fifo: not a regular file"));
}

static void test_read_proc_file(void **state)
{
    (void)state;
    /* /proc reports size 0: read until the end, still bounded */
    char *buf = NULL;
    size_t len = 0;
    ct_err err = {{0}};
    assert_int_equal(ct_read_file("/proc/self/cmdline", 1 << 20, "x", &buf, &len, &err), 0);
    assert_true(len > 0);
    assert_non_null(strstr(buf, "test_fileio"));
    free(buf);
    assert_int_equal(ct_read_file("/proc/self/cmdline", 3, "x", &buf, &len, &err), -1);
    assert_non_null(strstr(err.msg, "larger than 3 bytes"));
}

static void test_atomic_replace(void **state)
{
    fx *f = *state;
    put(f->path, "old", 3);
    admin_atomic w;
    assert_int_equal(admin_atomic_open(&w, f->path, 0640), 0);
    /* the temporary file sits beside the target, hidden, until the commit */
    assert_int_equal(strncmp(w.tmp, f->dir, strlen(f->dir)), 0);
    assert_non_null(strstr(w.tmp, "/.data."));
    fputs("new content", w.f);
    assert_int_equal(entries(f->dir), 2);
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(ct_read_file(f->path, 100, "x", &buf, &len, NULL), 0);
    assert_string_equal(buf, "old"); /* readers still see the old file */
    free(buf);
    assert_int_equal(admin_atomic_commit(&w, NULL), 0);
    assert_int_equal(w.renamed, 1);
    assert_int_equal(ct_read_file(f->path, 100, "x", &buf, &len, NULL), 0);
    assert_string_equal(buf, "new content");
    free(buf);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    assert_int_equal(entries(f->dir), 1); /* no temporary file left */
    admin_atomic_abort(&w);               /* harmless after a commit */
    assert_int_equal(entries(f->dir), 1);
}

static void test_atomic_cancel_and_abort(void **state)
{
    fx *f = *state;
    put(f->path, "old", 3);
    admin_atomic w;
    /* a signal arrived: nothing renamed, nothing left */
    assert_int_equal(admin_atomic_open(&w, f->path, 0644), 0);
    fputs("half", w.f);
    volatile sig_atomic_t stop = 2;
    assert_int_equal(admin_atomic_commit(&w, &stop), -1);
    assert_int_equal(errno, EINTR);
    assert_int_equal(w.renamed, 0);
    assert_int_equal(entries(f->dir), 1);
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(ct_read_file(f->path, 100, "x", &buf, &len, NULL), 0);
    assert_string_equal(buf, "old");
    free(buf);
    /* aborted before the commit: same */
    assert_int_equal(admin_atomic_open(&w, f->path, 0644), 0);
    admin_atomic_abort(&w);
    admin_atomic_abort(&w);
    assert_int_equal(entries(f->dir), 1);
    /* a new file in a relative path (no directory part) */
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->dir), 0);
    assert_int_equal(admin_atomic_open(&w, "fresh", 0644), 0);
    assert_int_equal(strncmp(w.tmp, ".fresh.", 7), 0);
    assert_int_equal(admin_atomic_commit(&w, NULL), 0);
    assert_int_equal(access("fresh", F_OK), 0);
    assert_int_equal(chdir(cwd), 0);
    /* a directory that does not exist: open fails, errno says why */
    char nodir[200];
    snprintf(nodir, sizeof nodir, "%s/no/such", f->dir);
    assert_int_equal(admin_atomic_open(&w, nodir, 0644), -1);
    assert_int_equal(errno, ENOENT);
    assert_string_equal(w.tmp, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_read_whole_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_size_cap_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_refusals, setup, teardown),
        cmocka_unit_test(test_read_proc_file),
        cmocka_unit_test_setup_teardown(test_atomic_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_atomic_cancel_and_abort, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
