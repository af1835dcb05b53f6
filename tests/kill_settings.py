"""The project's settings plus the test-only :class:`tests.kill_switch.KillAfterRow`
(``-s EXTENSIONS=...`` would replace the project's extensions, not add to them)."""

from webmd_spider.settings import *  # noqa: F403
from webmd_spider.settings import EXTENSIONS as _PROJECT_EXTENSIONS

EXTENSIONS = {**_PROJECT_EXTENSIONS, "tests.kill_switch.KillAfterRow": 1000}
