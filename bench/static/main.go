// Command static is the baseline of slotd's read-throughput targets
// (PERF-NOTES): a fasthttp server with fasthttp/router, as slotd's front
// end is, answering every GET with the same prepared bytes. Measure slotd
// and static in one run with bench/load and compare the ratio, never
// absolute figures across runs.
//
// # Usage
//
//	go run ./bench/static [-listen ADDR] [-body-file FILE] [-content-type T]
//
// Without -body-file it answers the 13-byte "Hello, World!" (the
// hello-world block); with one, that file's bytes, e.g. an availability
// answer saved from slotd, so both servers send the same bytes.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8090", "listen `address`")
	bodyFile := flag.String("body-file", "", "answer with this `file`'s bytes (default: Hello, World!)")
	contentType := flag.String("content-type", "application/json", "Content-Type of the answer")
	flag.Parse()

	body := []byte("Hello, World!")
	ct := "text/plain; charset=utf-8"
	if *bodyFile != "" {
		b, err := os.ReadFile(*bodyFile)
		if err != nil {
			log.Fatal(err)
		}
		body, ct = b, *contentType
	}
	r := router.New()
	r.GET("/{path:*}", func(ctx *fasthttp.RequestCtx) {
		ctx.SetContentType(ct)
		ctx.SetBody(body)
	})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("static: serving %d bytes on http://%s/\n", len(body), ln.Addr())
	log.Fatal((&fasthttp.Server{Handler: r.Handler, Name: "static"}).Serve(ln))
}
