/* contention-admin record: run an MPI command under the recorder
 * (libcontention-record.so, doc/recorder.md) and leave its trace in FILE or
 * in a named profile (trace:NAME). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "admin.h"
#include "contention/collective.h"
#include "contention/trace.h"

#define CMD "record"
/* the most ranks a merge of partial recordings looks for (a million) */
#define MAX_RANKS (1 << 20)
#define LIBNAME "libcontention-record.so"
/* the same recorder built against MPICH's mpi.h (recorder/meson.build) */
#define LIBNAME_MPICH "libcontention-record-mpich.so"

static void usage(void)
{
    printf("Usage: contention-admin record -o FILE|trace:NAME [--mpi openmpi|mpich]\n"
           "                               [--library PATH] [--seconds S] [--max-events N]\n"
           "                               -- COMMAND [ARG...]\n"
           "\n"
           "Run COMMAND (mpirun/mpiexec ..., srun ..., or an MPI program) with the recorder\n"
           "preloaded in its MPI processes and write their communication trace (doc/recorder.md,\n"
           "format doc/trace-format.md).\n"
           "\n"
           "  -o, --output FILE      the trace file; trace:NAME saves profile NAME in\n"
           "                         $XDG_DATA_HOME/contention/profiles (default\n"
           "                         ~/.local/share/contention/profiles), used later as\n"
           "                         --contention-pattern=trace:NAME\n"
           "  --mpi openmpi|mpich    the MPI the program was built with: Open MPI, or MPICH\n"
           "                         or an MPI of its ABI (Intel MPI, MVAPICH, Cray MPICH);\n"
           "                         default: mpich where COMMAND is MPICH's launcher\n"
           "                         (mpiexec.hydra), else openmpi. A program of the other\n"
           "                         ABI is run again with the other recorder where it was\n"
           "                         built (libmpich-dev), else unrecorded\n"
           "  --library PATH         the recorder library (default: next to this program in a\n"
           "                         build tree, else the installed " LIBNAME ",\n"
           "                         " LIBNAME_MPICH " with --mpi mpich)\n"
           "  --seconds S            record the first S seconds of each rank (default 60; 0 = all)\n"
           "  --max-events N         at most N events per rank (default 200000; 0 = no bound)\n"
           "  -h, --help             this help\n"
           "\n"
           "Open MPI's mpirun/mpiexec gets -x options so the remote ranks see the recorder's\n"
           "environment. When ranks end abnormally, each writes FILE.rank<R>; they are merged\n"
           "into FILE here. Exit status: COMMAND's, or 2 when nothing was recorded.\n");
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* the library: --library, next to us in a build tree, installed (name:
 * LIBNAME or LIBNAME_MPICH, installed beside each other) */
static int find_library(const char *given, const char *name, char *out, size_t n)
{
    if (given) {
        if (!exists(given))
            return admin_fail(CMD, "--library %s: no such file", given);
        if (!realpath(given, out))
            return admin_fail(CMD, "--library %s: %s", given, strerror(errno));
        return 0;
    }
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k > 0) {
        self[k] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            /* build tree: BUILD/admin/contention-admin, BUILD/recorder/LIB */
            if ((size_t)snprintf(out, n, "%s/../recorder/%s", self, name) < n && exists(out)) {
                char real[PATH_MAX];
                if (realpath(out, real) && strlen(real) < n)
                    strcpy(out, real);
                return 0;
            }
        }
    }
    char inst[PATH_MAX] = "no install path";
#ifdef CT_RECORDER_LIB
    snprintf(inst, sizeof inst, "%s", CT_RECORDER_LIB);
    char *slash = strrchr(inst, '/');
    if (slash && (size_t)(slash + 1 - inst) + strlen(name) < sizeof inst)
        strcpy(slash + 1, name);
    if (exists(inst) && strlen(inst) < n) {
        strcpy(out, inst);
        return 0;
    }
#endif
    return admin_fail(CMD,
                      "cannot find %s (looked next to this program and at %s; build with %s or "
                      "pass --library PATH)",
                      name, inst, strcmp(name, LIBNAME) ? "MPICH (Debian's libmpich-dev)" : "MPI");
}

/* COMMAND's launcher: Open MPI's (mpirun/mpiexec/orterun resolve to orterun
 * or prterun), MPICH's (mpiexec.mpich, mpirun.mpich resolve to
 * mpiexec.hydra), or neither */
enum launcher { LAUNCHER_NONE, LAUNCHER_OPENMPI, LAUNCHER_MPICH };

