#!/bin/bash
B=/work/main/build/bench/mpi/ct-mpibench
for sz in 1048576 4194304; do
srun --mpi=pmix -n 8 -m block $B conflict --size $sz --scheme 'one=0>1' --scheme 'bidir=0>1,1>0' --scheme 'two=0>1,0>1' --scheme 'bidir2=0>1,0>1,1>0,1>0' 2>&1 | grep -v '^#'
done
