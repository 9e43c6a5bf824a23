package deliver

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"
)

// fakeResolver returns a Resolver that asks an in-process DNS server, over
// net.Pipe, instead of the network. The server knows the names in hosts
// (fully qualified, with the final dot) and answers NXDOMAIN for the rest,
// so search-domain variants of a name fail as they should.
func fakeResolver(hosts map[string][]netip.Addr) *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			client, server := net.Pipe()
			go serveDNS(server, hosts)
			return client, nil
		},
	}
}

// deadResolver is a Resolver with no server at all: every lookup fails.
func deadResolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "udp", Err: io.ErrClosedPipe}
		},
	}
}

// serveDNS answers queries in the TCP framing (a two-byte length before
// each message), which the Go resolver uses on a Conn that is not a
// PacketConn, until the client hangs up.
func serveDNS(c net.Conn, hosts map[string][]netip.Addr) {
	defer c.Close()
	for {
		var n [2]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return
		}
		q := make([]byte, binary.BigEndian.Uint16(n[:]))
		if _, err := io.ReadFull(c, q); err != nil {
			return
		}
		resp := dnsAnswer(q, hosts)
		if resp == nil {
			return
		}
		out := binary.BigEndian.AppendUint16(nil, uint16(len(resp)))
		if _, err := c.Write(append(out, resp...)); err != nil {
			return
		}
	}
}

// dnsAnswer builds the reply to query q: its question echoed, then an
// answer record per known address of the asked type (A or AAAA).
func dnsAnswer(q []byte, hosts map[string][]netip.Addr) []byte {
	if len(q) < 12 {
		return nil
	}
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	question := q[12 : i+5]
	qtype := binary.BigEndian.Uint16(q[i+1:])
	addrs, known := hosts[strings.ToLower(strings.Join(labels, "."))+"."]

	var answers [][]byte
	for _, a := range addrs {
		if (qtype == 1 && a.Is4()) || (qtype == 28 && a.Is6()) {
			rr := []byte{0xc0, 12} // name: pointer to the question's
			rr = binary.BigEndian.AppendUint16(rr, qtype)
			rr = binary.BigEndian.AppendUint16(rr, 1)  // class IN
			rr = binary.BigEndian.AppendUint32(rr, 60) // TTL
			rr = binary.BigEndian.AppendUint16(rr, uint16(a.BitLen()/8))
			answers = append(answers, append(rr, a.AsSlice()...))
		}
	}
	flags := uint16(0x8180) // response, recursion desired and available
	if !known {
		flags |= 3 // NXDOMAIN
	}
	resp := append([]byte{}, q[0:2]...) // id
	resp = binary.BigEndian.AppendUint16(resp, flags)
	resp = binary.BigEndian.AppendUint16(resp, 1) // questions
	resp = binary.BigEndian.AppendUint16(resp, uint16(len(answers)))
	resp = append(resp, 0, 0, 0, 0) // no authority, no additional
	resp = append(resp, question...)
	for _, rr := range answers {
		resp = append(resp, rr...)
	}
	return resp
}
