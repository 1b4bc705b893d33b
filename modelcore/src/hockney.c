/* Hockney point-to-point model (papers 000/002 §III, "Transmission Model"). */
#include "contention/hockney.h"

double ct_hockney(double alpha, double beta, double m)
{
    return alpha + m * beta; /* 000 §3: alpha + w_ij * beta */
}

double ct_hockney_beta_from_bw(double bytes_per_s)
{
    return bytes_per_s > 0 ? 1.0 / bytes_per_s : 0.0; /* 000 §3: 1/beta is the bandwidth */
}
