/* The third candidate, `optimized` (issue 13): a placement beyond block and
 * cyclic found by modelcore (ct_place_search), launched through
 * SLURM_HOSTFILE with SLURM_DISTRIBUTION=arbitrary. Plain C, no Slurm:
 * decide.c asks for the search and judges the gain; spank.c expands the
 * host list with libslurm, writes the hostfile here (ctp_write_hostfile),
 * sets the two variables for this srun only and removes the file when the
 * step is over (slurm_spank_exit). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contention/placement.h"
#include "plugin.h"

int ctp_min_gain_parse(const char *s, double *gain, ct_err *err)
{
    if (strcmp(s, "off") == 0) {
        *gain = INFINITY;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    int pct = *end == '%';
    if (end == s || errno || (pct ? end[1] != '\0' : *end != '\0') || !isfinite(v) || v < 0 ||
        (!pct && v >= 1) || (pct && v >= 100))
        return ct_err_set(err,
                          "invalid gain '%.64s' (accepted: a percentage below 100 such as 10%%, a "
                          "fraction below 1 such as 0.1, or off)",
                          s);
    *gain = pct ? v / 100 : v;
    return 0;
}

void ctp_placed_free(ctp_placed *p)
{
    if (!p)
        return;
    free(p->node_of);
    p->node_of = NULL;
}

uint64_t ctp_place_work(int budget_ms)
{
    return budget_ms > 0 ? (uint64_t)budget_ms * CT_PLACE_WORK_PER_MS / 2 : 0;
}

int ctp_place(const ct_fabric *fab, const ct_pattern *pat, const ct_trace *trace,
              const ct_alloc *alloc, const struct ct_tree_map *tree, int32_t ntasks, int32_t cpt, int budget_ms,
              ctp_placed *out, ct_err *err)
{
    memset(out, 0, sizeof *out);
    ct_place_request req;
    memset(&req, 0, sizeof req);
    req.alloc = alloc;
    req.ntasks = ntasks;
    req.cpus_per_task = cpt;
    req.pattern = *pat;
    req.trace = trace; /* NULL: read pattern.trace (trace patterns) */
    req.seed = 1; /* fixed: the same job gets the same placement */
    req.tree = tree; /* NULL: one switch */
    req.max_work = ctp_place_work(budget_ms);
    ct_place_result r;
    if (ct_place_search(fab, &req, &r, err) < 0)
        return -1;
    out->have = 1;
    out->explicit_layout = r.layout.dist == CT_DIST_EXPLICIT;
    snprintf(out->from, sizeof out->from, "%s", r.chosen);
    snprintf(out->note, sizeof out->note, "%s", r.note);
    out->predicted_s = r.predicted_s;
    out->block_s = r.block_s;
    out->cyclic_s = r.cyclic_s;
    out->gain = r.gain;
    out->ntasks = r.layout.ntasks;
    out->nnodes = r.layout.nnodes;
    if (out->explicit_layout) {
        out->node_of = malloc((size_t)r.layout.ntasks * sizeof *out->node_of);
        if (!out->node_of) {
            ct_place_result_free(&r);
            return ct_err_set(err, "out of memory for %d tasks", (int)r.layout.ntasks);
        }
        memcpy(out->node_of, r.layout.node_of, (size_t)r.layout.ntasks * sizeof *out->node_of);
    }
    ct_place_result_free(&r);
    return 0;
}

int ctp_write_hostfile(const char *dir, const int32_t *node_of, int32_t ntasks, char *const *hosts,
                       int64_t nhosts, char *path, size_t pathsz, ct_err *err)
{
    if (!dir || dir[0] != '/')
        return ct_err_set(err, "hostfile directory '%s' is not an absolute path", dir ? dir : "");
    /* srun's pid in the name: a later srun removes the file if this one
     * dies before slurm_spank_exit (ctp_sweep_hostfiles) */
    if ((size_t)snprintf(path, pathsz, "%s/%s%ld.XXXXXX", dir, CTP_HOSTFILE_PREFIX,
                         (long)getpid()) >= pathsz)
        return ct_err_set(err, "hostfile directory '%s' is too long", dir);
    for (int32_t t = 0; t < ntasks; t++)
        if (node_of[t] < 0 || node_of[t] >= nhosts)
            return ct_err_set(err, "task %d on node %d but the node list has %lld hosts", (int)t,
                              (int)node_of[t], (long long)nhosts);
    int fd = mkstemp(path);
    if (fd < 0) {
        int e = errno;
        return ct_err_set(err, "cannot create %s: %s", path, strerror(e));
    }
    FILE *f = fdopen(fd, "w");
    int bad = !f;
    for (int32_t t = 0; f && t < ntasks && !bad; t++)
        bad |= fprintf(f, "%s\n", hosts[node_of[t]]) < 0;
    /* the user's own file (srun runs as the user): readable, as srun -m
     * arbitrary needs, and by the user afterwards while the step runs */
    if (f)
        bad |= fflush(f) != 0 || fchmod(fd, 0644) != 0;
    bad |= f ? fclose(f) != 0 : close(fd) != 0;
    if (bad) {
        int e = errno;
        unlink(path);
        return ct_err_set(err, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int ctp_sweep_hostfiles(const char *dir, uid_t uid, time_t now)
{
    DIR *d = dir && dir[0] == '/' ? opendir(dir) : NULL;
    if (!d)
        return 0;
    int dfd = dirfd(d), removed = 0, seen = 0;
    size_t plen = strlen(CTP_HOSTFILE_PREFIX);
    struct dirent *e;
    while (seen++ < CTP_HOSTFILE_SWEEP_MAX && (e = readdir(d))) {
        if (strncmp(e->d_name, CTP_HOSTFILE_PREFIX, plen) != 0)
            continue;
        char *end;
        errno = 0;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (errno || end == e->d_name + plen || *end != '.' || pid <= 1 || pid != (pid_t)pid)
            continue; /* not ours (or an old name without a pid) */
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != uid || now - st.st_mtime < CTP_HOSTFILE_STALE_S)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* that srun (or a process with its pid) still runs */
        if (unlinkat(dfd, e->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}
