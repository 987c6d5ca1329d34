// A unit whose own flow builds it with --timing: an fp16 fused
// multiply-add (the processing element of examples/gemm_row4) whose output
// stage is a process that waits for the clock inside its body, a timing
// control Verilator accepts only with --timing (NOTIMING otherwise).  It
// waits for the falling edge, so that it reads the element's register
// after the rising edge has written it whatever the scheduler's order:
// the result is out one rising edge after the operands went in.
module timed_fma (
  input  logic        clk,
  input  logic [15:0] a, b, c,
  output logic [15:0] d,
  output logic [4:0]  fflags
);
  logic [15:0] q;
  logic [4:0]  f;
  fp16_fma_pe pe (.clk, .a, .b, .acc_in(c), .acc_out(q), .flags(f));
  initial begin
    d = '0;
    fflags = '0;
    forever begin
      @(negedge clk);
      d <= q;
      fflags <= f;
    end
  end
endmodule
