/* sweepcmp.h — what the tests of distributed and resumed sweeps share
 * (test_resume, test_slurm): a small synthetic recording to sweep, and the
 * bitwise comparison of two results files' sweeps. */
#ifndef CF_TEST_SWEEPCMP_H
#define CF_TEST_SWEEPCMP_H

/* A 1.5 s shaken 5 x 4 marker recording (HDF5, with its lattice) at path;
 * 0 on success. */
int cf_test_sweep_recording(const char *path);
/* dir/a and dir/b hold one recording each whose sweeps are equal bit for bit
 * (grid, errors, stds, status, pruned flags, best point); failed CHECKs
 * otherwise. */
void same_sweep(const char *dir, const char *a, const char *b);
#endif
