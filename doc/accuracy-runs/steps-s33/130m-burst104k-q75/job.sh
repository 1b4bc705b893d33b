#!/bin/bash
# one trace: retried when a step fails (16 ranks on 2 cores sometimes do)
run() { # name srun-args...
    local name=$1 i
    shift
    for i in 1 2 3; do
        srun --kill-on-bad-exit=1 --mpi=pmix "$@" "/var/tmp/s33/b/bench/mpi/ct-tracer" "/var/tmp/s33/runs/130m-burst104k-q75/traces/$name.trace" \
            "/var/tmp/s33/runs/130m-burst104k-q75/measured/$name.measured" --runs 5 >"/var/tmp/s33/runs/130m-burst104k-q75/measured/$name.out" 2>&1 && return 0
        echo "# $name: attempt $i failed" >>"/var/tmp/s33/runs/130m-burst104k-q75/measured/failures.txt"
    done
    return 1
}
run ring256 -N4 -n4 --ntasks-per-node=1
run halves256 -N4 -n4 --ntasks-per-node=1
run ring1m -N4 -n4 --ntasks-per-node=1
run ring256c -N4 -n8 --ntasks-per-node=2 --distribution=cyclic
