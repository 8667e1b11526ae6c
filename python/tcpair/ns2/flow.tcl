# Shared by one_link.tcl, snoop_lan.tcl and two_links.tcl: the bulk TCP flow
# each compares with tcpair's, and the line each prints at the end.

# bulk_flow SRC DST VARIANT WINDOW LIMITED_TRANSMIT: an FTP source over Reno or
# NewReno from SRC to a TCPSink at DST, started at 0; returns the sender.
# packetSize_ 960 is 1000 bytes on the wire; singledup_ is limited transmit.
proc bulk_flow {src dst variant window limited_transmit} {
    global ns
    switch -- $variant {
        reno    { set tcp [new Agent/TCP/Reno] }
        newreno { set tcp [new Agent/TCP/Newreno] }
        default { puts stderr "unknown variant $variant (reno | newreno)"; exit 2 }
    }
    $tcp set window_ $window
    $tcp set packetSize_ 960
    # tcpair's default initial window is 1 segment (docs/tcp.md); ns-2.35's is 2.
    $tcp set windowInit_ 1
    $tcp set singledup_ $limited_transmit
    set sink [new Agent/TCPSink]
    $ns attach-agent $src $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at 0.0 "$ftp start"
    return $tcp
}

# report TCP DURATION: one line of "key value" pairs (segments acknowledged,
# goodput, retransmitted packets, timeouts), then exit.
proc report {tcp duration} {
    set segments [expr {[$tcp set ack_] + 1}]
    puts [format "segments %d goodput_kbps %.6f retransmits %d timeouts %d" \
        $segments [expr {$segments * 1000 * 8 / $duration / 1000.0}] \
        [$tcp set nrexmitpack_] [$tcp set nrexmit_]]
    exit 0
}
