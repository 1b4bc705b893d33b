#!/bin/bash
B=/work/main/build/bench/mpi/ct-mpibench
H=/work/main/doc/placement-runs/2026-11-23-s5-quiet/halo2d-phased-2/optimized.hosts
for r in 1 2 3; do for y in 0 1; do
export OMPI_MCA_mpi_yield_when_idle=$y
b=$(srun --mpi=pmix -n 8 -m block $B pattern --pattern halo2d --size 1M --phased --reps 5 --warmup 1 --no-header 2>&1 | awk -F, '/^pattern,/{print $4}')
o=$(SLURM_HOSTFILE=$H srun --mpi=pmix -n 8 -m arbitrary $B pattern --pattern halo2d --size 1M --phased --reps 5 --warmup 1 --no-header 2>&1 | awk -F, '/^pattern,/{print $4}')
echo "yield=$y round $r block $b optimized $o"
done; done
