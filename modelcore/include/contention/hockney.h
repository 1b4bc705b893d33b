/* Point-to-point transmission model (Hockney; papers 000/002 §III). */
#ifndef CONTENTION_HOCKNEY_H
#define CONTENTION_HOCKNEY_H

/* T = alpha + m * beta: alpha start-up (s), beta s/byte (1/bandwidth), m bytes. */
double ct_hockney(double alpha, double beta, double m);

#endif
