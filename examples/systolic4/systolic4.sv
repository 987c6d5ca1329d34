// systolic4: a 4 x 4 output-stationary systolic array for the tile
//     D (4x4, fp32) = A (4x4, e4m3) * B (4x4, e4m3) + C (4x4, fp32)
//
// Processing element (i,j) holds D[i][j], starting from C[i][j].  A[i][k]
// travels right along row i, B[k][j] down column j; when the pair k meets
// at (i,j) the element adds its product:
//     acc = RZ_fp32(acc + A[i][k]*B[k][j]),
// the exact product and acc aligned to the larger exponent, each cut toward
// zero F bits below it, added exactly, then cut to fp32 (k in order 0..3).
// A zero term takes no part in the larger exponent.  Any NaN gives
// 7fffffff, an Inf accumulator stays Inf, a zero result is +0, and a sum
// of 2^128 or more becomes Inf.
//
// The tile comes in over four beats (in_valid/in_ready): beat k carries
// column k of A (a_col: A[i][k] in bits [8i +: 8]), row k of B (b_row:
// B[k][j] in [8j +: 8]) and row k of C (c_row: C[k][j] in [32j +: 32]).
// The array then runs for 10 cycles (the last pair meets at (3,3) in cycle
// 3+3+3), and D leaves over four beats (out_valid/out_ready): row r in beat
// r (d_row: D[r][j] in [32j +: 32]).  A new tile is taken when D is out.
//
// `define BROKEN_PE gives processing element (1,2) an accumulator of 16
// fraction bits instead of 24 (the broken variant of the example).

