/* What srun cannot tell the plugin through its environment but slurm.conf
 * says: SelectTypeParameters (CR_PACK_NODES packs tasks onto the first
 * nodes, which the layout model does not reproduce). Read from the file
 * srun reads: $SLURM_CONF, else /etc/slurm/slurm.conf, else the configless
 * cache /run/slurm/conf/slurm.conf. Bounded (1 MiB), "Include" files are
 * not followed; anything unreadable counts as "not known". */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contention/fileio.h"
#include "plugin.h"

int ctp_has_word_ci(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ",");
        if (l == n && strncasecmp(p, word, n) == 0)
            return 1;
        p += l;
        if (*p == ',')
            p++;
    }
    return 0;
}

int ctp_select_params_text(const char *text, size_t len, char *out, size_t n)
{
    int found = -1;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        const char *l = text + i;
        size_t ll = j - i;
        while (ll && isspace((unsigned char)*l)) {
            l++;
            ll--;
        }
        static const char key[] = "SelectTypeParameters";
        size_t k = sizeof key - 1;
        if (ll > k && strncasecmp(l, key, k) == 0) {
            const char *v = l + k;
            size_t vl = ll - k;
            while (vl && isspace((unsigned char)*v)) {
                v++;
                vl--;
            }
            if (vl && *v == '=') {
                v++;
                vl--;
                while (vl && isspace((unsigned char)*v)) {
                    v++;
                    vl--;
                }
                size_t w = 0;
                while (w < vl && !isspace((unsigned char)v[w]) && v[w] != '#')
                    w++;
                snprintf(out, n, "%.*s", (int)w, v);
                found = 0; /* the last one wins, as in slurm.conf */
            }
        }
        i = j + 1;
    }
    return found;
}

int ctp_select_params(const char *slurm_conf, char *out, size_t n)
{
    const char *paths[] = {slurm_conf, "/etc/slurm/slurm.conf", "/run/slurm/conf/slurm.conf"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        if (!paths[i] || !paths[i][0])
            continue;
        char *buf;
        size_t len;
        if (ct_read_file(paths[i], (size_t)1 << 20, "slurm.conf", &buf, &len, NULL) < 0) {
            if (i == 0)
                return -1; /* $SLURM_CONF names the file srun reads: no other */
            continue;
        }
        int rc = ctp_select_params_text(buf, len, out, n);
        free(buf);
        return rc;
    }
    return -1;
}
