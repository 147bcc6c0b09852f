"""Ctrl-C during a long call raises KeyboardInterrupt within moments (not when the batch
ends, and never a PanicException)."""

import signal
import subprocess
import sys
import time

import pytest

# Each call runs for hours if nothing stops it: BCTS's games on 10x20 last tens of
# millions of rows.
CALLS = {
    "play": "tetris_lab.play('bcts', games=4)",
    "fitness": "tetris_lab.fitness(tetris_lab.weights('bcts'), 'bcts', games=4, threads=1)",
}

CHILD = """
import signal, sys
import tetris_lab
signal.signal(signal.SIGINT, signal.default_int_handler)  # even where SIGINT was ignored
print("calling", flush=True)
{call}
print("finished", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is sent as on POSIX")
@pytest.mark.parametrize("name", list(CALLS))
def test_ctrl_c_raises_keyboard_interrupt_at_once(name):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(call=CALLS[name])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "calling"
        time.sleep(1.0)  # well into the batch
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
        waited = time.perf_counter() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert "finished" not in out
    assert err.rstrip().endswith("KeyboardInterrupt"), err
    assert "PanicException" not in err and "panicked" not in err, err
    # Within a second as a rule; generous for a loaded machine.
    assert waited < 5, f"KeyboardInterrupt {waited:.1f} s after Ctrl-C"
