# ns-2.35 side of tcpair's cross-check and speed comparison (docs/validation.md):
# Sun et al. 2005's one-wireless-link path, FH -- BS -- MH, one bulk TCP flow
# FH -> MH, uniform packet loss p on BS -> MH. The tcpair side is
# scenarios/clrp_one_link.toml with the same values.
#
#   ns one_link.tcl VARIANT P WINDOW QUEUE DURATION SEED LIMITED_TRANSMIT
#
# VARIANT: reno | newreno. LIMITED_TRANSMIT: 1 (ns-2.35's default, singledup_
# 1: a new segment on each of the first two duplicate ACKs, RFC 3042) or 0;
# tcpair's tcp.limited_transmit. QUEUE is counted as tcpair counts it (packets
# waiting, the one in transmission not included): ns-2's DropTail limit counts
# the packet in transmission too, so the limit set here is QUEUE + 1.
# ns-2 puts packetSize_ + 40 bytes (the TCP/IP header) on the wire; tcpair's
# packet_size is the whole packet on the wire, so packetSize_ 960 here is
# tcpair's packet_size = 1000 (goodput counts 1000 bytes per segment in both).
# Prints one line of "key value" pairs.
if {[llength $argv] != 7} {
    puts stderr "usage: ns one_link.tcl VARIANT P WINDOW QUEUE DURATION SEED LIMITED_TRANSMIT"
    exit 2
}
lassign $argv variant p window queue duration seed limited_transmit

set ns [new Simulator]
source [file join [file dirname [info script]] flow.tcl]
global defaultRNG
$defaultRNG seed $seed

set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
wired_link $fh $bs 10Mb 10ms
wired_link $bs $mh 2Mb 64us

# Loss where the packet leaves the link (after transmission and propagation),
# as tcpair's error models act.
set em [new ErrorModel]
$em unit pkt
$em set rate_ $p
$em ranvar [new RandomVariable/Uniform]
$em drop-target [new Agent/Null]
$ns link-lossmodel $em $bs $mh

set tcp [bulk_flow $fh $mh $variant $window $limited_transmit]

$ns at $duration "report $tcp $duration"
$ns run
