// mmaref_verify_tb: the testbench `mmaref verify` generated for @TOP@
// from @DUTFILE@.  Generated: edit the description, not this file.
//
// Each cycle the driver takes the next vector from the harness (the C side,
// mmaref_harness.c: it generates or reads the vector, computes the model's
// result and queues it) when its input register is free, and the monitor
// hands every result the unit gives to the harness, which checks it against
// the vector in flight.  The unit's inputs are registered in a process of
// their own, away from the DPI calls (Verilator then keeps the unit's logic
// in locals).
//
// Plusargs: +plan=<file> (required)  +bp=<0..255> output back-pressure per
// 256 cycles  +seed=<n>  +maxwait=<cycles without a result, vectors in
// flight, before the unit is reported as not answering>  +latency=<edges
// from input to result of a unit without out_valid>
module mmaref_verify_tb (input logic clk);
  localparam int AW = @AW@, BW = @BW@, CW = @CW@, DW = @DW@;
  localparam int FW = @FWB@, MW = @MWB@, TW = @TWB@;   // at least 1 bit each
  localparam int RESET_CYCLES = @RESET_CYCLES@;

  import "DPI-C" function chandle mmaref_vfy_open(input string plan);
  import "DPI-C" function int mmaref_vfy_push(input chandle h, output bit [AW-1:0] a,
                                              output bit [BW-1:0] b, output bit [CW-1:0] c,
                                              output bit [MW-1:0] m, output bit [TW-1:0] t);
  import "DPI-C" function int mmaref_vfy_pop(input chandle h, input bit [DW-1:0] d,
                                             input bit [FW-1:0] f, input bit [TW-1:0] t);
  import "DPI-C" function int mmaref_vfy_watch(input chandle h, input int taken, input bit [DW-1:0] d);
  import "DPI-C" function int mmaref_vfy_stall(input chandle h, input int idle, input int blocked,
                                               input longint cycles);
  import "DPI-C" function int mmaref_vfy_finish(input chandle h, input longint cycles);

  // ---- the unit's inputs: the driver register and the register after it --
  logic          rst_a = 1'b1;          // reset asserted (the polarity is the port's)
  logic          v_n = 1'b0, v_r = 1'b0;
  logic [AW-1:0] a_n = '0, a_r = '0;
  logic [BW-1:0] b_n = '0, b_r = '0;
  logic [CW-1:0] c_n = '0, c_r = '0;
  logic [MW-1:0] m_n = '0, m_r = '0;
  logic [TW-1:0] t_n = '0, t_r = '0;
  logic          o_ready = 1'b1;
  // ---- what the unit gives back --------------------------------------------
  logic          i_ready, o_valid;
  logic [DW-1:0] d_o;
  logic [FW-1:0] f_o;
  logic [TW-1:0] t_o;
  int            lat = 0;               // +latency (a unit without out_valid)

@INSTANCE@
  // the input register: loaded when the unit takes what it holds, or when
  // it holds nothing.  Its own trigger (the reset too) keeps it, and the
  // unit's logic evaluated after it, in a function apart from the DPI
  // calls: Verilator then keeps the unit's signals in locals, not members
  // (the testbench runs about 1.5 times as fast).
  always_ff @(posedge clk or posedge rst_a)
    if (rst_a) v_r <= 1'b0;
    else if (!v_r || i_ready) begin
      v_r <= v_n;
      a_r <= a_n;
      b_r <= b_n;
      c_r <= c_n;
      m_r <= m_n;
      t_r <= t_n;
    end

  // ---- driver and monitor -------------------------------------------------------
  chandle  h;
  int      bp = 0, maxwait = 10000, cyc = 0, idle = 0, inflight = 0;
  bit      ended = 1'b0, done = 1'b0, watching = 1'b1;
  longint unsigned lfsr = 64'h9e3779b97f4a7c15;

  initial begin
    string plan;
    longint unsigned seed;
    plan = "";
    seed = 1;
    void'($value$plusargs("plan=%s", plan));
    void'($value$plusargs("bp=%d", bp));
    void'($value$plusargs("maxwait=%d", maxwait));
    void'($value$plusargs("latency=%d", lat));
    if ($value$plusargs("seed=%d", seed)) lfsr = lfsr ^ (seed * 64'hbf58476d1ce4e5b9);
    h = mmaref_vfy_open(plan);
    if (h == null) begin
      ended = 1'b1;
      $finish;
    end
  end

  always_ff @(posedge clk) begin
    int r, pushed, popped, beat;
    bit [AW-1:0] an;
    bit [BW-1:0] bn;
    bit [CW-1:0] cn;
    bit [MW-1:0] mn;
    bit [TW-1:0] tn;
    if (!ended) begin
      cyc <= cyc + 1;
      if (cyc == RESET_CYCLES) rst_a <= 1'b0;
      pushed = 0;
      popped = 0;
      beat = 0;
      // a result leaves the unit when it is valid and we are ready (pop
      // answers 2 for a beat of a matrix that has more to come)
      if (cyc > RESET_CYCLES && o_valid && o_ready) begin
        popped = mmaref_vfy_pop(h, d_o, f_o, t_o) != 2 ? 1 : 0;
        beat = 1;
      end
      // the timing watch (the harness's mmaref_timing): at the first
      // edges, whether the unit takes a vector and its result bus
      if (cyc > RESET_CYCLES && watching) watching <= mmaref_vfy_watch(h, (v_r && i_ready) ? 1 : 0, d_o) != 0;
      // the next vector, when the input register is free after this edge
      if (cyc > RESET_CYCLES && !done && (!v_r || i_ready)) begin
        r = mmaref_vfy_push(h, an, bn, cn, mn, tn);
        v_n <= (r == 1 || r == 3);
        if (r == 1 || r == 3) begin     // 3: a later beat of a matrix in flight
          a_n <= an;
          b_n <= bn;
          c_n <= cn;
          m_n <= mn;
          t_n <= tn;
          pushed = r == 1 ? 1 : 0;
        end else if (r == 2) begin
          done <= 1'b1;
        end else if (r < 0) begin
          ended <= 1'b1;
          $finish;
        end
      end
      inflight <= inflight + pushed - popped;
      // output back-pressure from a xorshift register
      lfsr <= lfsr ^ (lfsr << 13) ^ (lfsr >> 7) ^ (lfsr << 17);
      o_ready <= @O_READY_RULE@;
      // a unit that stops answering is reported, not waited for: cycles
      // since the last result, while vectors are in flight
      idle <= (beat != 0 || inflight + pushed - popped == 0) ? 0 : idle + 1;
      if (idle >= maxwait) begin
        void'(mmaref_vfy_stall(h, idle, (v_r && !i_ready) ? 1 : 0, longint'(cyc)));
        ended <= 1'b1;
        $finish;
      end else if (done && inflight + pushed - popped == 0) begin
        void'(mmaref_vfy_finish(h, longint'(cyc)));
        ended <= 1'b1;
        $finish;
      end
    end
  end
endmodule
