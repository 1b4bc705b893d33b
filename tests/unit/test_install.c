/* `contention-admin install`, driven as a program: an invalid file leaves
 * the installed one intact; a reader racing with repeated installs only
 * ever loads a whole, valid file; a world-writable destination (file or
 * directory) and a symbolic link are refused; the previous version is kept
 * as a timestamped backup; the changes are reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contention/signatures.h"
#include "ct_test_run.h"

#define CONF CT_SOURCE_ROOT "/conf/signatures.yaml"
#define SIG CT_FIXTURES "/signatures/"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(8 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 8 << 20, f);
    fclose(f);
    return buf;
}

static int same_bytes(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = slurp(a, &la), *y = slurp(b, &lb);
    int same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

typedef struct dirstate {
    int files, backups, temps;
    char backup[512];
} dirstate;

/* What the destination directory holds: dest, its backups (dest.STAMP[.N]),
 * and leftover temporary files (.dest.XXXXXX). */
static dirstate scan(const char *dir, const char *base)
{
    dirstate s = {0, 0, 0, ""};
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    size_t bl = strlen(base);
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0))
            continue;
        s.files++;
        if (strncmp(e->d_name, base, bl) == 0 && e->d_name[bl] == '.') {
            s.backups++;
            snprintf(s.backup, sizeof s.backup, "%s/%s", dir, e->d_name);
        }
        if (e->d_name[0] == '.')
            s.temps++;
    }
    closedir(d);
    return s;
}

