/* The signature file: per-fabric model parameters an admin installed
 * (YAML, schema `version: 1`, documented in conf/README.md).
 *
 * The loader is shared by the plugin and contention-admin. It only reads
 * the path it is given; callers decide which paths are trusted.
 */
#ifndef CONTENTION_SIGNATURES_H
#define CONTENTION_SIGNATURES_H

#include <stddef.h>
#include <stdio.h>

#include "contention/alltoall.h"
#include "contention/error.h"
#include "contention/penalty.h"

#define CT_NAME_MAX 64
#define CT_TEXT_MAX 256
#define CT_GAP_MAX 64
#define CT_SIG_VERSION 1

typedef struct ct_fabric {
    char name[CT_NAME_MAX];
    char description[CT_TEXT_MAX];
    int published;                 /* 1: a paper's published values, not measured here */
    char source[CT_TEXT_MAX];      /* provenance: paper and section, or calibration run */

    /* point-to-point (Hockney) */
    double alpha;                  /* s */
    double beta;                   /* s/byte */
    /* optional pLogP gap table g(m), m ascending */
    size_t ngap;
    double gap_m[CT_GAP_MAX];      /* bytes */
    double gap_g[CT_GAP_MAX];      /* s */
    double plogp_L;                /* s, pLogP latency (0 = unknown) */

    /* Alltoall signature (000 eq. 5) and its provenance */
    int has_alltoall;
    ct_a2a_sig alltoall;
    char a2a_date[32];             /* ISO date of the fit, "" if unknown */
    int a2a_fitted_n;              /* processes used for the fit, 0 if unknown */
    double a2a_fit_error;          /* max relative error of the fit, < 0 if unknown */

    /* bandwidth-sharing penalty model (001 §V) */
    ct_penalty_model penalty;

    /* intra-node (shared-memory) bandwidth, bytes/s; <= 0: intra-node time ignored */
    double intra_bw;
} ct_fabric;

typedef struct ct_partition_map {
    char partition[CT_NAME_MAX];
    size_t fabric;                 /* index into ct_sigfile.fabrics */
} ct_partition_map;

typedef struct ct_sigfile {
    int version;
    size_t nfabrics;
    ct_fabric *fabrics;
    size_t nparts;
    ct_partition_map *parts;
    long default_fabric;           /* index, or -1 when the file names no default */
} ct_sigfile;

/* Load and validate path. On error returns -1 with
 * "FILE:LINE:COL: what is wrong (what is accepted)" in err, and *out is left
 * empty (nothing to free). */
int ct_sigfile_load(const char *path, ct_sigfile *out, ct_err *err);
/* Same, from a memory buffer; `name` is used in messages in place of a path. */
int ct_sigfile_load_buffer(const char *name, const char *buf, size_t len, ct_sigfile *out,
                           ct_err *err);
void ct_sigfile_free(ct_sigfile *sf);

/* Fabric by name, or NULL. */
const ct_fabric *ct_sigfile_fabric(const ct_sigfile *sf, const char *name);
/* Fabric for a Slurm partition: its mapping if listed, else the default;
 * NULL partition means the default. NULL when neither exists. */
const ct_fabric *ct_sigfile_for_partition(const ct_sigfile *sf, const char *partition);

/* Write sf as YAML that ct_sigfile_load reads back identically. */
int ct_sigfile_write(FILE *f, const ct_sigfile *sf, ct_err *err);
/* Write one fabric entry (the body under `fabrics:`), e.g. for `fit --out`. */
int ct_fabric_write(FILE *f, const ct_fabric *fab, ct_err *err);

#endif
