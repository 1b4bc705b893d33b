/* The recorder's guard against another MPI's ABI (doc/recorder.md, "Open
 * MPI and MPICH").
 *
 * The recorder is built against one MPI's mpi.h: Open MPI's handles are
 * pointers, MPICH's (and Intel MPI's, MVAPICH's, Cray MPICH's: the MPICH
 * ABI) are integers. Preloaded into a program of the other ABI, its MPI_
 * wrappers, which the program's calls reach first, take the program's
 * handles with the wrong types (an Open MPI datatype, a pointer, arrives
 * cut to an int) and the program crashes, recorded or not. So when the
 * process has loaded the other ABI's MPI library, this library puts the
 * recorder built for that ABI in its place in LD_PRELOAD (the other name,
 * in the same directory, where meson built or installed both) and executes
 * the program again, before main and before any MPI call, with one line
 * saying so: the program is recorded by the right one. Where there is none
 * (or it was already swapped once: CONTENTION_RECORD_SWAPPED), it only
 * takes itself out: the program runs unrecorded, as if not preloaded. Every
 * MPI library the program needs is mapped before any constructor runs, so
 * the check sees them all, linked directly or through another library
 * (LAMMPS' liblammps). */
#define _GNU_SOURCE /* dl_iterate_phdr, dladdr */
#include <mpi.h>

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the start of the file names of the other ABI's MPI libraries */
#ifdef OPEN_MPI
#define BUILT "Open MPI"
#define OTHER_DEV "libmpich-dev"
#define OTHER_LIB "libcontention-record-mpich.so"
static const char *const other[] = {"libmpich", "libmpi.so.12", "libmpi_cray", NULL};
#else
#define BUILT "MPICH's ABI"
#define OTHER_DEV "libopenmpi-dev"
#define OTHER_LIB "libcontention-record.so"
static const char *const other[] = {"libmpi.so.40", "libopen-pal", NULL};
#endif

static int other_mpi(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    const char *b = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    b = b ? b + 1 : info->dlpi_name;
    for (int i = 0; b && other[i]; i++)
        if (strncmp(b, other[i], strlen(other[i])) == 0) {
            snprintf(found, 256, "%s", b);
            return 1;
        }
    return 0;
}

static const char *base(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* LD_PRELOAD with this library (entries separated by ':' or ' ') replaced
 * by swap, or left out where swap is empty */
static void repreload(const char *self, const char *swap)
{
    const char *pre = getenv("LD_PRELOAD");
    if (!pre)
        return;
    size_t entries = 1; /* swap may replace each of them */
    for (const char *c = pre; *c; c++)
        entries += *c == ':' || *c == ' ';
    char *copy = strdup(pre), *out = calloc(1, strlen(pre) + entries * (strlen(swap) + 1) + 1);
    if (!copy || !out) {
        free(copy);
        free(out);
        return;
    }
    for (char *save = NULL, *e = strtok_r(copy, ": ", &save); e; e = strtok_r(NULL, ": ", &save)) {
        const char *keep = strcmp(base(e), base(self)) != 0 ? e : swap;
        if (*keep)
            strcat(strcat(out, *out ? ":" : ""), keep);
    }
    if (*out)
        setenv("LD_PRELOAD", out, 1);
    else
        unsetenv("LD_PRELOAD");
    free(copy);
    free(out);
}

/* the recorder of the other ABI beside this one, in swap[n]; 0: none */
static int other_recorder(const char *self, char *swap, size_t n)
{
    const char *slash = strrchr(self, '/');
    if (!slash || getenv("CONTENTION_RECORD_SWAPPED"))
        return 0;
    int k = snprintf(swap, n, "%.*s/%s", (int)(slash - self), self, OTHER_LIB);
    return k > 0 && (size_t)k < n && access(swap, R_OK) == 0;
}

/* this process's arguments, from /proc/self/cmdline */
static char **own_argv(void)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return NULL;
    size_t len = 0, cap = 0;
    char *buf = NULL;
    for (int ch; (ch = fgetc(f)) != EOF;) {
        if (len + 2 > cap) {
            char *b = realloc(buf, cap = cap ? 2 * cap : 4096);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        buf[len++] = (char)ch;
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[len] = '\0';
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\0';
    char **argv = calloc(n + 1, sizeof *argv);
    if (!argv) {
        free(buf);
        return NULL;
    }
    for (size_t i = 0, k = 0; i < len && k < n; i += strlen(buf + i) + 1)
        argv[k++] = buf + i;
    return argv;
}

__attribute__((constructor)) static void abi_guard(void)
{
    char found[256] = "";
    if (!dl_iterate_phdr(other_mpi, found))
        return;
    char **argv = own_argv(), swap[4096] = "";
    const char *prog = argv && argv[0] ? argv[0] : "this program";
    Dl_info me;
    const char *self = dladdr((void *)abi_guard, &me) && me.dli_fname ? me.dli_fname : "";
    if (other_recorder(self, swap, sizeof swap)) {
        fprintf(stderr,
                "contention-record: %s runs %s, not the MPI of %s (" BUILT "): run again with "
                "%s\n",
                prog, found, base(self), swap);
        setenv("CONTENTION_RECORD_SWAPPED", "1", 1);
    } else {
        swap[0] = '\0';
        fprintf(stderr,
                "contention-record: %s runs %s, not the MPI this recorder was built for (" BUILT
                "): run again without it, nothing recorded (no " OTHER_LIB " beside it: "
                "build with " OTHER_DEV ")\n",
                prog, found);
    }
    repreload(self, swap);
    if (argv)
        execv("/proc/self/exe", argv);
    /* not run again: going on would crash the program in the wrappers */
    fprintf(stderr, "contention-record: cannot run %s again without the recorder\n",
            argv && argv[0] ? argv[0] : "this program");
    _exit(127);
}
