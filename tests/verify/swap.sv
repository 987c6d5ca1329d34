// A test unit for mmaref verify: an e4m3 unit (our mma_dpa, K=4) whose results
// leave in pairs in reverse order (the second operation's first), with a
// tag to match them by; a lone operation leaves after 8 idle cycles.
module swap (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         in_valid,
  output logic         in_ready,
  input  logic [31:0]  a,
  input  logic [31:0]  b,
  input  logic [31:0]  c,
  input  logic [2:0]   tag_i,
  output logic         out_valid,
  input  logic         out_ready,
  output logic [31:0]  d,
  output logic [2:0]   tag_o
);
  logic        v;
  logic [31:0] r, cov;
  mma_dpa #(.K(4), .L(4)) u (.clk(clk), .rst_n(rst_n), .in_valid(in_valid && in_ready),
      .a(a), .b(b), .c(c), .out_valid(v), .d(r), .cov(cov));
  logic [1:0]  n;                      // results held
  logic        drain;
  logic [3:0]  idle;
  logic [31:0] d0, d1;
  logic [2:0]  t0, t1;
  assign in_ready  = !drain && n < 2;
  assign out_valid = drain;
  assign d     = n == 2 ? d1 : d0;
  assign tag_o = n == 2 ? t1 : t0;
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) begin n <= 0; drain <= 1'b0; idle <= 0; end
    else begin
      if (in_valid && in_ready) begin
        if (n == 0) begin d0 <= r; t0 <= tag_i; end
        else begin d1 <= r; t1 <= tag_i; drain <= 1'b1; end
        n <= n + 1;
        idle <= 0;
      end else if (!drain && n == 1) begin
        idle <= idle + 1;
        if (idle == 7) drain <= 1'b1;
      end
      if (drain && out_ready) begin
        n <= n - 1;
        if (n == 1) drain <= 1'b0;
      end
    end
endmodule