// one processing element: the accumulate step and the registers that pass
// A to the right and B down
module systolic4_pe #(parameter int F = 24) (
  input  logic        clk,
  input  logic        load,             // acc <= c
  input  logic [31:0] c,
  input  logic        v_in,             // a_in and b_in are a pair to add
  input  logic [7:0]  a_in, b_in,
  output logic        v_out,
  output logic [7:0]  a_out, b_out,
  output logic [31:0] acc
);
  // e4m3 (OCP e4m3fn): exponent field 4 bits, bias 7, no Inf, NaN S.1111.111
  function automatic logic signed [9:0] e4m3_exp(input logic [7:0] x);
    return x[6:3] == 0 ? -10'sd6 : $signed({6'b0, x[6:3]}) - 10'sd7;
  endfunction

  function automatic logic [31:0] step(input logic [31:0] s, input logic [7:0] a, input logic [7:0] b);
    logic               s_nan, s_inf, s_zero, p_nan, p_zero, neg;
    logic signed [9:0]  es, ep, emax;
    logic [23:0]        ms;
    logic [7:0]         mp;
    logic signed [63:0] ts, tp, sum;
    logic [63:0]        mag, m;
    int                 sh, lead, e;
    s_nan  = s[30:23] == 8'hff && s[22:0] != 0;
    s_inf  = s[30:23] == 8'hff && s[22:0] == 0;
    s_zero = s[30:0] == 0;
    p_nan  = a[6:0] == 7'h7f || b[6:0] == 7'h7f;
    p_zero = a[6:0] == 0 || b[6:0] == 0;
    if (s_nan || p_nan) return 32'h7fffffff;
    if (s_inf) return s;
    if (s_zero && p_zero) return 32'h0;
    // s = ms * 2^(es - 23); the product = mp * 2^(ep - 6)
    es = s[30:23] == 0 ? -10'sd126 : $signed({2'b0, s[30:23]}) - 10'sd127;
    ms = {s[30:23] != 0, s[22:0]};
    ep = e4m3_exp(a) + e4m3_exp(b);
    mp = {4'b0, a[6:3] != 0, a[2:0]} * {4'b0, b[6:3] != 0, b[2:0]};
    emax = s_zero ? ep : p_zero ? es : (es > ep ? es : ep);
    // each term in units of 2^(emax - F), cut toward zero
    sh = int'(es) - int'(emax) + F - 23;
    ts = s_zero ? 64'sd0 : sh >= 0 ? 64'(ms) << sh : -sh >= 64 ? 64'sd0 : 64'(ms) >> -sh;
    sh = int'(ep) - int'(emax) + F - 6;
    tp = p_zero ? 64'sd0 : sh >= 0 ? 64'(mp) << sh : -sh >= 64 ? 64'sd0 : 64'(mp) >> -sh;
    sum = (s[31] ? -ts : ts) + ((a[7] ^ b[7]) ? -tp : tp);
    if (sum == 0) return 32'h0;
    neg = sum < 0;
    mag = neg ? 64'(-sum) : 64'(sum);
    lead = 0;
    for (int i = 0; i < 64; i++) if (mag[i]) lead = i;
    e = int'(emax) - F + lead;              // the exponent of the leading bit
    if (e > 127) return {neg, 31'h7f800000};
    if (e >= -126) begin                    // normal: keep 24 bits, cut the rest
      m = lead >= 23 ? mag >> (lead - 23) : mag << (23 - lead);
      return {neg, 8'(e + 127), m[22:0]};
    end
    sh = int'(emax) - F + 149;              // subnormal: bits of weight 2^-149 and up
    m = sh >= 0 ? mag << sh : -sh >= 64 ? 64'd0 : mag >> -sh;
    return m == 0 ? 32'h0 : {neg, 8'd0, m[22:0]};
  endfunction

  always_ff @(posedge clk) begin
    if (load) acc <= c;
    else if (v_in) acc <= step(acc, a_in, b_in);
    v_out <= v_in;
    a_out <= a_in;
    b_out <= b_in;
  end
endmodule

module systolic4 (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         in_valid,
  output logic         in_ready,
  input  logic [31:0]  a_col,
  input  logic [31:0]  b_row,
  input  logic [127:0] c_row,
  output logic         out_valid,
  input  logic         out_ready,
  output logic [127:0] d_row
);
  localparam int F = 24;
`ifdef BROKEN_PE
  localparam int F_BROKEN = 16;
`else
  localparam int F_BROKEN = F;
`endif

  typedef enum logic [1:0] {LOAD, RUN, OUT} state_t;
  state_t      state;
  logic [1:0]  beat;                    // input beat, then output row
  logic [3:0]  t;                       // cycle of the run
  logic [7:0]  abuf [4][4];             // A[i][k]
  logic [7:0]  bbuf [4][4];             // B[k][j]
  logic [31:0] cbuf [4][4];             // C[i][j]

  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) begin
      state <= LOAD;
      beat <= 0;
      t <= 0;
    end else begin
      case (state)
        LOAD: if (in_valid) begin
          for (int i = 0; i < 4; i++) begin
            abuf[i][beat] <= a_col[8*i +: 8];
            bbuf[beat][i] <= b_row[8*i +: 8];
            cbuf[beat][i] <= c_row[32*i +: 32];
          end
          beat <= beat + 1;
          if (beat == 3) begin
            state <= RUN;
            t <= 0;
          end
        end
        RUN: begin
          t <= t + 1;
          if (t == 10) state <= OUT;        // cycle 0 loads C, 1..10 run the pairs
        end
        OUT: if (out_ready) begin
          beat <= beat + 1;
          if (beat == 3) state <= LOAD;
        end
        default: state <= LOAD;
      endcase
    end
  assign in_ready = state == LOAD;
  assign out_valid = state == OUT;

  // the array: row i is fed A[i][k] in run cycle k+i+1, column j B[k][j] in
  // cycle k+j+1, so that the pair k meets at (i,j) in cycle k+i+j+1
  logic        va [4][5];             // [i][j]: into element (i,j); [i][4] leaves the row
  logic [7:0]  ah [4][5];
  logic [7:0]  bv [5][4];             // [i][j]: into element (i,j); [4][j] leaves the column
  logic [31:0] acc [4][4];
  for (genvar i = 0; i < 4; i++) begin : g_feed
    logic signed [4:0] k;               // the pair fed to row i and column i this cycle
    assign k = $signed({1'b0, t}) - 5'sd1 - 5'(i);
    assign va[i][0] = state == RUN && k >= 0 && k < 4;
    assign ah[i][0] = abuf[i][k[1:0]];
    assign bv[0][i] = bbuf[k[1:0]][i];
  end
  for (genvar i = 0; i < 4; i++) begin : g_row
    for (genvar j = 0; j < 4; j++) begin : g_col
      localparam int FPE = (i == 1 && j == 2) ? F_BROKEN : F;
      systolic4_pe #(.F(FPE)) pe (
        .clk(clk), .load(state == RUN && t == 0), .c(cbuf[i][j]),
        .v_in(va[i][j]), .a_in(ah[i][j]), .b_in(bv[i][j]),
        .v_out(va[i][j+1]), .a_out(ah[i][j+1]), .b_out(bv[i+1][j]),
        .acc(acc[i][j]));
    end
  end

  always_comb
    for (int j = 0; j < 4; j++) d_row[32*j +: 32] = acc[beat][j];
endmodule
