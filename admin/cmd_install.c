/* contention-admin install FILE [--dest PATH]: validate FILE, then replace
 * the installed signature file atomically.
 *
 * The bytes validated are the bytes installed (FILE is read once). The new
 * content goes to a temporary file in the destination's directory, is
 * fsync'ed, then rename(2)d over the destination, and the directory is
 * fsync'ed: a reader (the plugin, at any job start) opens either the old
 * file or the new one, never a partial one. The previous version stays as
 * DEST.YYYYmmdd-HHMMSS (a hard link to the old inode, or a copy). Installs
 * are serialised by flock(2) on the directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"

#define CMD "install"
#define SIG_ACCEPTED "a signature file of at most 4 MiB"

static void help(void)
{
    printf("Usage: contention-admin install FILE [--dest PATH] [--dry-run]\n\n"
           "Validate FILE, then atomically replace the installed signature file\n"
           "(default %s) with it:\n"
           "a temporary file in the same directory is written and fsync'ed, renamed over\n"
           "PATH, and the directory fsync'ed, so readers never see a partial file. The\n"
           "previous version is kept as PATH.YYYYmmdd-HHMMSS. Prints which fabrics were\n"
           "added, removed or changed. Refuses a world-writable PATH or directory, and a\n"
           "PATH that is a symbolic link. A missing directory (one level) is created 0755.\n\n"
           "  --dest PATH   install to PATH\n"
           "  --dry-run     validate and print the changes, write nothing\n\n"
           "Exit status: 0 installed (or nothing to change), 1 invalid FILE or refused\n"
           "destination (PATH untouched), 2 usage error.\n",
           CT_DEFAULT_SIGNATURES);
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

static const char *pname(const ct_sigfile *sf, size_t i)
{
    return sf->fabrics[sf->parts[i].fabric].name;
}

static const char *part_fabric(const ct_sigfile *sf, const char *partition)
{
    for (size_t i = 0; i < sf->nparts; i++)
        if (strcmp(sf->parts[i].partition, partition) == 0)
            return pname(sf, i);
    return NULL;
}

static void print_changes(const ct_sigfile *old, const ct_sigfile *new)
{
    size_t changes = 0;
    char keys[CT_ERR_MAX];
    for (size_t i = 0; i < new->nfabrics; i++) {
        const ct_fabric *nf = &new->fabrics[i];
        const ct_fabric *of = ct_sigfile_fabric(old, nf->name);
        if (!of) {
            printf("  + added fabric %s\n", nf->name);
            admin_fabric_line(stdout, nf);
            changes++;
        } else if (ct_fabric_diff(of, nf, keys, sizeof keys)) {
            printf("  ~ changed fabric %s: %s\n", nf->name, keys);
            changes++;
        }
    }
    for (size_t i = 0; i < old->nfabrics; i++) {
        if (!ct_sigfile_fabric(new, old->fabrics[i].name)) {
            printf("  - removed fabric %s\n", old->fabrics[i].name);
            changes++;
        }
    }
    for (size_t i = 0; i < new->nparts; i++) {
        const char *was = part_fabric(old, new->parts[i].partition);
        if (!was)
            printf("  + partition %s -> %s\n", new->parts[i].partition, pname(new, i));
        else if (strcmp(was, pname(new, i)) != 0)
            printf("  ~ partition %s: %s -> %s\n", new->parts[i].partition, was, pname(new, i));
        else
            continue;
        changes++;
    }
    for (size_t i = 0; i < old->nparts; i++) {
        if (!part_fabric(new, old->parts[i].partition)) {
            printf("  - partition %s (was %s)\n", old->parts[i].partition, pname(old, i));
            changes++;
        }
    }
    const ct_fabric *od = ct_sigfile_for_partition(old, NULL),
                    *nd = ct_sigfile_for_partition(new, NULL);
    if ((od == NULL) != (nd == NULL) || (od && strcmp(od->name, nd->name) != 0)) {
        printf("  ~ default: %s -> %s\n", od ? od->name : "(none)", nd ? nd->name : "(none)");
        changes++;
    }
    if (!changes)
        printf("  no change to fabrics, partitions or default (comments or layout only)\n");
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* Keep the old version: a hard link to its inode when possible, else a copy. */
static int backup(const char *dest, const char *old_buf, size_t old_len, mode_t mode, char *name,
                  size_t namesz)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int k = 0; k < 1000; k++) {
        int w = k ? snprintf(name, namesz, "%s.%s.%d", dest, stamp, k)
                  : snprintf(name, namesz, "%s.%s", dest, stamp);
        if (w < 0 || (size_t)w >= namesz)
            return admin_fail(CMD, "%s: path too long for a backup name", dest);
        if (link(dest, name) == 0)
            return ADMIN_OK;
        if (errno == EEXIST)
            continue;
        /* no hard links here (some file systems): copy the bytes we read */
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            return admin_fail(CMD, "%s: cannot create backup: %s", name, strerror(errno));
        }
        int bad = write_all(fd, old_buf, old_len) < 0 || fsync(fd) < 0;
        bad |= close(fd) < 0;
        if (bad) {
            unlink(name);
            return admin_fail(CMD, "%s: cannot write backup: %s", name, strerror(errno));
        }
        return ADMIN_OK;
    }
    return admin_fail(CMD, "%s: too many backups named %s.%s.*", dest, dest, stamp);
}

