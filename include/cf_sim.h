/* cf_sim.h — the public API of src/sim: the inextensible FEM cloth model of
 * Coltraro et al. (thesis ch. 2; docs/design.md §4) and its solvers.
 *
 * Why it looks like this
 * ----------------------
 * - No I/O and no global state: every object is allocated by the caller and
 *   passed explicitly, so simulations can run concurrently in threads
 *   (sweeps run thousands of them).
 * - Vectors of positions/velocities are node-major: x[3*i + d], d = 0,1,2
 *   for the x, y, z coordinates of node i. z is up, gravity is -g e_z.
 * - Errors are returned as a status code; when a `cf_error *` is given the
 *   message says what failed and where (step, time, violation ...).
 * - The rest metric (T tensors, edge lengths, masses, bending matrix) is taken
 *   from the mesh's node positions `mesh->x` at allocation time
 *   (docs/design.md §4: for a recording this is the recorded first frame,
 *   as in thesis §4.2.2).
 *
 * Ownership: functions returning a pointer return a new object owned by the
 * caller (free it with the matching _free). Pointers passed in are borrowed
 * for the duration of the call, except where a comment says the object keeps
 * them (cf_model and cf_sim keep a pointer to their mesh: the mesh must
 * outlive them and must not be modified).
 */
#ifndef CF_SIM_H
#define CF_SIM_H

/* The parts, by concern: */
#include "cf_sim_mesh.h"  /* meshes and the inextensible model's constraint rows */
#include "cf_sim_run.h"  /* the simulator's parameters, its steps and the drive of its held nodes */
#include "cf_sim_obstacles.h"  /* obstacles and contacts */
#include "cf_sim_sens.h"  /* forward sensitivities of a simulation to its parameters */

#endif
