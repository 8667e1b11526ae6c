# Shared by one_link.tcl, snoop_lan.tcl and two_links.tcl: the bulk TCP flow
# each compares with tcpair's, the wired links, the wireless hop as a two-node
# LAN, its loss, and the line each prints at the end.

# wired_link A B BANDWIDTH DELAY: a DropTail duplex link whose queues hold the
# global `queue` waiting packets as tcpair counts them (+1: ns-2 counts the
# packet being sent).
proc wired_link {a b bandwidth delay} {
    global ns queue
    $ns duplex-link $a $b $bandwidth $delay DropTail
    $ns queue-limit $a $b [expr {$queue + 1}]
    $ns queue-limit $b $a [expr {$queue + 1}]
}

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

# wireless_hop BS MH LL RX_BS RX_MH: the 2 Mb/s, 64 us hop as a two-node LAN,
# link layer LL at the BS (LL/LLSnoop: ns-2's Snoop) and a plain LL at the MH,
# interface queues of the global `queue` (+1: ns-2 counts the packet sent).
# ns-2's Mac adds a 64-byte header to each frame's time (bandwidth_ 2.128 Mb/s
# gives tcpair's 4 ms per 1000-byte segment) and hands a frame up at its first
# bit: RX_BS and RX_MH are the receive delays (tcpair's transmission time of
# what each end receives) that make it deliver after the last bit, as tcpair's
# link does. Returns the LAN.
proc wireless_hop {bs mh ll rx_bs rx_mh} {
    global ns queue
    set lan [$ns make-lan [list $bs] 2Mb 64us $ll Queue/DropTail Mac Channel]
    $lan addNode [list $mh] 2Mb 64us LL Queue/DropTail Mac
    foreach n [list $bs $mh] d [list $rx_bs $rx_mh] {
        set nif [$lan set lanIface_($n)]
        [$nif set ifq_] set limit_ [expr {$queue + 1}]
        [$nif set mac_] set bandwidth_ 2128000
        [$nif set mac_] set delay_ $d
    }
    return $lan
}

# uniform_loss P: each packet lost with probability P.
proc uniform_loss {p} {
    set em [new ErrorModel]
    $em set rate_ $p
    $em ranvar [new RandomVariable/Uniform]
    return $em
}

# lossy LAN NODE EM: EM drops what NODE receives over LAN, after transmission
# and propagation (between its Mac and its LL), as tcpair's error models act.
proc lossy {lan node em} {
    $em unit pkt
    $em drop-target [new Agent/Null]
    set nif [$lan set lanIface_($node)]
    $em target [$nif set ll_]
    [$nif set mac_] up-target $em
}