static int install(const char *src, const char *dest, int dry_run)
{
    char *buf = NULL, *old_buf = NULL, *dir = NULL;
    admin_atomic w = {NULL, "", "", 0};
    size_t len = 0, old_len = 0;
    ct_sigfile new_sf, old_sf;
    int have_new = 0, have_old_sf = 0, dirfd = -1, rc;
    ct_err err;
    memset(&old_sf, 0, sizeof old_sf);
    old_sf.default_fabric = -1;

    if ((rc = admin_read_file(CMD, src, CT_SIG_MAX_BYTES, SIG_ACCEPTED, &buf, &len)) != ADMIN_OK)
        goto out;
    if (ct_sigfile_load_buffer(src, buf, len, &new_sf, &err) < 0) {
        rc = admin_fail(CMD, "%s\ncontention-admin " CMD ": nothing installed; %s is unchanged",
                        err.msg, dest);
        goto out;
    }
    have_new = 1;

    dir = dir_of(dest);
    if (!dir) {
        rc = admin_fail(CMD, "out of memory");
        goto out;
    }
    dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0 && errno == ENOENT && !dry_run) {
        if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
            rc = admin_fail(CMD,
                            "%s: cannot create directory: %s (accepted: an existing "
                            "directory, or one whose parent exists)",
                            dir, strerror(errno));
            goto out;
        }
        dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (dirfd < 0 && !(dry_run && errno == ENOENT)) {
        rc = admin_fail(CMD, "%s: cannot open directory: %s", dir, strerror(errno));
        goto out;
    }
    struct stat st;
    if (dirfd >= 0) {
        if (fstat(dirfd, &st) < 0) {
            rc = admin_fail(CMD, "%s: %s", dir, strerror(errno));
            goto out;
        }
        if (st.st_mode & S_IWOTH) {
            rc = admin_fail(CMD,
                            "refusing to install into world-writable directory %s (mode "
                            "%04o; accepted: a directory only root may write, e.g. chmod o-w %s)",
                            dir, (unsigned)(st.st_mode & 07777), dir);
            goto out;
        }
        if (!dry_run && flock(dirfd, LOCK_EX) < 0) {
            rc = admin_fail(CMD, "%s: cannot lock: %s", dir, strerror(errno));
            goto out;
        }
    }

    int have_old = 0;
    mode_t mode = 0644;
    uid_t uid = 0;
    gid_t gid = 0;
    if (lstat(dest, &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            rc = admin_fail(CMD,
                            "refusing to replace %s: it is a symbolic link (accepted: a "
                            "regular file; give its target with --dest)",
                            dest);
            goto out;
        }
        if (!S_ISREG(st.st_mode)) {
            rc = admin_fail(CMD, "refusing to replace %s: not a regular file", dest);
            goto out;
        }
        if (st.st_mode & S_IWOTH) {
            rc = admin_fail(CMD,
                            "refusing to replace world-writable %s (mode %04o; anyone could "
                            "have changed it; accepted: chmod o-w it first)",
                            dest, (unsigned)(st.st_mode & 07777));
            goto out;
        }
        have_old = 1;
        mode = st.st_mode & 0777;
        uid = st.st_uid;
        gid = st.st_gid;
        if ((rc = admin_read_file(CMD, dest, CT_SIG_MAX_BYTES, SIG_ACCEPTED, &old_buf,
                                  &old_len)) != ADMIN_OK)
            goto out;
    } else if (errno != ENOENT) {
        rc = admin_fail(CMD, "%s: %s", dest, strerror(errno));
        goto out;
    }

    if (have_old && old_len == len && memcmp(old_buf, buf, len) == 0) {
        printf("%s already holds this content; nothing to do\n", dest);
        rc = ADMIN_OK;
        goto out;
    }
    if (have_old) {
        if (ct_sigfile_load_buffer(dest, old_buf, old_len, &old_sf, &err) < 0) {
            printf("%s: the installed file is not valid (%s); treating every fabric as new\n", dest,
                   err.msg);
            memset(&old_sf, 0, sizeof old_sf);
            old_sf.default_fabric = -1;
        } else {
            have_old_sf = 1;
        }
    }
    printf("%s %s -> %s:\n", dry_run ? "would install" : "installing", src, dest);
    print_changes(&old_sf, &new_sf);
    if (dry_run) {
        printf("dry run: nothing written\n");
        rc = ADMIN_OK;
        goto out;
    }

    char bname[PATH_MAX] = "";
    if (have_old && (rc = backup(dest, old_buf, old_len, mode, bname, sizeof bname)) != ADMIN_OK)
        goto out;

    if (admin_atomic_open(&w, dest, mode & ~(mode_t)S_IWOTH) < 0) {
        rc = admin_fail(CMD, "%s: cannot create a temporary file: %s", dir, strerror(errno));
        goto out;
    }
    if (have_old && geteuid() == 0 && fchown(fileno(w.f), uid, gid) < 0) {
        rc = admin_fail(CMD, "%s: cannot set owner: %s", w.tmp, strerror(errno));
        goto out;
    }
    if (fwrite(buf, 1, len, w.f) != len) {
        rc = admin_fail(CMD, "%s: cannot write: %s", w.tmp, strerror(errno));
        goto out;
    }
    if (admin_atomic_commit(&w, NULL) < 0) {
        if (w.renamed)
            rc = admin_fail(CMD, "%s: installed, but fsync of %s failed: %s", dest, dir,
                            strerror(errno));
        else
            rc = admin_fail(CMD, "cannot write %s and rename it to %s: %s", w.path, dest,
                            strerror(errno));
        goto out;
    }
    if (have_old)
        printf("installed %s (previous version kept as %s)\n", dest, bname);
    else
        printf("installed %s (new file)\n", dest);
    rc = ADMIN_OK;
