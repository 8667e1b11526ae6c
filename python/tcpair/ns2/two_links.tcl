# ns-2.35 side of the two-wireless-link check (docs/clrp.md, docs/validation.md):
# the CLRP paper's MH -> MH path (Sun et al. 2005 Fig. 3, tcpair's
# scenarios/clrp_two_links.toml): MH1 -- BS1 over a wireless hop, BS1 -- BS2
# over a 10 Mb/s 100 ms wired link, BS2 -- MH2 over a second wireless hop, one
# bulk TCP flow MH1 -> MH2, uniform packet loss p on each hop's data direction.
# Each wireless hop is a two-node LAN as in snoop_lan.tcl, its base-station end
# running ns-2's Snoop (LL/LLSnoop) when SNOOP is 1, a plain LL when 0.
#
#   ns two_links.tcl VARIANT P WINDOW QUEUE DURATION SEED LIMITED_TRANSMIT SNOOP ELN
#
# ELN is the sender's eln_ (1: MH1 reacts to the ELN marks BS1's Snoop sets on
# the ACKs it relays toward MH1; ns-2.35's default is 0).
# Translation as in snoop_lan.tcl: packetSize_ 960 (1000 bytes on the wire),
# queue-limit = QUEUE + 1, windowInit_ 1, singledup_ = limited transmit, the
# Macs' bandwidth_ 2.128 Mb/s (their 64-byte header), and each receiving Mac's
# delay_ the transmission time tcpair's 2 Mb/s link gives the frames it
# receives (a segment at BS1 and MH2, an ACK at MH1 and BS2), since ns-2's
# plain Mac hands a frame up at its first bit. tcpair's expo loss and ns-2's
# uniform ErrorModel are the same process in distribution (geometric gaps).
# Prints one line of "key value" pairs.
if {[llength $argv] != 9} {
    puts stderr "usage: ns two_links.tcl VARIANT P WINDOW QUEUE DURATION SEED LIMITED_TRANSMIT SNOOP ELN"
    exit 2
}
lassign $argv variant p window queue duration seed limited_transmit snoop eln

set ns [new Simulator]
source [file join [file dirname [info script]] flow.tcl]
global defaultRNG
$defaultRNG seed $seed

set mh1 [$ns node]
set bs1 [$ns node]
set bs2 [$ns node]
set mh2 [$ns node]
wired_link $bs1 $bs2 10Mb 100ms
set ll [expr {$snoop ? "LL/LLSnoop" : "LL"}]
set seg [expr {1000 * 8 / 2.0e6}]
set ack [expr {40 * 8 / 2.0e6}]

set lan1 [wireless_hop $bs1 $mh1 $ll $seg $ack]
set lan2 [wireless_hop $bs2 $mh2 $ll $ack $seg]
lossy $lan1 $bs1 [uniform_loss $p]
lossy $lan2 $mh2 [uniform_loss $p]

set tcp [bulk_flow $mh1 $mh2 $variant $window $limited_transmit]
$tcp set eln_ $eln

$ns at $duration "report $tcp $duration"
$ns run