static enum launcher launcher_of(const char *cmd)
{
    char path[PATH_MAX], real[PATH_MAX];
    if (strchr(cmd, '/')) {
        snprintf(path, sizeof path, "%s", cmd);
    } else {
        const char *pe = getenv("PATH");
        char *dup = strdup(pe ? pe : "/usr/bin:/bin");
        int found = 0;
        for (char *save = NULL, *d = strtok_r(dup, ":", &save); d && !found;
             d = strtok_r(NULL, ":", &save)) {
            snprintf(path, sizeof path, "%s/%s", d, cmd);
            found = access(path, X_OK) == 0;
        }
        free(dup);
        if (!found)
            return LAUNCHER_NONE;
    }
    if (!realpath(path, real))
        return LAUNCHER_NONE;
    const char *b = strrchr(real, '/');
    b = b ? b + 1 : real;
    if (strcmp(b, "orterun") == 0 || strcmp(b, "prterun") == 0)
        return LAUNCHER_OPENMPI;
    if (strcmp(b, "mpiexec.hydra") == 0)
        return LAUNCHER_MPICH;
    return LAUNCHER_NONE;
}

/* a collective on MPI_COMM_WORLD: "KIND TASK world ...", KIND any of the
 * trace's collective events (the core's names, so a new one is counted) */
static int world_coll(const char *line)
{
    for (int k = CT_EV_BARRIER; k < CT_EV_KIND_COUNT; k++) {
        const char *kw = ct_ev_kind_name((ct_ev_kind)k);
        size_t n = strlen(kw);
        if (strncmp(line, kw, n) == 0 && line[n] == ' ') {
            const char *p = line + n + 1;
            while (*p >= '0' && *p <= '9')
                p++;
            return strncmp(p, " world", 6) == 0 && (p[6] == ' ' || p[6] == '\n' || !p[6]);
        }
    }
    return 0;
}

static long count_world(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    long n = 0;
    while (getline(&line, &cap, f) > 0)
        n += world_coll(line);
    free(line);
    fclose(f);
    return n;
}

/* FILE.rank<R> of ranks that ended abnormally, merged into FILE, each cut
 * after the last MPI_COMM_WORLD collective every rank recorded (what
 * happened before it is complete on every rank: a consistent cut) */
static int merge_parts(const char *out, int *nparts)
{
    *nparts = 0;
    char p[PATH_MAX + 32];
    int ntasks = -1;
    /* the ranks are 0 .. N-1 with N in each part's `tasks` line */
    snprintf(p, sizeof p, "%s.rank0", out);
    for (int r = 0; r < (ntasks < 0 ? MAX_RANKS : ntasks); r++) {
        snprintf(p, sizeof p, "%s.rank%d", out, r);
        if (!exists(p)) {
            if (ntasks < 0 && r > 64)
                break;
            continue;
        }
        FILE *f = fopen(p, "r");
        char line[256];
        int lineno = 0;
        while (f && ntasks < 0 && fgets(line, sizeof line, f)) {
            lineno++;
            if (sscanf(line, "tasks %d", &ntasks) == 1)
                break;
        }
        if (f)
            fclose(f);
        /* a damaged part (the rank was killed while writing) must not set
         * how many ranks are looked for */
        if (ntasks != -1 && (ntasks < 1 || ntasks > MAX_RANKS))
            return admin_fail(CMD,
                              "%s:%d: tasks %d (accepted: 1 to %d, as the recorder writes it): "
                              "no trace written, the parts are kept",
                              p, lineno, ntasks, MAX_RANKS);
        (*nparts)++;
    }
    if (!*nparts)
        return 0;
    for (int r = 0; r < ntasks; r++) {
        snprintf(p, sizeof p, "%s.rank%d", out, r);
        if (!exists(p))
            return admin_fail(CMD,
                              "%s: rank %d of %d left no partial recording (killed before it "
                              "could write, e.g. by SIGKILL; Open MPI sends it "
                              "odls_base_sigkill_timeout seconds after SIGTERM): no trace "
                              "written, the %d parts are kept",
                              out, r, ntasks, *nparts);
    }
    admin_atomic w;
    if (admin_atomic_open(&w, out, 0644) < 0)
        return admin_fail(CMD, "%s: cannot create a temporary file beside it: %s", out,
                          strerror(errno));
    FILE *o = w.f;
    fprintf(o, "# merged by contention-admin record from %d partial rank recordings (abnormal "
               "exit)\n",
            *nparts);
    if (ntasks > 0)
        fprintf(o, "tasks %d\n", ntasks);
    long cut = -1; /* world collectives every rank has; -1: a rank has no part */
    for (int r = 0; ntasks > 0 && r < ntasks; r++) {
        snprintf(p, sizeof p, "%s.rank%d", out, r);
        long k = exists(p) ? count_world(p) : 0;
        if (r == 0 || k < cut)
            cut = k;
    }
    if (cut > 0)
        fprintf(o, "# every rank cut after its MPI_COMM_WORLD collective number %ld\n", cut);
    for (int r = 0; ntasks > 0 && r < ntasks; r++) {
        snprintf(p, sizeof p, "%s.rank%d", out, r);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        char *line = NULL;
        size_t cap = 0;
        long seen = 0;
        while ((cut <= 0 || seen < cut) && getline(&line, &cap, f) > 0) {
            if (strncmp(line, "tasks ", 6) != 0)
                fputs(line, o);
            seen += world_coll(line);
        }
        free(line);
        fclose(f);
    }
    if (admin_atomic_commit(&w, NULL) < 0 && !w.renamed)
        return admin_fail(CMD, "%s: %s", out, strerror(errno));
    for (int r = 0; ntasks > 0 && r < ntasks; r++) {
        snprintf(p, sizeof p, "%s.rank%d", out, r);
        unlink(p);
    }
    return 0;
}