out:
    admin_atomic_abort(&w);
    if (dirfd >= 0)
        close(dirfd); /* releases the lock */
    if (have_new)
        ct_sigfile_free(&new_sf);
    if (have_old_sf)
        ct_sigfile_free(&old_sf);
    free(buf);
    free(old_buf);
    free(dir);
    return rc;
}

int cmd_install(int argc, char **argv)
{
    static const struct option opts[] = {{"dest", required_argument, NULL, 'd'},
                                         {"dry-run", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD,
                      .shortopts = "d:nh",
                      .longopts = opts,
                      .accepted = "--dest PATH, --dry-run, --help",
                      .help = help};
    const char *dest = CT_DEFAULT_SIGNATURES;
    int dry = 0, c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        switch (c) {
        case 'd':
            dest = optarg;
            break;
        case 'n':
            dry = 1;
            break;
        }
    }
    if (c < 0)
        return opt.status;
    if (optind >= argc)
        return admin_usage(CMD, "no FILE given");
    if (optind + 1 < argc)
        return admin_usage(CMD, "one FILE at a time (got '%s' and '%s')", argv[optind],
                           argv[optind + 1]);
    if (!*dest || dest[strlen(dest) - 1] == '/')
        return admin_usage(CMD, "--dest '%s' (accepted: a file path)", dest);
    return install(argv[optind], dest, dry);
}
