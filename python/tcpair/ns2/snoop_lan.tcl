# ns-2.35 side of tcpair's Snoop cross-check (docs/validation.md): the path of
# one_link.tcl (FH -- BS -- MH, one bulk TCP flow FH -> MH, uniform packet loss
# p on BS -> MH), with the last hop a two-node LAN whose base-station end runs
# ns-2's Snoop (LL/LLSnoop, tcp/snoop.cc); the mobile host's end is a plain LL.
# The tcpair side is scenarios/clrp_one_link.toml with nodes.bs.bs =
# ["snoop_ns2"] (SNOOP 1) or [] (SNOOP 0, the same LAN without Snoop).
#
#   ns snoop_lan.tcl VARIANT P WINDOW QUEUE DURATION SEED LIMITED_TRANSMIT SNOOP [TRACE]
#
# P is a loss rate, or list:FILE for a drop list (ErrorModel/List: the packet
# numbers in FILE, from 0, are lost; tcpair's `list` model with the same
# numbers less one, ns-2's SYN being its packet 0). TRACE, if given, is
# where `trace-all` writes ns-2's packet trace.
#
# Translation, beyond one_link.tcl's (packetSize_ 960 = 1000 bytes on the wire,
# queue-limit = QUEUE + 1, windowInit_ 1, singledup_ = limited transmit):
# - ns-2's Mac adds a 64-byte MAC header to every frame's transmission time,
#   so each interface sends at 2 Mb/s x 1064 / 1000: a 1000-byte segment takes
#   4 ms, as on tcpair's 2 Mb/s link (a 40-byte ACK takes 0.39 ms instead of
#   0.16 ms, on the uncongested reverse direction).
# - ns-2's plain Mac and Channel hand a frame to the receiver at its first
#   bit (Channel::sendUp schedules the reception after the propagation delay;
#   the transmission time holds only the sender's Mac). tcpair's link, like
#   ns-2's duplex-link, delivers after the last bit. The receiving Mac's
#   delay_ adds the transmission time tcpair's link gives the frames that
#   direction carries: 4 ms for a 1000-byte segment at the MH, 0.16 ms for a
#   40-byte ACK at the BS. Without it the MH's ACKs reach the BS one
#   segment time early and Snoop's local retransmissions queue behind fewer
#   packets (at p = 0.2: 415 against 256 kb/s, docs/validation.md).
# - The LL delay is the link's 64 us; ns-2's Channel adds 4 us.
# - The loss sits between the MH's Mac and its LL: after transmission and
#   propagation, as tcpair's error models act.
# Prints one line of "key value" pairs.
if {[llength $argv] < 8 || [llength $argv] > 9} {
    puts stderr "usage: ns snoop_lan.tcl VARIANT P WINDOW QUEUE DURATION SEED LIMITED_TRANSMIT SNOOP \[TRACE\]"
    exit 2
}
lassign $argv variant p window queue duration seed limited_transmit snoop trace

set ns [new Simulator]
source [file join [file dirname [info script]] flow.tcl]
if {$trace ne ""} {
    set tf [open $trace w]
    $ns trace-all $tf
}
global defaultRNG
$defaultRNG seed $seed

set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
wired_link $fh $bs 10Mb 10ms
set ll [expr {$snoop ? "LL/LLSnoop" : "LL"}]
# tcpair's transmission times on its 2 Mb/s link: an ACK at the BS, a segment at the MH.
set lan [wireless_hop $bs $mh $ll [expr {40 * 8 / 2.0e6}] [expr {1000 * 8 / 2.0e6}]]

if {[string match list:* $p]} {
    # ErrorModel/List: the packets numbered in the file (from 0, in arrival
    # order at the MH; ns-2's first packet is the 40-byte SYN) are lost.
    set em [new ErrorModel/List]
    set fd [open [string range $p 5 end]]
    $em droplist [read $fd]
    close $fd
} else {
    set em [uniform_loss $p]
}
lossy $lan $mh $em

set tcp [bulk_flow $fh $mh $variant $window $limited_transmit]

proc finish {} {
    global tcp duration ns trace
    if {$trace ne ""} { $ns flush-trace }
    report $tcp $duration
}
$ns at $duration "finish"
$ns run
