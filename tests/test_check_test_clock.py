"""scripts/check_test_clock.py: the lint step's check that no test asserts on the clock
(issue 35 item 5). What it must find, what it must leave alone, and the suite clean."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "check_test_clock.py"


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_test_clock", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _found(tmp_path: Path, source: str) -> list[int]:
    """The lines of ``source`` the checker flags."""
    path = tmp_path / "test_sample.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return [int(line.split(":")[1]) for line in _checker().check([path])]


@pytest.mark.parametrize(
    "source",
    [
        # a bound on wall or CPU time, read in the assertion
        "import time\ndef test():\n    t = 0\n    assert time.perf_counter() - t < 2\n",
        "import time\ndef test():\n    t = 0\n    assert time.process_time() - t < 2\n",
        # through names assigned from a reading, in the same function
        "import time\ndef test():\n    a = time.monotonic()\n    b = a + 1\n    assert b > 0\n",
        # an imported clock function, under another name
        "from time import perf_counter as pc\ndef test():\n    assert pc() > 0\n",
        # datetime.now, whatever the module is called
        "import datetime\ndef test():\n    assert datetime.datetime.now().year > 2000\n",
        # a deadline asserted inside a readiness loop
        "import time\ndef test():\n    end = time.monotonic() + 60\n"
        "    while True:\n        assert time.monotonic() < end, 'never ready'\n",
        # a helper of the file that returns a reading, in a tuple or alone
        "import time\ndef timed(f):\n    a = time.monotonic()\n    v = f()\n"
        "    return v, a, time.monotonic()\ndef test():\n    v, a, b = timed(int)\n"
        "    assert b - a < 1\n",
        "import time\ndef elapsed():\n    return time.monotonic()\ndef test():\n"
        "    assert elapsed() > 0\n",
    ],
)
def test_an_assertion_reading_the_clock_is_found(tmp_path: Path, source: str) -> None:
    assert len(_found(tmp_path, source)) == 1


@pytest.mark.parametrize(
    "source",
    [
        # a poll under a generous timeout that ends in pytest.fail, not an assert
        "import time, pytest\ndef test():\n    end = time.monotonic() + 60\n"
        "    while time.monotonic() < end:\n        time.sleep(0.02)\n"
        "    pytest.fail('never ready')\n",
        # a duration printed in the message only
        "import time\ndef test():\n    t = time.monotonic()\n    assert True, t\n",
        # the value a timed helper returns beside its readings
        "import time\ndef timed(f):\n    a = time.monotonic()\n    v = f()\n"
        "    return v, a, time.monotonic()\ndef test():\n    v, a, b = timed(int)\n"
        "    assert v == 0\n",
        # counts of work
        "def test():\n    lines = 3\n    assert lines <= 10\n",
    ],
)
def test_what_is_not_an_assertion_on_the_clock_is_left_alone(tmp_path: Path, source: str) -> None:
    assert _found(tmp_path, source) == []


def test_the_script_prints_file_and_line_and_fails(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text("import time\n\ndef test():\n    assert time.time() > 0\n", "utf-8")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert done.stdout == f"{bad}:4: assert time.time() > 0\n"
    (tmp_path / "test_bad.py").write_text("def test():\n    assert 1\n", "utf-8")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, "")
