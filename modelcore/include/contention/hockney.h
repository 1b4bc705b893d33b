/* Point-to-point transmission model (Hockney; papers 000/002 §III). */
#ifndef CONTENTION_HOCKNEY_H
#define CONTENTION_HOCKNEY_H

/* T = alpha + m * beta: alpha start-up (s), beta s/byte (1/bandwidth), m bytes. */
double ct_hockney(double alpha, double beta, double m);

/* Bandwidth (bytes/s) -> Hockney beta (s/byte); 0 for a non-positive bandwidth. */
double ct_hockney_beta_from_bw(double bytes_per_s);

#endif
