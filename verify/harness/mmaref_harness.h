/* mmaref_harness: the driver, monitor and scoreboard of the testbenches
 * that `mmaref verify` generates (docs/verify.md), for a unit of any port
 * layout.  The generated SystemVerilog calls the mmaref_vfy_* functions
 * through DPI-C with bit vectors at the widths of the unit's ports; the
 * generated C++ main calls mmaref_vfy_status and mmaref_vfy_timeout.
 *
 * The campaign comes from a plan file that `mmaref verify` writes, one
 * record a line:
 *   mmaref-plan 1
 *   bus <AW> <BW> <CW> <DW> <FW> <MW> <TW>   port bits the testbench passes
 *                                           (FW 0: no flags, TW 0: in order)
 *   flagbits <bit 0's flag> ...             per flags-port bit from bit 0:
 *                                           0 inexact .. 4 invalid, -1 none
 *   out <directory>                         results and mismatch files
 *   seed <n>  gaps <per 256>                input gaps (no vector a cycle)
 *   mode <name> <port value, hex> <instruction or configuration>
 *   a|b <slot bits> <box> <bit offset of element 0> ... <of element K-1>
 *   sa|sb <slot bits> <box> <bit offset of scale 0> ...   block scales: in
 *                                           the a and b buses, above a and b
 *   c|d <box>                               box: zero nan sign any
 *   tile <M> <N> <beats in> <beats out>     a matrix unit; then its layouts
 *   a|b|c|d <slot bits> <box> <beat> <offset> ...  per element, row-major
 *   timing <latency> <lmax> <measure>       the timing watch: the description's
 *                                           latency (-1: out_valid), the
 *                                           largest the testbench waits for,
 *                                           1 to measure it (--latency auto)
 *   sample <n>                              matching results kept for the
 *                                           triage per mode (-1: all)
 *   stop 1                                  end the campaign at the first
 *                                           mismatch (mutation campaigns)
 *   item <mode index> suite|file|random <label> <first> <end> <path|seed>
 * Every item runs vectors [first, end) of its source; mode and operand
 * lines apply to the mode above them.
 */
#ifndef MMAREF_HARNESS_H
#define MMAREF_HARNESS_H

#include "svdpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the plan; NULL after a message on stderr (status 2). */
void *mmaref_vfy_open(const char *plan);
/* The next vector, packed into the unit's input buses: 1 a vector (or the
 * first beat of a matrix unit's tile), 3 a later beat of the tile going
 * in, 0 none this cycle (a gap, a full tag space, or draining between
 * items), 2 the campaign is over, 4 stop now (after the first mismatch, with
 * the plan's `stop 1`: the testbench calls mmaref_vfy_finish), -1 an error
 * (bad vector file; status 2). */
int mmaref_vfy_push(void *h, svBitVecVal *a, svBitVecVal *b, svBitVecVal *c,
                    svBitVecVal *mode, svBitVecVal *tag);
/* A clock edge after reset, for the timing watch (mmaref_timing.h):
 * taken, whether the unit took a vector at this edge; d, its result bus.
 * 1 while the watch wants edges, 0 when the testbench may stop calling. */
int mmaref_vfy_watch(void *h, int taken, const svBitVecVal *d);
/* A result of the unit: 0 it matches the oldest vector in flight (or the
 * one of its tag), 1 it does not (recorded); 2 a beat of a tile's D with
 * more to come. */
int mmaref_vfy_pop(void *h, const svBitVecVal *d, const svBitVecVal *flags,
                   const svBitVecVal *tag);
/* The unit gave no result for `idle` cycles with vectors in flight (and,
 * with input_blocked, took no input either): they are recorded as
 * mismatches of class "no result"; ends the campaign after `cycles` cycles
 * and returns the status. */
int mmaref_vfy_stall(void *h, int idle, int input_blocked, long long cycles);
/* Ends the campaign: the remaining item lines, the results file; returns
 * the status (0 every vector matched, 1 a mismatch). */
int mmaref_vfy_finish(void *h, long long cycles);

/* For the C++ main: the exit status (3 while the campaign runs), and the
 * wall-clock limit reached (records it, ends the campaign with status 1). */
int mmaref_vfy_status(void);
void mmaref_vfy_timeout(double seconds, long long cycles);

#ifdef __cplusplus
}
#endif
#endif
