/* GigE penalty parameters from measured conflict schemes (paper 001 §V-A). */
#include "contention/fit.h"

#include <math.h>

int ct_fit_gige_beta(const int *k, const double *penalty, size_t n, double *share, ct_err *err)
{
    if (!k || !penalty || n == 0)
        return ct_err_set(err, "GigE beta fit: no samples (accepted: >= 1 pure outgoing conflict "
                               "with k >= 2 communications)");
    double sum = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (k[i] < 1)
            return ct_err_set(err, "GigE beta fit: sample %zu has k = %d outgoing communications "
                                   "(accepted: k >= 1)",
                              i, k[i]);
        if (!isfinite(penalty[i]) || penalty[i] <= 0)
            return ct_err_set(err, "GigE beta fit: sample %zu (k = %d) has penalty %g "
                                   "(accepted: finite, > 0)",
                              i, k[i], penalty[i]);
        if (k[i] < 2) /* k = 1 is the reference itself: penalty 1 by definition */
            continue;
        sum += penalty[i] / k[i]; /* 001 §V-A: penalty(k) / k, e.g. 1.5/2 = 2.25/3 = 0.75 */
        used++;
    }
    if (used == 0)
        return ct_err_set(err, "GigE beta fit: only k = 1 samples (accepted: >= 1 sample with "
                               "k >= 2 outgoing communications)");
    *share = sum / (double)used;
    return 0;
}

int ct_fit_gige_gammas(double share, double t_ref, double t_a, double t_f, double *skew_in,
                       double *skew_out, ct_err *err)
{
    return ct_fit_gige_gammas_k(share, t_ref, t_a, t_f, 3, skew_in, skew_out, err);
}

int ct_fit_gige_gammas_k(double share, double t_ref, double t_a, double t_f, int k,
                         double *skew_in, double *skew_out, ct_err *err)
{
    if (k < 2)
        return ct_err_set(err, "GigE gamma fit: k = %d (accepted: >= 2 communications sharing)", k);
    if (!(isfinite(share) && share > 0))
        return ct_err_set(err, "GigE gamma fit: beta = %g (accepted: finite, > 0)", share);
    if (!(isfinite(t_ref) && t_ref > 0))
        return ct_err_set(err, "GigE gamma fit: t_ref = %g s (accepted: finite, > 0)", t_ref);
    const double top = k * share * t_ref; /* k communications sharing, no gamma */
    if (!(isfinite(t_a) && t_a > 0 && t_a <= top))
        return ct_err_set(err, "GigE gamma fit: t_a = %g s (accepted: 0 < t_a <= %d*beta*t_ref "
                               "= %g s, giving 0 <= gamma_o < 1)",
                          t_a, k, top);
    if (!(isfinite(t_f) && t_f > 0 && t_f <= top))
        return ct_err_set(err, "GigE gamma fit: t_f = %g s (accepted: 0 < t_f <= %d*beta*t_ref "
                               "= %g s, giving 0 <= gamma_i < 1)",
                          t_f, k, top);
    /* 001 §V-A with k = 3 (Fig. 4): skew_out = 1 - t_a / (3 share t_ref), likewise skew_in;
     * k = 2 is the same branch of p_o / p_i on the 4-node scheme mix4 (calibrate.h) */
    *skew_out = 1.0 - t_a / top;
    *skew_in = 1.0 - t_f / top;
    return 0;
}
