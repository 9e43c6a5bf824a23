package input

import (
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestParsePathAvoidsEncodingJSON: the scanner is the only JSON reader of
// the package. encoding/json is the oracle its tests hold it to
// (reference_test.go), never part of the parse path: its Decoder.Token
// costs an interface value per token, which is what the scanner replaced.
func TestParsePathAvoidsEncodingJSON(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(token.NewFileSet(), name, nil, goparser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "encoding/json" {
				t.Errorf("%s imports encoding/json", name)
			}
		}
	}
}
