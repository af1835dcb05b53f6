"""Distributed crawls against a real redis-server and a real local site: three
``scrapy crawl site`` workers share one frontier and give exactly the page rows of a
single-process crawl; a worker killed mid-crawl loses no pages; the fleet keeps the
per-website request spacing of one crawler."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from webmd_spider.demo.server import SiteServer

from .crawling import REPO, page_urls, prose_page
from .redis_server import RedisServer

SECTIONS, LEAVES = 20, 14  # 1 + 20 + 280 = 301 pages
COMMON = [
    *("-s", "LOG_LEVEL=INFO", "-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8"),
    *("-s", "WEBMD_MAX_PAGES=1000", "-s", "WEBMD_MAX_DEPTH=3", "-s", "WEBMD_PROGRESS_SECS=0"),
    *("-s", "WEBMD_MAX_CONCURRENCY=4", "-s", "AUTOTHROTTLE_ENABLED=False"),
]


@pytest.fixture(scope="module")
def big_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("fleet-site")
    sections = [f"/s{i}/" for i in range(SECTIONS)]
    (root / "index.html").write_text(prose_page("Home", *sections))
    for i in range(SECTIONS):
        folder = root / f"s{i}"
        folder.mkdir()
        leaves = [f"/s{i}/p{j}.html" for j in range(LEAVES)]
        (folder / "index.html").write_text(prose_page(f"Section {i}", "/", *leaves))
        for j in range(LEAVES):
            (folder / f"p{j}.html").write_text(prose_page(f"Page {i}.{j}", f"/s{i}/"))
    with SiteServer(root) as server:
        yield server


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with RedisServer() as server:
        yield server.url


def expected_pages(server: SiteServer) -> set[str]:
    urls = {server.url("/")}
    for i in range(SECTIONS):
        urls.add(server.url(f"/s{i}/"))
        urls.update(server.url(f"/s{i}/p{j}.html") for j in range(LEAVES))
    return urls


def worker(
    server: SiteServer, feed: Path, *extra: str, settings: str = "webmd_spider.settings"
) -> subprocess.Popen[str]:
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE=settings)
    command = [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start={server.url('/')}",
        "-O", str(feed), *COMMON, *extra,
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def rows_of(*feeds: Path) -> list[dict[str, Any]]:
    """The rows of every feed that exists (a worker may not have written one yet). A
    feed read while its worker writes, or a killed worker's feed, may end in part of a
    row: only complete lines (ending in a newline) are rows."""
    rows = []
    for feed in feeds:
        if feed.exists():
            text = feed.read_text(encoding="utf-8", errors="replace")
            complete = text[: text.rfind("\n") + 1]
            rows.extend(json.loads(line) for line in complete.splitlines() if line)
    return rows


def finish(processes: list[subprocess.Popen[str]], timeout: float = 150) -> list[str]:
    logs = []
    for process in processes:
        _, err = process.communicate(timeout=timeout)
        logs.append(err)
    return logs


def test_three_workers_give_the_single_process_rows(
    big_site: SiteServer, redis_url: str, tmp_path: Path
) -> None:
    single = tmp_path / "single.jsonl"
    (log,) = finish([worker(big_site, single, "-s", "WEBMD_HOST_DELAY=0")])
    reference = page_urls(rows_of(single))
    assert sorted(reference) == sorted(expected_pages(big_site)), log[-2000:]

    big_site.clear_requests()
    floor = 0.02
    feeds = [tmp_path / f"worker{i}.jsonl" for i in range(3)]
    fleet = ["-s", f"WEBMD_REDIS_URL={redis_url}", "-s", f"WEBMD_HOST_DELAY={floor}"]
    processes = [worker(big_site, feed, *fleet) for feed in feeds]
    logs = finish(processes)
    for process, err in zip(processes, logs, strict=True):
        assert process.returncode == 0, err[-3000:]
        assert "Traceback" not in err, err[-3000:]
    rows = rows_of(*feeds)
    pages = Counter(page_urls(rows))
    assert set(pages) == set(reference)
    assert max(pages.values()) == 1, [u for u, n in pages.items() if n > 1]
    working = [f for f in feeds if page_urls(rows_of(f))]
    assert len(working) >= 2, "the other workers never took pages from the shared queue"
    # one site row for the crawl, from the counters all workers kept
    sites = [r for r in rows if r["row_type"] == "site"]
    assert len(sites) == 1 and sites[0]["pages_extracted"] == len(reference)
    assert sites[0]["total_words"] == sum(r["word_count"] for r in rows if r["row_type"] == "page")
    # one run summary speaks for the crawl: totals of every worker
    summaries = [json.loads(Path(f"{f}.summary.json").read_text("utf-8")) for f in feeds]
    crawl = [x for x in summaries if x.get("scope") == "crawl"]
    assert len(crawl) == 1 and sum(x.get("scope") == "worker" for x in summaries) == 2
    assert crawl[0]["rows"]["page"] == len(reference) and crawl[0]["rows"]["site"] == 1
    # the fleet kept one crawler's spacing: each request of the website took the next
    # turn of the shared gate, one floor after the turn before (on Redis's clock), and its
    # worker waited for that turn (three workers without the gate send hundreds a
    # second). No page is asked before the seeder has robots.txt's answer, which the
    # server stamped before it went out: by order in the server's own log, the k-th
    # request after it comes k floors after that stamp at least. A busy machine only
    # makes requests later; no margin in milliseconds (issue 35).
    robots = min(r.at for r in big_site.requests if r.path == "/robots.txt")
    later = sorted(r.at for r in big_site.requests if r.path != "/robots.txt")
    assert len(later) >= len(reference) and later[0] > robots
    early = [k for k, at in enumerate(later) if at < robots + k * (floor - GATE_ROUNDING)]
    assert early == [], f"{len(early)} of {len(later)} requests came before their turn"


def test_a_killed_worker_loses_no_pages(
    big_site: SiteServer, redis_url: str, tmp_path: Path
) -> None:
    feeds = [tmp_path / f"worker{i}.jsonl" for i in range(3)]
    fleet = ["-s", f"WEBMD_REDIS_URL={redis_url}", "-s", "WEBMD_HOST_DELAY=0.03"]
    processes = [worker(big_site, feed, *fleet) for feed in feeds]
    victim = None
    deadline = time.monotonic() + 90
    while victim is None and time.monotonic() < deadline:
        for index in (1, 2, 0):
            if len(page_urls(rows_of(feeds[index]))) >= 15:
                victim = index
                break
        time.sleep(0.05)
    assert victim is not None, "no worker wrote 15 rows"
    processes[victim].send_signal(signal.SIGKILL)
    survivors = [p for i, p in enumerate(processes) if i != victim]
    logs = finish(survivors, timeout=180)
    processes[victim].wait(timeout=10)
    for process, err in zip(survivors, logs, strict=True):
        assert process.returncode == 0, err[-3000:]
    pages = Counter(page_urls(rows_of(*feeds)))
    assert set(pages) == expected_pages(big_site)
    # a page may come twice only if the kill fell between its row and its bookkeeping
    assert sum(n - 1 for n in pages.values()) <= 2, [u for u, n in pages.items() if n > 1]


HUB_LINKS = 120  # well past the 2 x CONCURRENT_ITEMS outputs Scrapy takes in at once


@pytest.fixture(scope="module")
def hub_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    root = tmp_path_factory.mktemp("hub-site")
    (root / "index.html").write_text(prose_page("Home", "/hub/"))
    (root / "hub").mkdir()
    leaves = [f"/hub/p{j}.html" for j in range(HUB_LINKS)]
    (root / "hub" / "index.html").write_text(prose_page("Hub", "/", *leaves))
    for leaf in leaves:
        (root / leaf.lstrip("/")).write_text(prose_page(f"Leaf {leaf}", "/hub/"))
    with SiteServer(root) as server:
        yield server


def test_a_worker_killed_after_a_row_still_gets_its_links_queued(
    hub_site: SiteServer, redis_url: str, tmp_path: Path
) -> None:
    """The window of issue 16 item 3: Scrapy hands a callback's outputs to concurrent
    tasks, so a hub page's row can reach the feed while most of its 120 links are still
    on their way to Redis, and the worker dies right then. The hub must still count as
    in flight (another worker fetches it again), not as done with its links lost."""
    fleet = ["-s", f"WEBMD_REDIS_URL={redis_url}", "-s", "WEBMD_HOST_DELAY=0"]
    first = worker(
        hub_site, tmp_path / "victim.jsonl", *fleet, "-s", "KILL_AFTER_ROW=/hub/",
        settings="tests.kill_settings",
    )  # fmt: skip
    first.communicate(timeout=120)
    assert first.returncode == -signal.SIGKILL
    assert hub_site.url("/hub/") in page_urls(rows_of(tmp_path / "victim.jsonl"))
    # a second worker joins the crawl, finds the first one dead and takes over
    second = worker(hub_site, tmp_path / "rescuer.jsonl", *fleet)
    (log,) = finish([second], timeout=180)
    assert second.returncode == 0, log[-3000:]
    pages = set(page_urls(rows_of(tmp_path / "victim.jsonl", tmp_path / "rescuer.jsonl")))
    leaves = {hub_site.url(f"/hub/p{j}.html") for j in range(HUB_LINKS)}
    assert leaves - pages == set()
    assert {hub_site.url("/"), hub_site.url("/hub/")} <= pages


#: The gate keeps its times to the microsecond (%.6f): a turn may be this much short.
GATE_ROUNDING = 1e-6
#: Turns this far apart: longer than any test, so the turns queue behind each other
#: whatever the machine's load. The gate is judged by the order of its answers, never by
#: how far apart the calls were (issue 35).
TURN = 600.0


def test_the_gate_spaces_the_fleet_and_a_rest_holds_every_worker(redis_url: str) -> None:
    from webmd_spider.distributed import Fleet

    one, two = Fleet(redis_url, "gate-test"), Fleet(redis_url, "gate-test")
    gate = one.key("gate", "example.com")
    waits, turns = [], []
    for fleet in (one, two, one, two):
        waits.append(fleet.wait_for_turn("example.com", TURN))
        turns.append(float(one.redis.get(gate)))  # the next free turn, on Redis's clock
    # four reservations from two workers: the first goes now, each next one takes the
    # next free turn, whichever worker asks: the gate moves on one TURN a reservation
    assert waits[0] == 0.0
    assert [later - earlier for earlier, later in itertools.pairwise(turns)] == [
        pytest.approx(TURN, abs=2 * GATE_ROUNDING)
    ] * 3
    # so each worker waits behind every turn taken before its own: one TURN more than
    # the one before, less the (unknown, far shorter) time between the two calls
    for earlier, later in itertools.pairwise(waits):
        assert earlier < later <= earlier + TURN + 2 * GATE_ROUNDING
    # a Retry-After seen by one worker makes the other wait too: the gate holds the
    # website until the rest ends, and a turn without spacing waits for it
    one.rest("other.org", TURN)
    rest_ends = float(one.redis.get(one.key("gate", "other.org")))
    wait = two.wait_for_turn("other.org", 0.0)
    assert 0.0 < wait <= TURN + GATE_ROUNDING
    assert float(one.redis.get(one.key("gate", "other.org"))) == rest_ends  # no spacing
    assert two.wait_for_turn("third.net", 0.0) == 0.0  # other websites are not held
    one.clear()


def test_an_incremental_distributed_crawl_shares_its_state_in_redis(
    redis_url: str, tmp_path: Path
) -> None:
    from webmd_spider.demo.server import demo_site_path

    with SiteServer(demo_site_path()) as server:
        # spaced requests: the crawl lasts long enough for both workers to join it (a
        # worker arriving after a crawl ended starts the next one)
        fleet = ["-s", f"WEBMD_REDIS_URL={redis_url}", "-s", "WEBMD_HOST_DELAY=0.3"]
        fleet += ["-a", "incremental=true", "-a", "state=shared-docs"]
        first = [tmp_path / f"first{i}.jsonl" for i in range(2)]
        for process in [worker(server, feed, *fleet) for feed in first]:
            _, err = process.communicate(timeout=150)
            assert process.returncode == 0, err[-3000:]
        second = [tmp_path / f"second{i}.jsonl" for i in range(2)]
        for process in [worker(server, feed, *fleet) for feed in second]:
            _, err = process.communicate(timeout=150)
            assert process.returncode == 0, err[-3000:]
    before = [r for r in rows_of(*first) if r["row_type"] == "page"]
    after = [r for r in rows_of(*second) if r["row_type"] == "page"]
    assert {r["change"] for r in before} == {"new"} and len(before) >= 5
    assert sorted(r["url"] for r in after) == sorted(r["url"] for r in before)
    assert {r["change"] for r in after} == {"unchanged"}
    import redis

    stored = redis.Redis.from_url(redis_url).hlen("webmd:state:shared-docs:pages")
    assert stored >= len(before)  # the state is in Redis, not in a worker's SQLite file
    assert not (REPO / ".webmd" / "shared-docs.sqlite").exists()


def test_a_dead_workers_pages_and_a_leaving_workers_popped_page_go_back(
    redis_url: str,
) -> None:
    from webmd_spider.distributed import Fleet

    dead, rescuer = Fleet(redis_url, "requeue-test"), Fleet(redis_url, "requeue-test")
    queue = dead.key("requests")
    for fleet in (dead, rescuer):
        fleet.join()
        fleet.heartbeat()
    # the dead worker held two pages in flight and had popped a third (data with a "|")
    dead.take("k1", -1.0, b"page-one")
    dead.take("k2", -2.0, b"page|two")
    dead.redis.hset(dead.key("taking", dead.worker), b"page-three", b"-3.0")
    dead.redis.delete(dead.key("alive", dead.worker))
    assert rescuer.rescue_dead(queue) == 3
    queued = dict(rescuer.redis.zrange(queue, 0, -1, withscores=True))
    assert queued == {b"page-one": -1.0, b"page|two": -2.0, b"page-three": -3.0}
    assert not rescuer.redis.exists(
        dead.key("inflight", dead.worker), dead.key("taking", dead.worker)
    )
    assert rescuer.rescue_dead(queue) == 0  # once
    # a worker that leaves with a popped, unrecorded request puts it back
    rescuer.redis.delete(queue)
    rescuer.redis.hset(rescuer.key("taking", rescuer.worker), b"page-four", b"-4.0")
    rescuer.leave()
    assert rescuer.redis.zrange(queue, 0, -1) == [b"page-four"]
    rescuer.clear()


def test_redis_url_as_a_spider_argument_turns_the_finished_marks_on(
    redis_url: str, tmp_path: Path
) -> None:
    # issue 16 item 3: the resume journal (which takes finished pages out of the worker's
    # in-flight list, so a dead worker's rescue does not fetch them again) switched on
    # only for the WEBMD_REDIS_URL setting, not for `-a redis_url=...` without JOBDIR
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text(prose_page("Home", "/a.html", "/b.html"), "utf-8")
    for name in ("a", "b"):
        (root / f"{name}.html").write_text(prose_page(f"Page {name}"), "utf-8")
    feed = tmp_path / "rows.jsonl"
    with SiteServer(root) as server:
        (log,) = finish([worker(server, feed, "-a", f"redis_url={redis_url}")])
    assert "webmd_spider.extensions.resume.ResumeJournal" in log, log[-3000:]
    assert len(page_urls(rows_of(feed))) == 3, log[-3000:]


def test_an_incremental_distributed_recrawl_classifies_pages_as_a_single_run_does(
    redis_url: str, tmp_path: Path
) -> None:
    """Issue 34: the same site crawled twice, incrementally, by one process and by two
    workers sharing Redis. Between the crawls one page is edited (its lastmod moved past
    the first crawl), one is deleted and left out of the sitemap, the rest stay as they
    were. The fleet holds no page back on its lastmod (a held page could belong to
    another worker): it asks every known page, conditionally, and each page's change is
    the one the single run reports, the deleted page's tombstone included."""
    from .spiders.test_lastmod import PAGES, names, old_dates, page, write_site, write_sitemap

    site = tmp_path / "site"
    write_site(site, old_dates)
    state_dir = ["-s", f"WEBMD_STATE_DIR={tmp_path / 'state'}"]
    single = [*state_dir, "-s", "WEBMD_HOST_DELAY=0", "-a", "incremental=true"]
    single += ["-a", "state=single"]
    # spaced requests: the crawl lasts long enough for both workers to join it
    fleet = [*state_dir, "-s", f"WEBMD_REDIS_URL={redis_url}", "-s", "WEBMD_HOST_DELAY=0.3"]
    fleet += ["-a", "incremental=true", "-a", "state=fleet"]

    def run(server: SiteServer, name: str, options: list[str], workers: int) -> list[Path]:
        feeds = [tmp_path / f"{name}{i}.jsonl" for i in range(workers)]
        processes = [worker(server, feed, *options) for feed in feeds]
        for process, err in zip(processes, finish(processes), strict=True):
            assert process.returncode == 0, err[-3000:]
            assert "Traceback" not in err, err[-3000:]
        return feeds

    def changes(server: SiteServer, feeds: list[Path]) -> Counter[tuple[str, str]]:
        """(path, change) of each page row and tombstone (a diagnostic row) of `feeds`."""
        return Counter(
            (r["url"].removeprefix(server.base_url), r["change"])
            for r in rows_of(*feeds)
            if r["row_type"] in ("page", "diagnostic")
        )

    known = {"/", *(f"/{name}" for name in names())}
    with SiteServer(site) as server:
        assert changes(server, run(server, "single-first", single, 1)) == Counter(
            (path, "new") for path in known
        )
        assert changes(server, run(server, "fleet-first", fleet, 2)) == Counter(
            (path, "new") for path in known
        )
        # p07 edited, its lastmod after the first crawls; p12 deleted and unlisted
        (site / "p07.html").write_text(page("p07", "Edited words"), "utf-8")
        (site / "p12.html").unlink()
        later = (datetime.now(UTC) + timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
        write_sitemap(site, lambda n: later if n == "p07.html" else old_dates(n))
        sitemap = (site / "sitemap.xml").read_text("utf-8")
        listed = f"<url><loc>/p12.html</loc><lastmod>{old_dates('p12.html')}</lastmod></url>"
        assert listed in sitemap
        (site / "sitemap.xml").write_text(sitemap.replace(listed, ""), "utf-8")

        reference = changes(server, run(server, "single-second", single, 1))
        server.clear_requests()
        second = run(server, "fleet-second", fleet, 2)
        asked = Counter(r.path for r in server.requests if r.path.endswith((".html", "/")))
    # the single run: one row per known page, the edit changed, the deletion removed
    expected = {(path, "unchanged") for path in known - {"/p07.html", "/p12.html"}}
    expected |= {("/p07.html", "changed"), ("/p12.html", "removed")}
    assert reference == Counter(expected)
    # the fleet: the same classification, row for row
    assert changes(server, second) == reference
    # every known page asked once, none held back on the sitemap's word
    assert asked == Counter(known), asked
    assert {r.status for r in server.requests if r.path == "/p12.html"} == {404}
    pages = [r for r in rows_of(*second) if r["row_type"] == "page"]
    evidence = Counter(r["change_evidence"] for r in pages if r["change"] == "unchanged")
    assert evidence == Counter({"not-modified": PAGES - 1})
    # both workers took pages of the recrawl from the shared queue
    taken = [sum(r["row_type"] != "site" for r in rows_of(feed)) for feed in second]
    assert min(taken) > 0, taken
