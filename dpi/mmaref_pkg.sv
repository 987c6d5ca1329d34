// mmaref_pkg: SystemVerilog DPI-C imports of the mmaref C model
// (dpi/mmaref_dpi.c; docs/dpi.md has a minimal example).
//
// A unit is opened by instruction name ("hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
// or by configuration string ("fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,f=13,
// round=rz,p=13") and named by the returned handle.  Operands are raw
// encodings, right-aligned in longint unsigned; arrays hold exactly K
// elements (another length stops the simulation).  Declare them as
// fixed-size arrays (longint unsigned a[K]): Verilator 5.006 cannot pass
// dynamic arrays (new[K]) or queues to DPI open arrays.
//
// The packed fast-path functions (mmaref_dot_pk, mmaref_gen_pk,
// mmaref_file_next_pk, mmaref_sb_check_pk, and the scoreboard queue's
// mmaref_gen_push_pk, mmaref_file_push_pk, mmaref_sb_last_pk) take operand
// vectors of a width only the caller knows (K * format width), so the caller
// declares them in its own module scope; docs/dpi.md gives the declarations.
package mmaref_pkg;

  // ---- the model ----------------------------------------------------------
  // handle >= 0, or -1 (message on stderr and from mmaref_error())
  import "DPI-C" function int    mmaref_open(input string spec);
  import "DPI-C" function string mmaref_error();
  import "DPI-C" function int    mmaref_k(input int h);
  // encoding width of operand 0 a, 1 b, 2 c, 3 d
  import "DPI-C" function int    mmaref_width(input int h, input int which);
  import "DPI-C" function string mmaref_config(input int h);
  import "DPI-C" function string mmaref_algorithm(input int h);
  import "DPI-C" function string mmaref_name(input int h);
  // d = the unit's dot product of c, a[0..K-1], b[0..K-1]
  import "DPI-C" function longint unsigned mmaref_dot(input int h, input longint unsigned c,
                                                      input longint unsigned a[],
                                                      input longint unsigned b[]);
  // exception flags, for units that define them (the ieee units:
  // mmaref_has_flags(h) == 1): bit 0 inexact, 1 underflow, 2 overflow,
  // 3 divide by zero (never raised), 4 invalid, the RISC-V fflags and
  // TestFloat order; the _flags functions stop the simulation on a unit
  // without flags
  import "DPI-C" function int    mmaref_has_flags(input int h);
  import "DPI-C" function longint unsigned mmaref_dot_flags(input int h, input longint unsigned c,
                                                            input longint unsigned a[],
                                                            input longint unsigned b[],
                                                            output int flags);
  // 1 when two d encodings match under the unit's rules (NaN payloads)
  import "DPI-C" function int    mmaref_equal(input int h, input longint unsigned x,
                                              input longint unsigned y);

  // the value of mma_dpa parameter name realizing unit h, or fallback
  // when the RTL does not realize the unit (the mapping of mmaparams)
  import "DPI-C" function longint mmaref_rtl_param(input int h, input string name,
                                                   input longint fallback);

  // ---- constrained-random stimulus -----------------------------------------
  // mode: uniform finite cluster cancel tiny huge special carry mix
  import "DPI-C" function chandle mmaref_gen_open(input int h, input longint unsigned seed,
                                                  input string mode);
  import "DPI-C" function void   mmaref_gen_vec(input chandle g, output longint unsigned c,
                                                output longint unsigned a[],
                                                output longint unsigned b[]);

  // ---- vector files (docs/vector-format.md; .vec, .vec.gz, .vec.xz) -------
  // instr "" takes the file's own '# instr:'; null on error
  import "DPI-C" function chandle mmaref_file_open(input string path, input string instr);
  import "DPI-C" function int    mmaref_file_unit(input chandle f);
  // 1: a vector, 0: end of file, -1: error (file:line: message on stderr)
  import "DPI-C" function int    mmaref_file_next(input chandle f, output longint unsigned c,
                                                  output longint unsigned a[],
                                                  output longint unsigned b[],
                                                  output longint unsigned d,
                                                  output int has_d);
  import "DPI-C" function void   mmaref_file_close(input chandle f);

  // ---- scoreboard with functional coverage ---------------------------------
  import "DPI-C" function chandle mmaref_sb_open(input int h, input string label);
  // computes the model's d, compares it (and ref when has_ref) with got,
  // accounts coverage (cov: the DUT's coverage word, or -1); 1 on mismatch
  import "DPI-C" function int    mmaref_sb_check(input chandle sb, input longint unsigned c,
                                                 input longint unsigned a[],
                                                 input longint unsigned b[],
                                                 input longint unsigned got, input int has_ref,
                                                 input longint unsigned refd, input longint cov);
  // the queue's monitor side (the driver side is packed: see above): checks
  // got (and cov) against the oldest vector pushed; 1 on mismatch, -1 when
  // nothing is queued
  import "DPI-C" function int    mmaref_sb_pop_check(input chandle sb, input longint unsigned got,
                                                     input longint cov);
  // the same two with the DUT's exception flags (bits as mmaref_dot_flags)
  // compared with the model's: a vector whose flags differ is a mismatch
  import "DPI-C" function int    mmaref_sb_check_flags(input chandle sb, input longint unsigned c,
                                                       input longint unsigned a[],
                                                       input longint unsigned b[],
                                                       input longint unsigned got, input int flags,
                                                       input longint cov);
  import "DPI-C" function int    mmaref_sb_pop_check_flags(input chandle sb,
                                                           input longint unsigned got,
                                                           input int flags, input longint cov);
  import "DPI-C" function longint mmaref_sb_count(input chandle sb);
  import "DPI-C" function longint mmaref_sb_mismatches(input chandle sb);
  // prints "<N> vectors, <M> mismatches", first mismatches, coverage table;
  // returns the status to end the simulation with: 0 when every vector
  // matched, 1 on any mismatch, when nothing was checked, or when queued
  // vectors got no result (pass it on: $fatal on non-zero)
  import "DPI-C" function int    mmaref_sb_report(input chandle sb, input int quiet);

  // the C side stops the simulation through this on a usage error (an
  // operand array whose length is not K, a unit handle never opened)
  export "DPI-C" function mmaref_pkg_fatal;
  function automatic void mmaref_pkg_fatal(input string msg);
    $fatal(1, "%s", msg);
  endfunction

endpackage
