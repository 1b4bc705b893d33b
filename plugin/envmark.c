/* The variables the plugin sets in srun's environment, and how they are
 * kept from looking like the user's choice later (issue 10, defect 1).
 *
 * srun reads SLURM_DISTRIBUTION from its environment, so that is where the
 * plugin puts its choice (doc/plugin.md). But srun hands its environment on
 * to the step: the tasks, and with LaunchParameters=use_interactive_step the
 * user's shell. A variable left there looks, to every later srun, like the
 * user's own choice. Two guards, each enough on its own:
 *  1. in the step (slurm_spank_user_init, remote context) the plugin removes
 *     every variable it set, with its marker, from the tasks' environment;
 *  2. next to each variable V it sets, srun gets a marker
 *     SLURM_CONTENTION_SET_V holding the value set. An srun that finds V
 *     equal to its marker knows the plugin put it there (a step whose node
 *     ran without the plugin, a nested srun) and forgets it; V different
 *     from the marker was changed after, by the user: V is kept.
 * A user who sets V to exactly the value the plugin had set, without
 * removing the marker, is taken as the plugin; the marker is documented. */
#include <stdio.h>
#include <string.h>

#include "plugin.h"

/* Every variable the plugin may set for srun to read. */
static const char *const managed[] = {"SLURM_DISTRIBUTION", "SLURM_HOSTFILE"};
#define NMANAGED (sizeof managed / sizeof managed[0])

static void marker_name(const char *var, char *buf, size_t n)
{
    snprintf(buf, n, CTP_MARK_PREFIX "%s", var);
}

int ctp_is_managed(const char *var)
{
    for (size_t i = 0; i < NMANAGED; i++)
        if (strcmp(var, managed[i]) == 0)
            return 1;
    return 0;
}

int ctp_set_ours(const char *var, const char *value, ctp_setenv_fn set, void *ctx)
{
    if (!ctp_is_managed(var))
        return -1;
    char mark[96];
    marker_name(var, mark, sizeof mark);
    if (set(var, value, ctx) < 0 || set(mark, value, ctx) < 0)
        return -1;
    return 0;
}

int ctp_forget_ours(ctp_getenv_fn get, ctp_setenv_fn set, void *ctx, char *note, size_t n)
{
    int forgot = 0;
    if (note && n)
        note[0] = '\0';
    for (size_t i = 0; i < NMANAGED; i++) {
        char mark[96];
        marker_name(managed[i], mark, sizeof mark);
        const char *m = get(mark, ctx);
        if (!m)
            continue;
        const char *v = get(managed[i], ctx);
        if (v && strcmp(v, m) == 0) {
            set(managed[i], NULL, ctx);
            forgot++;
            if (note && n) {
                size_t l = strlen(note);
                snprintf(note + l, n - l, "%s%s", l ? ", " : "", managed[i]);
            }
        }
        set(mark, NULL, ctx);
    }
    return forgot;
}

int ctp_strip_step_env(ctp_getenv_fn get, ctp_setenv_fn set, void *ctx)
{
    int stripped = 0;
    for (size_t i = 0; i < NMANAGED; i++) {
        char mark[96];
        marker_name(managed[i], mark, sizeof mark);
        if (!get(mark, ctx))
            continue;
        /* whatever srun exported as V for this step came from the plugin:
         * with a marker, the user had given neither -m nor V */
        set(managed[i], NULL, ctx);
        set(mark, NULL, ctx);
        stripped++;
    }
    return stripped;
}
