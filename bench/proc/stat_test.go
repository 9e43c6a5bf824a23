package proc

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadProc(t *testing.T) {
	st, err := Read(os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, st.RSS)
	assert.GreaterOrEqual(t, st.HWM, st.RSS)
	assert.GreaterOrEqual(t, st.CPU, time.Duration(0))

	m0, err := MachineCPU()
	require.NoError(t, err)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		// spin: the machine's busy time must grow by a tick or more
		if m, _ := MachineCPU(); m.Busy > m0.Busy {
			return
		}
	}
	t.Fatal("/proc/stat's busy time did not grow while this test spun for 5 s")
}
