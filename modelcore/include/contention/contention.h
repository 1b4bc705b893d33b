/* libcontention: network contention models for task mapping decisions.
 * Umbrella header; each unit's header documents its paper and equations. */
#ifndef CONTENTION_CONTENTION_H
#define CONTENTION_CONTENTION_H

#include "contention/error.h"
#include "contention/units.h"
#include "contention/hockney.h"
#include "contention/commgraph.h"
#include "contention/penalty.h"
#include "contention/models.h"
#include "contention/progressive.h"
#include "contention/alltoall.h"
#include "contention/plogp.h"
#include "contention/grid_lg.h"
#include "contention/fit.h"
#include "contention/signatures.h"
#include "contention/layout.h"
#include "contention/pattern.h"
#include "contention/score.h"
#include "contention/trace.h"
#include "contention/simulate.h"
#include "contention/benchparse.h"
#include "contention/calibrate.h"
#include "contention/svgplot.h"
#include "contention/fileio.h"
#include "contention/p2p.h"
#include "contention/collective.h"
#include "contention/fit_alltoall.h"
#include "contention/placement.h"
#include "contention/topology.h"

#endif