static int mkdirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) < 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int cmd_record(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},     {"library", required_argument, NULL, 'L'},
        {"seconds", required_argument, NULL, 'S'},    {"max-events", required_argument, NULL, 'E'},
        {"mpi", required_argument, NULL, 'M'},        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    admin_opts opt = {.cmd = CMD, .shortopts = "+o:h", .longopts = longopts,
                      .accepted = "-o/--output, --mpi, --library, --seconds, --max-events, --help",
                      .help = usage};
    const char *output = NULL, *library = NULL, *seconds = "60", *max_events = "200000";
    const char *mpi = NULL;
    int c;
    while ((c = admin_next_opt(&opt, argc, argv)) > 0) {
        if (c == 'o')
            output = optarg;
        else if (c == 'M') {
            if (strcmp(optarg, "openmpi") != 0 && strcmp(optarg, "mpich") != 0)
                return admin_usage(CMD, "--mpi '%s': expected openmpi or mpich", optarg);
            mpi = optarg;
        } else if (c == 'L')
            library = optarg;
        else if (c == 'S' || c == 'E') {
            char *end;
            errno = 0;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || errno || !(v >= 0))
                return admin_usage(CMD, "--%s '%s': expected a number >= 0",
                                   c == 'S' ? "seconds" : "max-events", optarg);
            if (c == 'S')
                seconds = optarg;
            else
                max_events = optarg;
        }
    }
    if (c < 0)
        return opt.status;
    if (!output)
        return admin_usage(CMD, "-o FILE or -o trace:NAME is required");
    if (optind >= argc)
        return admin_usage(CMD, "no COMMAND to run (expected: record -o FILE -- COMMAND...)");

    char path[PATH_MAX];
    if (strncmp(output, "trace:", 6) == 0) {
        const char *name = output + 6;
        char dir[PATH_MAX - 256];
        ct_err err;
        if (!*name || strchr(name, '/'))
            return admin_usage(CMD, "-o trace:NAME: '%s' is not a profile name (no '/')", name);
        if (ct_profile_dir(getenv("XDG_DATA_HOME"), getenv("HOME"), dir, sizeof dir, &err) < 0)
            return admin_fail(CMD, "%s", err.msg);
        if (mkdirs(dir) < 0)
            return admin_fail(CMD, "%s: cannot create: %s", dir, strerror(errno));
        if ((size_t)snprintf(path, sizeof path, "%s/%.200s.trace", dir, name) >= sizeof path)
            return admin_fail(CMD, "-o %s: path too long", output);
    } else if (output[0] == '/') {
        snprintf(path, sizeof path, "%s", output);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return admin_fail(CMD, "getcwd: %s", strerror(errno));
        /* absolute: the ranks may run elsewhere */
        if ((size_t)snprintf(path, sizeof path, "%s/%s", cwd, output) >= sizeof path)
            return admin_fail(CMD, "-o %s: path too long", output);
    }
    enum launcher launcher = launcher_of(argv[optind]);
    int mpich = mpi ? strcmp(mpi, "mpich") == 0 : launcher == LAUNCHER_MPICH;
    char lib[PATH_MAX];
    if (find_library(library, mpich ? LIBNAME_MPICH : LIBNAME, lib, sizeof lib))
        return ADMIN_INVALID;

    setenv("CONTENTION_RECORD_FILE", path, 1);
    setenv("CONTENTION_RECORD_SECONDS", seconds, 1);
    setenv("CONTENTION_RECORD_MAX_EVENTS", max_events, 1);
    char **cmd = argv + optind;
    int ncmd = argc - optind;
    char preload[PATH_MAX + 4096];
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    char **run = calloc((size_t)ncmd + 16, sizeof *run);
    if (!run)
        return admin_fail(CMD, "out of memory");
    int k = 0;
    char xpre[sizeof preload + 16];
    run[k++] = cmd[0];
    if (launcher == LAUNCHER_OPENMPI) {
        /* mpirun itself must not load the recorder; its ranks get it via -x */
        snprintf(xpre, sizeof xpre, "LD_PRELOAD=%s", preload);
        const char *x[] = {"-x", xpre, "-x", "CONTENTION_RECORD_FILE", "-x",
                           "CONTENTION_RECORD_SECONDS", "-x", "CONTENTION_RECORD_MAX_EVENTS"};
        for (size_t i = 0; i < sizeof x / sizeof *x; i++)
            run[k++] = (char *)x[i];
        /* the library's other variables (doc/recorder.md), where the user set them */
        static char *opt[] = {"CONTENTION_RECORD_MIN_GAP", "CONTENTION_RECORD_FORTRAN"};
        for (size_t i = 0; i < sizeof opt / sizeof *opt; i++)
            if (getenv(opt[i]))
                run[k++] = "-x", run[k++] = opt[i];
    } else {
        setenv("LD_PRELOAD", preload, 1);
    }
    for (int i = 1; i < ncmd; i++)
        run[k++] = cmd[i];
    run[k] = NULL;

    for (int r = 0; r < 4096; r++) { /* partial files of an earlier run would be merged */
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s.rank%d", path, r);
        unlink(p);
    }
    struct stat before;
    int had = stat(path, &before) == 0;
    fprintf(stderr, "contention-admin record: %s -> %s (library %s)\n", cmd[0], path, lib);
    pid_t pid = fork();
    if (pid < 0) {
        free(run);
        return admin_fail(CMD, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        execvp(run[0], run);
        fprintf(stderr, "contention-admin record: %s: %s\n", run[0], strerror(errno));
        _exit(127);
    }
    free(run);
    signal(SIGINT, SIG_IGN); /* Ctrl-C goes to the command; we merge after it */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    signal(SIGINT, SIG_DFL);
    unsetenv("LD_PRELOAD");
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

    int nparts = 0;
    struct stat after;
    /* written by this run: new, or replaced (the recorder renames its
     * temporary file over it), or changed; not merely a file of an earlier
     * run in the same second */
    int fresh = stat(path, &after) == 0 &&
                (!had || after.st_ino != before.st_ino ||
                 after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
                 after.st_mtim.tv_nsec != before.st_mtim.tv_nsec);
    if (!fresh) {
        if (merge_parts(path, &nparts))
            return ADMIN_INVALID;
        fresh = nparts > 0;
    }
    if (!fresh) {
        admin_fail(CMD,
                   "%s: nothing recorded (did COMMAND run MPI programs? C, C++, and Fortran "
                   "through mpif.h or the mpi module are recorded, not the mpi_f08 module; "
                   "exit status %d)",
                   path, rc);
        return rc ? rc : ADMIN_INVALID;
    }
    ct_trace tr;
    ct_err err;
    ct_coll_params cp;
    ct_coll_params_hockney(0, 0, &cp);
    ct_coll_stats st;
    if (ct_trace_load_expanded(path, &cp, &tr, &st, &err) < 0) {
        admin_fail(CMD, "recorded, but the trace does not load: %s", err.msg);
        return rc ? rc : ADMIN_INVALID;
    }
    fprintf(stderr,
            "contention-admin record: %s: %d tasks, %zu events in (%zu collective calls), "
            "%zu point-to-point messages replayed%s\n",
            path, (int)tr.ntasks, st.events_in, st.instances, tr.ncomm,
            nparts ? " (merged from partial recordings: the command ended abnormally)" : "");
    ct_trace_free(&tr);
    return rc;
}
