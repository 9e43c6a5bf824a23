package world

import (
	"os"
	"testing"
)

func TestZZCheckBig(t *testing.T) {
	f, err := os.Open("/tmp/world-load.json")
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	if _, err := Check(f); err != nil {
		t.Fatal(err)
	}
}
