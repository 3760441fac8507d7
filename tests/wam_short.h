/* wam_short.h — the WAM study of thesis §4.1 (`clothfit experiment wam`)
 * on a shortened copy of two recordings of datasets/wam-mini, small enough
 * for the fast suite (~17 s on one core), shared by test_experiment_wam
 * (the study's results) and test_report_browser_wam (its report in a
 * browser), so both look at the same run. */
#ifndef CF_WAM_SHORT_H
#define CF_WAM_SHORT_H

/* Into dir/ds: the first 4 s of light-cotton-fast and paper-slow (1 s
 * still, 3 s of the hanger's motion: their frame files and sidecars
 * linked, absolute, from root/datasets/wam-mini/recordings), and when
 * broken is set a mesh sequence that cannot be ingested (broken.meshes, no
 * frame files, with its meta).  Then `exe experiment wam --dataset dir/ds
 * -o dir/wam.h5` on a 3 x 3 grid (delta 0.2:0.8:3*rho, alpha 1:3:3*rho),
 * 15 Nelder-Mead evaluations, no confidence, one worker: the report goes
 * to dir/wam/.  Returns its exit status; *out and *err get its stdout and
 * stderr (malloc'ed).  A folder that cannot be made is a failed CHECK. */
int cf_test_wam_study(const char *exe, const char *root, const char *dir, int broken, char **out, char **err);

#endif
