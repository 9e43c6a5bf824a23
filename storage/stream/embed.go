package stream

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Node is the configuration of a journal replica embedded in a slotd node:
// a NATS server with JetStream, clustered with its peers over routes.
type Node struct {
	Name        string   // unique in the cluster
	Dir         string   // JetStream's store directory
	Host        string   // listen address, e.g. 127.0.0.1
	ClientPort  int      // -1: any free port
	ClusterPort int      // where peers reach this node's routes
	Routes      []string // host:port of every node's cluster port, this one's included
	Cluster     string   // cluster name; default "slotd"
	// SyncInterval is how often the replica fsyncs what it holds; 0
	// fsyncs every write before acknowledging it (JetStream's
	// sync_always), which is what "never lose an acknowledged write"
	// needs when every replica can fail at once (a power cut of a
	// rack, kill -9 of every node: a replica's unsynced tail is lost with
	// its process, and a quorum that lost the same tail forgets writes it
	// acknowledged).
	SyncInterval time.Duration
}

// MaxPayload is the embedded replicas' largest message, raised from NATS's
// 1 MiB default (and a journal behind --journal-url needs the same
// max_payload): one journal record is one write of one business, and the
// write that puts a large business (its whole world-file entry, a
// business of 100,000 appointments) is tens of megabytes. 64 MiB is NATS's
// own ceiling. Checkpoints are chunked and never need it.
const MaxPayload = 64 << 20

// startTimeout bounds how long Start waits for the replica to accept
// connections.
const startTimeout = time.Minute

// Start starts the node and waits until it accepts connections (not until
// the cluster has a JetStream leader: that needs a quorum of its peers).
func Start(n Node) (*server.Server, error) {
	if n.Cluster == "" {
		n.Cluster = "slotd"
	}
	var routes []*url.URL
	for _, r := range n.Routes {
		routes = append(routes, &url.URL{Scheme: "nats", Host: r})
	}
	s, err := server.NewServer(&server.Options{ServerName: n.Name, Host: n.Host, Port: n.ClientPort, JetStream: true,
		StoreDir: n.Dir, Cluster: server.ClusterOpts{Name: n.Cluster, Host: n.Host, Port: n.ClusterPort}, Routes: routes,
		MaxPayload: MaxPayload, SyncAlways: n.SyncInterval == 0, SyncInterval: n.SyncInterval, NoLog: true, NoSigs: true})
	if err != nil {
		return nil, fmt.Errorf("stream: node %s: %w", n.Name, err)
	}
	go s.Start()
	// Seconds on an idle machine; a loaded one (CI ran three-node
	// clusters of two test packages at once) took over 10 s.
	if !s.ReadyForConnections(startTimeout) {
		// Say which listener is missing: a port another process took is
		// the usual cause.
		var missing []string
		if s.Addr() == nil {
			missing = append(missing, fmt.Sprintf("client %s:%d", n.Host, n.ClientPort))
		}
		if s.ClusterAddr() == nil {
			missing = append(missing, fmt.Sprintf("routes %s:%d", n.Host, n.ClusterPort))
		}
		s.Shutdown()
		return nil, fmt.Errorf("stream: node %s did not start within %v (not listening: %s)", n.Name, startTimeout, strings.Join(missing, ", "))
	}
	return s, nil
}
