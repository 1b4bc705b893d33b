#!/bin/bash
# one trace: retried when a step fails (16 ranks on 2 cores sometimes do)
run() { # name srun-args...
    local name=$1 i
    shift
    for i in 1 2 3; do
        srun --kill-on-bad-exit=1 --mpi=pmix "$@" "/var/tmp/s33/b/bench/mpi/ct-tracer" "/var/tmp/s33/runs/205m-default-q20/traces/$name.trace" \
            "/var/tmp/s33/runs/205m-default-q20/measured/$name.measured" --runs 5 >"/var/tmp/s33/runs/205m-default-q20/measured/$name.out" 2>&1 && return 0
        echo "# $name: attempt $i failed" >>"/var/tmp/s33/runs/205m-default-q20/measured/failures.txt"
    done
    return 1
}
run ring256 -N4 -n4 --ntasks-per-node=1
run halves256 -N4 -n4 --ntasks-per-node=1
run ring1m -N4 -n4 --ntasks-per-node=1
run ring256c -N4 -n8 --ntasks-per-node=2 --distribution=cyclic
# the 2 x 1 exchange as calibrate times it (polled every up to 500 us) and
# blocking, as ct-tracer's and most applications' waits (interleaved, twice)
for k in 1 2; do
    for w in polled blocking; do
        for i in 1 2 3; do
            srun --kill-on-bad-exit=1 --mpi=pmix -N2 -n2 "/var/tmp/s33/b/bench/mpi/ct-mpibench" alltoall                 --sizes 128K,256K,512K --reps 10 $( [ $w = blocking ] && echo --blocking )                 >"/var/tmp/s33/runs/205m-default-q20/measured/exchange-$w-$k.csv" 2>/dev/null && break
        done
    done
done