typedef struct fixture {
    char dir[64];
    char dest[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/ct-install-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    chmod(f->dir, 0755);
    snprintf(f->dest, sizeof f->dest, "%s/signatures.yaml", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    chmod(f->dir, 0755);
    DIR *d = opendir(f->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char p[512];
                snprintf(p, sizeof p, "%s/%s", f->dir, e->d_name);
                if (unlink(p) < 0) { /* a sub-directory made by a test */
                    char q[600];
                    snprintf(q, sizeof q, "%s/signatures.yaml", p);
                    unlink(q);
                    rmdir(p);
                }
            }
        }
        closedir(d);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static void test_install_backup_and_changes(void **state)
{
    fixture *f = *state;
    result r = run("install", CONF, "--dest", f->dest, NULL);
    expect_status(&r, 0);
    expect_in(r.out, "+ added fabric fast_ethernet");
    expect_in(r.out, "(new file)");
    done(&r);
    assert_true(same_bytes(CONF, f->dest));
    struct stat st;
    assert_int_equal(stat(f->dest, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    dirstate s = scan(f->dir, "signatures.yaml");
    assert_int_equal(s.files, 1);

    /* the same content again: nothing to do, no backup */
    r = run("install", CONF, "--dest", f->dest, NULL);
    expect_status(&r, 0);
    expect_in(r.out, "already holds this content; nothing to do");
    done(&r);
    assert_int_equal(scan(f->dir, "signatures.yaml").files, 1);

    /* different content: backup of the old bytes, changes listed */
    r = run("install", SIG "valid_full.yaml", "--dest", f->dest, NULL);
    expect_status(&r, 0);
    expect_in(r.out, "+ added fabric eth0");
    expect_in(r.out, "- removed fabric fast_ethernet");
    expect_in(r.out, "+ partition debug -> eth0");
    expect_in(r.out, "~ default: gigabit_ethernet -> ib0");
    expect_in(r.out, "previous version kept as ");
    done(&r);
    assert_true(same_bytes(SIG "valid_full.yaml", f->dest));
    s = scan(f->dir, "signatures.yaml");
    assert_int_equal(s.backups, 1);
    assert_int_equal(s.temps, 0);
    assert_true(same_bytes(CONF, s.backup));
    /* backup name: dest.YYYYmmdd-HHMMSS */
    const char *stamp = s.backup + strlen(f->dest) + 1;
    assert_int_equal(strlen(stamp), 15);
    assert_true(stamp[8] == '-');

    /* one value changed: that fabric and key are named */
    size_t len = 0;
    char *text = slurp(SIG "valid_full.yaml", &len);
    char *g = strstr(text, "gamma: 3.5");
    assert_non_null(g);
    memcpy(g, "gamma: 3.6", 10);
    char mod[256];
    snprintf(mod, sizeof mod, "%s/../ct-install-mod-%d.yaml", f->dir, (int)getpid());
    FILE *m = fopen(mod, "wb");
    fwrite(text, 1, len, m);
    fclose(m);
    free(text);
    r = run("install", mod, "--dest", f->dest, NULL);
    expect_status(&r, 0);
    expect_in(r.out, "~ changed fabric eth0: alltoall.gamma");
    assert_null(strstr(r.out, "added"));
    done(&r);
    assert_int_equal(scan(f->dir, "signatures.yaml").backups, 2);
    unlink(mod);

    /* --dry-run writes nothing */
    r = run("install", CONF, "--dest", f->dest, "--dry-run", NULL);
    expect_status(&r, 0);
    expect_in(r.out, "would install");
    expect_in(r.out, "dry run: nothing written");
    done(&r);
    assert_int_equal(scan(f->dir, "signatures.yaml").backups, 2);
}

/* An invalid file changes nothing: same bytes, no backup, no temp file. */
static void test_invalid_file_leaves_installed_intact(void **state)
{
    fixture *f = *state;
    result r = run("install", CONF, "--dest", f->dest, NULL);
    expect_status(&r, 0);
    done(&r);
    const char *bad[] = {"bad_negative.yaml", "bad_syntax.yaml", "bad_empty.yaml",
                         "bad_future_version.yaml"};
    for (size_t i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, SIG "%s", bad[i]);
        r = run("install", path, "--dest", f->dest, NULL);
        expect_status(&r, 1);
        expect_in(r.err, path);
        expect_in(r.err, "nothing installed; ");
        done(&r);
        assert_true(same_bytes(CONF, f->dest));
        dirstate s = scan(f->dir, "signatures.yaml");
        assert_int_equal(s.files, 1);
    }
    /* nor is a destination created for an invalid file */
    char fresh[256];
    snprintf(fresh, sizeof fresh, "%s/new.yaml", f->dir);
    r = run("install", SIG "bad_alias.yaml", "--dest", fresh, NULL);
    expect_status(&r, 1);
    done(&r);
    assert_int_equal(access(fresh, F_OK), -1);
    r = run("install", "/nonexistent.yaml", "--dest", fresh, NULL);
    expect_status(&r, 1);
    done(&r);
    r = run("install", NULL);
    expect_status(&r, 2);
    done(&r);
    r = run("install", CONF, CONF, "--dest", fresh, NULL);
    expect_status(&r, 2);
    done(&r);
}

static void test_refuses_unsafe_destinations(void **state)
{
    fixture *f = *state;
    result r = run("install", CONF, "--dest", f->dest, NULL);
    expect_status(&r, 0);
    done(&r);

    /* world-writable file */
    chmod(f->dest, 0666);
    r = run("install", SIG "valid_full.yaml", "--dest", f->dest, NULL);
    expect_status(&r, 1);
    expect_in(r.err, "refusing to replace world-writable");
    done(&r);
    assert_true(same_bytes(CONF, f->dest));
    chmod(f->dest, 0644);

    /* world-writable directory (even with the sticky bit) */
    chmod(f->dir, 01777);
    r = run("install", SIG "valid_full.yaml", "--dest", f->dest, NULL);
    expect_status(&r, 1);
    expect_in(r.err, "refusing to install into world-writable directory");
    done(&r);
    chmod(f->dir, 0755);
    assert_true(same_bytes(CONF, f->dest));
    assert_int_equal(scan(f->dir, "signatures.yaml").files, 1);

    /* a symbolic link */
    char link_path[256];
    snprintf(link_path, sizeof link_path, "%s/link.yaml", f->dir);
    assert_int_equal(symlink(f->dest, link_path), 0);
    r = run("install", SIG "valid_full.yaml", "--dest", link_path, NULL);
    expect_status(&r, 1);
    expect_in(r.err, "it is a symbolic link");
    done(&r);
    assert_true(same_bytes(CONF, f->dest));

    /* a missing directory (one level) is created 0755 */
    char sub[256], subdest[300];
    snprintf(sub, sizeof sub, "%s/contention", f->dir);
    snprintf(subdest, sizeof subdest, "%s/signatures.yaml", sub);
    r = run("install", CONF, "--dest", subdest, NULL);
    expect_status(&r, 0);
    done(&r);
    struct stat st;
    assert_int_equal(stat(sub, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);
    assert_true(same_bytes(CONF, subdest));
}

/* A big valid file, so that a non-atomic replace would be caught half-way:
 * the GigE fabric of conf/signatures.yaml and ~256 KiB of comments. */
static void write_big(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("version: 1\nfabrics:\n", f);
    for (int i = 0; i < 4000; i++)
        fprintf(f, "# padding line %05d so that a torn write is a truncated file .............\n",
                i);
    fputs("  big:\n    p2p: {alpha_us: 50, bandwidth_MBps: 125}\n"
          "    alltoall: {gamma: 4.3628, delta_us: 4930, M_bytes: 8192}\n"
          "default: big\n",
          f);
    fclose(f);
}

/* A child loads the installed file in a loop while the parent installs two
 * different versions back and forth. Every load must succeed and equal one
 * of the two versions: rename(2) never exposes a partial file. */
static void test_reader_racing_install_sees_whole_files(void **state)
{
    fixture *f = *state;
    char big[256];
    snprintf(big, sizeof big, "%s/../ct-install-big-%d.yaml", f->dir, (int)getpid());
    write_big(big);
    ct_sigfile va, vb;
    ct_err err;
    assert_int_equal(ct_sigfile_load(CONF, &va, &err), 0);
    assert_int_equal(ct_sigfile_load(big, &vb, &err), 0);

    result r = run("install", CONF, "--dest", f->dest, NULL);
    expect_status(&r, 0);
    done(&r);

    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    char stop[300];
    snprintf(stop, sizeof stop, "%s.stop", big);
    unlink(stop);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        long loads = 0, bad = 0, seen_a = 0, seen_b = 0;
        char first_err[CT_ERR_MAX] = "";
        while (access(stop, F_OK) != 0) {
            ct_sigfile s;
            ct_err e;
            if (ct_sigfile_load(f->dest, &s, &e) < 0) {
                if (!bad++)
                    memcpy(first_err, e.msg, sizeof first_err);
            } else {
                if (ct_sigfile_equal(&s, &va))
                    seen_a++;
                else if (ct_sigfile_equal(&s, &vb))
                    seen_b++;
                else if (!bad++)
                    snprintf(first_err, sizeof first_err, "loaded a third version");
                ct_sigfile_free(&s);
            }
            loads++;
        }
        char msg[CT_ERR_MAX + 100];
        int n =
            snprintf(msg, sizeof msg, "%ld %ld %ld %ld %s", loads, bad, seen_a, seen_b, first_err);
        if (write(pfd[1], msg, (size_t)n) < 0)
            _exit(2);
        _exit(0);
    }
    close(pfd[1]);
    const int rounds = 30;
    for (int i = 0; i < rounds; i++) {
        r = run("install", i % 2 ? CONF : big, "--dest", f->dest, NULL);
        expect_status(&r, 0);
        done(&r);
    }
    FILE *s = fopen(stop, "w");
    fclose(s);
    char msg[CT_ERR_MAX + 100] = "";
    ssize_t n = read(pfd[0], msg, sizeof msg - 1);
    close(pfd[0]);
    int st;
    waitpid(pid, &st, 0);
    unlink(stop);
    assert_true(n > 0);
    msg[n] = '\0';
    long loads, bad, seen_a, seen_b;
    assert_int_equal(sscanf(msg, "%ld %ld %ld %ld", &loads, &bad, &seen_a, &seen_b), 4);
    print_message("reader: %ld loads (%ld of one version, %ld of the other), %ld bad\n", loads,
                  seen_a, seen_b, bad);
    if (bad) {
        print_error("reader saw %ld bad loads: %s\n", bad, msg);
        fail();
    }
    assert_true(loads > 0);
    assert_int_equal(seen_a + seen_b, loads);
    /* each replacing install kept one backup, and no temp file is left */
    dirstate ds = scan(f->dir, "signatures.yaml");
    assert_int_equal(ds.backups, rounds);
    assert_int_equal(ds.temps, 0);
    ct_sigfile_free(&va);
    ct_sigfile_free(&vb);
    unlink(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_install_backup_and_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_file_leaves_installed_intact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_unsafe_destinations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_racing_install_sees_whole_files, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
