# ns-2.35 side of tcpair's speed comparison (docs/performance.md): N bulk Reno
# flows over a dumbbell. Sender i -- r1 (10 Mb/s, 1 ms), r1 -- r2 (the
# bottleneck: BANDWIDTH_MB Mb/s, 10 ms, DropTail), r2 -- receiver i
# (10 Mb/s, 1 ms); window 30, 1000-byte packets, tcpair's TCP defaults
# (initial window 1, no limited transmit). The tcpair side is built by
# tcpair.ns2.dumbbell_scenario with the same values.
#
#   ns dumbbell.tcl N BANDWIDTH_MB QUEUE DURATION SEED
#
# QUEUE is counted as tcpair counts it (the limit set here is QUEUE + 1), and
# packetSize_ 960 puts 1000 bytes on the wire (ns-2 adds a 40-byte header).
if {[llength $argv] != 5} {
    puts stderr "usage: ns dumbbell.tcl N BANDWIDTH_MB QUEUE DURATION SEED"
    exit 2
}
lassign $argv n bw queue duration seed

set ns [new Simulator]
global defaultRNG
$defaultRNG seed $seed

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 ${bw}Mb 10ms DropTail
$ns queue-limit $r1 $r2 [expr {$queue + 1}]
$ns queue-limit $r2 $r1 [expr {$queue + 1}]
for {set i 0} {$i < $n} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 10Mb 1ms DropTail
    $ns duplex-link $r2 $d($i) 10Mb 1ms DropTail
    foreach {a b} [list $s($i) $r1 $r1 $s($i) $r2 $d($i) $d($i) $r2] {
        $ns queue-limit $a $b 51
    }
    set tcp($i) [new Agent/TCP/Reno]
    $tcp($i) set window_ 30
    $tcp($i) set packetSize_ 960
    $tcp($i) set windowInit_ 1
    $tcp($i) set singledup_ 0
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at 0.0 "$ftp($i) start"
}

proc finish {} {
    global tcp n duration
    set segments 0
    for {set i 0} {$i < $n} {incr i} {
        incr segments [expr {[$tcp($i) set ack_] + 1}]
    }
    puts [format "segments %d goodput_kbps %.6f" $segments \
        [expr {$segments * 1000 * 8 / $duration / 1000.0}]]
    exit 0
}
$ns at $duration "finish"
$ns run
