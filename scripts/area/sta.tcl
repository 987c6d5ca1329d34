# OpenSTA (Debian's 2019 build): the critical path and the per-instance power
# of each mapped netlist of one point (scripts/area/sta.py fills in the names between at signs).
#
# Timing convention: every input port (but the clock) driven by @DRIVE@ with
# no input delay, every output port loaded with @LOAD@ (library capacitance units: @LOADOF@) with no
# output delay, the library's default wire-load model (@WLM@), ideal clock.
# The delay reported is the period P minus the worst setup slack: the
# longest input-to-output path of a combinational unit, the shortest clock
# period of a pipelined one.
#
# Power: this OpenSTA has no read_vcd or read_saif, and it recomputes the
# activity of every internal pin from its inputs (set_power_activity -pins
# does not survive that), so the script writes each instance's power at
# activity 0 and at activity 1 (transitions per clock period, every pin, the
# clock pins at their clock's 2): sta.py weighs each instance by the toggle
# rate of its output from the gate-level simulation (gatesim.py).
read_liberty @LIB@
proc cost_one {file top tag seq} {
    read_verilog $file
    link_design $top
    @WLMCMD@
    if {$seq} {
        create_clock -name clk -period @PERIOD@ [get_ports @CLOCK@]
    } else {
        create_clock -name clk -period @PERIOD@
    }
    set ins {}
    foreach p [all_inputs] {
        if {[get_full_name $p] != "@CLOCK@"} { lappend ins $p }
    }
    set_input_delay 0 -clock clk $ins
    set_output_delay 0 -clock clk [all_outputs]
    set_driving_cell -lib_cell @DRIVE@ -pin @DRIVEPIN@ $ins
    set_load @LOAD@ [all_outputs]
    set corner [sta::cmd_corner]
    puts "slack $tag [sta::worst_slack_corner $corner max]"
    report_checks -path_delay max -digits 3 > @DIR@/$tag.path.txt
    foreach act {0 1} {
        set_power_activity -global -activity $act -duty 0.5
        set f [open @DIR@/$tag.pwr$act w]
        foreach inst [get_cells *] {
            puts $f "[get_full_name $inst] [sta::instance_power $inst $corner]"
        }
        close $f
    }
    puts "done $tag"
}
@CALLS@
