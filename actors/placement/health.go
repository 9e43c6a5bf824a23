package placement

import (
	"io"
	"net/http"

	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/labstack/echo"
)

// healthServer is the membership provider's health endpoint, made here
// rather than by the provider so that it prints nothing: the provider's
// own announces itself on stdout ("http server started on"), which is
// slotd's to write (its keys at first start), not a library's. It answers
// what the provider's own would (automanaged.NodeModel).
func healthServer(n *Node) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Logger.SetOutput(io.Discard)
	e.StdLogger.SetOutput(io.Discard)
	e.GET("/_health", func(c echo.Context) error {
		host, port, err := n.sys.GetHostPort()
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, automanaged.NewNode(n.cfg.Cluster, n.sys.ID, host, port, n.cfg.MembershipPort, []string{kind}))
	})
	return e
}
