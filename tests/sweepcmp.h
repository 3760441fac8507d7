/* sweepcmp.h — what the tests of distributed and resumed sweeps share
 * (test_resume, test_slurm, test_experiment_cli): a small synthetic
 * recording to sweep, the bitwise comparison of two results files' sweeps,
 * and running clothfit under mpirun. */
#ifndef CF_TEST_SWEEPCMP_H
#define CF_TEST_SWEEPCMP_H
#include <stddef.h>

/* A 1.5 s shaken 5 x 4 marker recording (HDF5, with its lattice) at path;
 * 0 on success. */
int cf_test_sweep_recording(const char *path);
/* dir/a and dir/b hold one recording each whose sweeps are equal bit for bit
 * (grid with its mu axis if any, errors, stds, status, pruned flags, best point); failed CHECKs
 * otherwise. */
void same_sweep(const char *dir, const char *a, const char *b);
/* Prepares this process's environment for running exe under mpirun (root
 * allowed, no single-copy transport, no leak check of Open MPI's own
 * allocations under AddressSanitizer) and finds mpirun (into mpirun[size]).
 * 1 when exe is built with Open MPI and mpirun is found; 0 with a line on
 * stdout naming the test (who) when exe is built without it (the caller
 * skips its MPI part); a failed CHECK and 0 when exe has Open MPI but
 * mpirun is not on PATH.  dir: a folder to run exe --version in. */
int cf_test_mpi_setup(const char *who, const char *exe, const char *dir, char *mpirun, size_t size);
#endif
