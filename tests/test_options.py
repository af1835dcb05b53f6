"""Tests for webmd_spider.options: defaults, precedence, parsing and error messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.options import (
    EXTRACT_AUTO,
    OPTION_NAMES,
    JobOptions,
    OptionsError,
    build_options,
    read_job_file,
    setting_defaults,
    settings_view,
    split_list,
    valid_argument_names,
)


def write_job(tmp_path: Path, data: Any, name: str = "job.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


# --------------------------------------------------------------------------- #
# Defaults and names
# --------------------------------------------------------------------------- #


def test_defaults_with_no_settings_or_arguments() -> None:
    opts = build_options({}, {})
    assert opts == JobOptions()
    assert opts.start == []
    assert opts.start_file == ""
    assert opts.max_pages == 50
    assert opts.max_depth == 3
    assert opts.max_run_secs == 240.0
    assert opts.crawl_links is True
    assert opts.max_concurrency == 8
    assert opts.max_sitemap_urls == 5000
    assert opts.respect_robots is True
    assert opts.include_patterns == []
    assert opts.exclude_patterns == []
    assert opts.include_html is False
    assert opts.keep_links is True
    assert opts.keep_images is True
    assert opts.max_chars == 0
    assert opts.output_dir == "output"
    assert opts.progress_secs == 5.0


def test_project_settings_hold_every_option_with_its_one_default() -> None:
    """settings.py writes one WEBMD_* setting per option, from JobOptions' defaults (the
    one place they are defined), and they read back as JobOptions()."""
    from webmd_spider import settings as project_settings

    webmd = {k: getattr(project_settings, k) for k in dir(project_settings) if k.isupper()}
    assert {k for k in webmd if k.startswith("WEBMD_")} == {
        "WEBMD_" + name.upper() for name in OPTION_NAMES
    }
    assert build_options(webmd, {}) == JobOptions()


def test_chunk_options_are_validated_once_with_the_options() -> None:
    """build_options refuses what the chunker cannot use, naming the chunker's range;
    the options it returns give their chunk budget without another check failing."""
    with pytest.raises(OptionsError, match=r"invalid-input: chunk_size must be 500\.\.10000"):
        build_options({}, {"chunk_size": "100"})
    with pytest.raises(OptionsError, match="at most half"):
        build_options({}, {"chunk_size": "1000", "chunk_overlap": "600"})
    with pytest.raises(OptionsError, match=r"in the range 0\.\.10000"):
        build_options({}, {"chunk_size": "20000"})
    assert build_options({}, {"chunk_tokens": "300"}).chunk_budget == (1_200, 160)
    assert build_options({}, {"chunk_tokens": "300", "chunk_overlap_tokens": "0"}).chunk_budget == (
        1_200,
        0,
    )


def test_chunks_are_on_by_default_and_a_users_own_sizing_replaces_the_default() -> None:
    """400 tokens with 40 of overlap unless set; chunk_tokens=0 turns chunking off; a size
    or overlap in characters replaces the token default instead of clashing with it."""
    assert JobOptions().chunk_budget == (1_600, 160)
    assert build_options({}, {}).chunk_budget == (1_600, 160)
    # settings carry every default, as in a real crawl
    assert build_options(setting_defaults(), {}).chunk_budget == (1_600, 160)
    assert build_options(setting_defaults(), {"chunk_tokens": "0"}).chunk_budget == (0, 0)
    assert build_options(setting_defaults(), {"chunk_size": "2000"}).chunk_budget == (2_000, 160)
    assert build_options(
        setting_defaults(), {"chunk_size": "2000", "chunk_overlap": "100"}
    ).chunk_budget == (2_000, 100)
    with pytest.raises(OptionsError, match="not both"):
        build_options({}, {"chunk_size": "2000", "chunk_tokens": "300"})


def test_valid_argument_names_are_sorted_options_plus_input() -> None:
    names = valid_argument_names()
    assert names == sorted(names)
    assert set(names) == {*OPTION_NAMES, "input"}


# --------------------------------------------------------------------------- #
# Precedence: settings < job file < arguments
# --------------------------------------------------------------------------- #


def test_setting_overrides_default() -> None:
    opts = build_options({"WEBMD_MAX_PAGES": 7, "WEBMD_RESPECT_ROBOTS": "false"}, {})
    assert opts.max_pages == 7
    assert opts.respect_robots is False


def test_job_file_overrides_settings(tmp_path: Path) -> None:
    job = write_job(tmp_path, {"max_pages": 12, "max_depth": 5})
    opts = build_options({"WEBMD_MAX_PAGES": 7, "WEBMD_MAX_DEPTH": 1}, {"input": job})
    assert opts.max_pages == 12
    assert opts.max_depth == 5


def test_arguments_override_job_file_and_settings(tmp_path: Path) -> None:
    job = write_job(tmp_path, {"max_pages": 12, "max_depth": 5, "output_dir": "from-job"})
    opts = build_options(
        {"WEBMD_MAX_PAGES": 7, "WEBMD_MAX_CONCURRENCY": 2, "WEBMD_MAX_DEPTH": 1},
        {"input": job, "max_pages": "30"},
    )
    assert opts.max_pages == 30  # argument
    assert opts.max_depth == 5  # job file beats setting
    assert opts.output_dir == "from-job"  # job file only
    assert opts.max_concurrency == 2  # setting only
    assert opts.max_run_secs == 240.0  # default


def test_empty_input_argument_reads_no_file() -> None:
    assert build_options({}, {"input": ""}) == JobOptions()


def test_job_file_values_are_typed_like_arguments(tmp_path: Path) -> None:
    job = write_job(
        tmp_path,
        {
            "start": ["https://a.example/", "https://b.example/"],
            "crawl_links": False,
            "max_run_secs": 30,
            "include_patterns": ["/docs/*", "/a,b/i"],
        },
    )
    opts = build_options({}, {"input": job})
    assert opts.start == ["https://a.example/", "https://b.example/"]
    assert opts.crawl_links is False
    assert opts.max_run_secs == 30.0
    assert isinstance(opts.max_run_secs, float)
    assert opts.include_patterns == ["/docs/*", "/a,b/i"]


# --------------------------------------------------------------------------- #
# WEBMD_* settings
# --------------------------------------------------------------------------- #


def test_settings_view_maps_webmd_names_and_ignores_others() -> None:
    view = settings_view(
        {
            "WEBMD_MAX_PAGES": 3,
            "WEBMD_INCLUDE_PATTERNS": "/blog/*",
            "BOT_NAME": "webmd_spider",
            "CONCURRENT_REQUESTS": 16,
        }
    )
    assert view == {"max_pages": 3, "include_patterns": "/blog/*"}


def test_every_option_has_a_setting() -> None:
    settings = {"WEBMD_" + name.upper(): getattr(JobOptions(), name) for name in OPTION_NAMES}
    assert set(settings_view(settings)) == set(OPTION_NAMES)


def test_unknown_webmd_setting_names_the_valid_settings() -> None:
    with pytest.raises(OptionsError) as info:
        settings_view({"WEBMD_MAX_PAGE": 3})
    message = str(info.value)
    assert "WEBMD_MAX_PAGE" in message
    assert "WEBMD_MAX_PAGES" in message
    assert "WEBMD_RESPECT_ROBOTS" in message
    for name in OPTION_NAMES:
        assert "WEBMD_" + name.upper() in message


def test_unknown_webmd_setting_fails_build_options() -> None:
    with pytest.raises(OptionsError, match="WEBMD_NOPE"):
        build_options({"WEBMD_NOPE": 1}, {})


# --------------------------------------------------------------------------- #
# Arguments
# --------------------------------------------------------------------------- #


def test_unknown_argument_lists_valid_names() -> None:
    with pytest.raises(OptionsError) as info:
        build_options({}, {"max_page": "3"})
    message = str(info.value)
    assert "'max_page'" in message
    for name in valid_argument_names():
        assert name in message


def test_scrapyd_job_argument_is_ignored() -> None:
    assert build_options({}, {"_job": "abc123", "_version": "1"}) == JobOptions()


# --------------------------------------------------------------------------- #
# Booleans
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True),
        ("True", True),
        ("1", True),
        ("yes", True),
        (" YES ", True),
        ("on", True),
        ("false", False),
        ("FALSE", False),
        ("0", False),
        ("no", False),
        ("off", False),
        (True, True),
        (False, False),
    ],
)
def test_bool_parsing(text: Any, expected: bool) -> None:
    # respect_robots defaults to True, include_html to False: both directions are checked.
    assert build_options({}, {"respect_robots": text}).respect_robots is expected
    assert build_options({}, {"include_html": text}).include_html is expected


@pytest.mark.parametrize("bad", ["maybe", "2", "truee", "y e s"])
def test_bad_bool_value(bad: str) -> None:
    with pytest.raises(OptionsError) as info:
        build_options({}, {"crawl_links": bad})
    message = str(info.value)
    assert "crawl_links" in message
    assert "true or false" in message
    assert repr(bad) in message


# --------------------------------------------------------------------------- #
# Numbers
# --------------------------------------------------------------------------- #


def test_int_and_float_parsing_from_text() -> None:
    opts = build_options({}, {"max_pages": " 10 ", "max_run_secs": "1.5", "progress_secs": "0"})
    assert opts.max_pages == 10
    assert isinstance(opts.max_pages, int)
    assert opts.max_run_secs == 1.5
    assert opts.progress_secs == 0.0
    assert isinstance(opts.progress_secs, float)


@pytest.mark.parametrize(
    ("name", "value", "expected_range"),
    [
        ("max_pages", "0", "1..inf"),
        ("max_pages", "-5", "1..inf"),
        ("max_concurrency", "65", "1..64"),
        ("max_concurrency", "0", "1..64"),
        ("max_depth", "101", "0..100"),
        ("max_sitemap_urls", "1000001", "1..1000000"),
        ("max_run_secs", "0.5", "1..inf"),
        ("max_chars", "-1", "0..inf"),
    ],
)
def test_out_of_range_numbers_name_the_range(name: str, value: str, expected_range: str) -> None:
    with pytest.raises(OptionsError) as info:
        build_options({}, {name: value})
    message = str(info.value)
    assert name in message
    assert expected_range in message
    assert repr(value) in message


def test_range_bounds_are_inclusive() -> None:
    opts = build_options({}, {"max_concurrency": "64", "max_pages": "1", "max_depth": "0"})
    assert (opts.max_concurrency, opts.max_pages, opts.max_depth) == (64, 1, 0)


@pytest.mark.parametrize(
    ("name", "value", "expected_range"),
    [
        ("max_pages", "abc", "1..inf"),
        ("max_pages", "1.5", "1..inf"),
        ("max_concurrency", "", "1..64"),
        ("max_run_secs", "soon", "1..inf"),
    ],
)
def test_non_numbers_name_the_type_and_range(name: str, value: str, expected_range: str) -> None:
    with pytest.raises(OptionsError) as info:
        build_options({}, {name: value})
    message = str(info.value)
    assert name in message
    assert "number" in message
    assert expected_range in message


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", float("nan"), float("inf")])
def test_non_finite_numbers_are_refused(value: Any) -> None:
    with pytest.raises(OptionsError, match="max_run_secs"):
        build_options({}, {"max_run_secs": value})


@pytest.mark.parametrize("value", [True, False, 10.5])
def test_json_bool_or_fraction_is_not_a_whole_number(tmp_path: Path, value: Any) -> None:
    job = write_job(tmp_path, {"max_pages": value})
    with pytest.raises(OptionsError, match="whole number"):
        build_options({}, {"input": job})


def test_json_whole_float_is_accepted_for_int_option(tmp_path: Path) -> None:
    job = write_job(tmp_path, {"max_pages": 10.0})
    opts = build_options({}, {"input": job})
    assert opts.max_pages == 10
    assert isinstance(opts.max_pages, int)


@given(st.integers(min_value=1, max_value=64))
def test_any_in_range_concurrency_round_trips(n: int) -> None:
    assert build_options({}, {"max_concurrency": str(n)}).max_concurrency == n


@given(st.integers().filter(lambda n: not 1 <= n <= 64))
def test_any_out_of_range_concurrency_is_refused(n: int) -> None:
    with pytest.raises(OptionsError, match=r"1\.\.64"):
        build_options({}, {"max_concurrency": str(n)})


# --------------------------------------------------------------------------- #
# Lists and patterns
# --------------------------------------------------------------------------- #


def test_list_option_splits_on_commas_and_whitespace() -> None:
    opts = build_options({}, {"start": "https://a.example/, https://b.example/\nc.example ,,"})
    assert opts.start == ["https://a.example/", "https://b.example/", "c.example"]


def test_list_option_from_setting_and_empty_text() -> None:
    assert build_options({"WEBMD_START": "a.example b.example"}, {}).start == [
        "a.example",
        "b.example",
    ]
    assert build_options({"WEBMD_START": ""}, {}).start == []


def test_split_list_shapes() -> None:
    assert split_list(None) == []
    assert split_list(["  a ", "", "b"]) == ["a", "b"]
    assert split_list(("x",)) == ["x"]
    assert split_list("a,b c") == ["a", "b", "c"]


@given(
    st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=","),
            min_size=1,
        ).filter(lambda s: s.strip() and not any(c.isspace() for c in s)),
        max_size=8,
    ),
    st.sampled_from([",", " ", ", ", "\t", " ,\n"]),
)
def test_split_list_inverts_joining(parts: list[str], sep: str) -> None:
    assert split_list(sep.join(parts)) == parts


def test_patterns_are_kept_whole() -> None:
    opts = build_options({}, {"include_patterns": "/a,b/i", "exclude_patterns": "/x/* /y/*"})
    assert opts.include_patterns == ["/a,b/i"]
    # The spider splits these later with urls.split_patterns, which knows regex tokens.
    assert opts.exclude_patterns == ["/x/* /y/*"]


def test_pattern_list_from_job_file_keeps_elements() -> None:
    opts = build_options({}, {"include_patterns": ["/a,b/i", "/docs/*"]})
    assert opts.include_patterns == ["/a,b/i", "/docs/*"]


def test_empty_pattern_setting_means_no_patterns() -> None:
    opts = build_options({"WEBMD_INCLUDE_PATTERNS": "", "WEBMD_EXCLUDE_PATTERNS": "  "}, {})
    assert opts.include_patterns == []
    assert opts.exclude_patterns == []


def test_string_options_are_stringified() -> None:
    assert build_options({}, {"output_dir": "out/dir"}).output_dir == "out/dir"
    assert build_options({"WEBMD_START_FILE": 5}, {}).start_file == "5"


# --------------------------------------------------------------------------- #
# Job files
# --------------------------------------------------------------------------- #


def test_missing_job_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.json")
    with pytest.raises(OptionsError) as info:
        build_options({}, {"input": missing})
    assert "cannot read job file" in str(info.value)
    assert missing in str(info.value)


def test_invalid_json_job_file(tmp_path: Path) -> None:
    job = write_job(tmp_path, '{"max_pages": 3,')
    with pytest.raises(OptionsError, match="not valid JSON"):
        build_options({}, {"input": job})


@pytest.mark.parametrize(("text", "kind"), [("[1, 2]", "list"), ('"x"', "str"), ("3", "int")])
def test_non_object_job_file(tmp_path: Path, text: str, kind: str) -> None:
    job = write_job(tmp_path, text)
    with pytest.raises(OptionsError) as info:
        read_job_file(job)
    assert "one JSON object" in str(info.value)
    assert kind in str(info.value)


def test_unknown_job_file_key_lists_valid_names(tmp_path: Path) -> None:
    job = write_job(tmp_path, {"max_pages": 3, "maxpages": 4})
    with pytest.raises(OptionsError) as info:
        build_options({}, {"input": job})
    message = str(info.value)
    assert "job file key" in message
    assert "'maxpages'" in message
    assert "max_pages" in message


def test_nested_input_in_job_file(tmp_path: Path) -> None:
    inner = write_job(tmp_path, {"max_pages": 3}, "inner.json")
    outer = write_job(tmp_path, {"input": inner}, "outer.json")
    with pytest.raises(OptionsError, match="cannot name another job file"):
        build_options({}, {"input": outer})


def test_read_job_file_returns_the_object(tmp_path: Path) -> None:
    job = write_job(tmp_path, {"max_pages": 3, "start": "a.example"})
    assert read_job_file(job) == {"max_pages": 3, "start": "a.example"}


def test_job_file_bad_value_is_reported(tmp_path: Path) -> None:
    job = write_job(tmp_path, {"max_concurrency": 100})
    with pytest.raises(OptionsError, match=r"max_concurrency must be in the range 1\.\.64"):
        build_options({}, {"input": job})


def test_extract_processes_is_auto_by_default_and_takes_a_number_or_auto() -> None:
    assert build_options({}, {}).extract_processes == EXTRACT_AUTO
    assert build_options({"WEBMD_EXTRACT_PROCESSES": "auto"}, {}).extract_processes == EXTRACT_AUTO
    assert build_options({}, {"extract_processes": " AUTO "}).extract_processes == EXTRACT_AUTO
    assert (
        build_options(
            {"WEBMD_EXTRACT_PROCESSES": "auto"}, {"extract_processes": "2"}
        ).extract_processes
        == 2
    )
    assert build_options({}, {"extract_processes": "0"}).extract_processes == 0
    for bad in ("-1", "many", "65"):
        with pytest.raises(OptionsError, match="extract_processes must be"):
            build_options({}, {"extract_processes": bad})


def test_discovery_takes_one_of_three_modes() -> None:
    assert build_options({}, {}).discovery == "sitemaps+links"
    assert build_options({}, {"discovery": "links"}).discovery == "links"
    assert build_options({"WEBMD_DISCOVERY": "sitemaps"}, {}).discovery == "sitemaps"
    with pytest.raises(OptionsError, match="discovery must be one of sitemaps\\+links, sitemaps"):
        build_options({}, {"discovery": "sitemap"})


def test_skip_page_types_is_a_list_of_known_page_types() -> None:
    assert JobOptions().skip_page_types == []
    assert build_options({}, {}).skip_page_types == []
    opts = build_options({}, {"skip_page_types": "listing, Collection listing"})
    assert opts.skip_page_types == ["listing", "collection"]
    webmd = {"WEBMD_SKIP_PAGE_TYPES": "forum"}
    assert build_options(webmd, {}).skip_page_types == ["forum"]
    assert build_options(webmd, {"skip_page_types": ""}).skip_page_types == []


def test_an_unknown_page_type_names_the_allowed_ones(tmp_path: Path) -> None:
    with pytest.raises(OptionsError) as info:
        build_options({}, {"skip_page_types": "listing,listings"})
    message = str(info.value)
    assert "skip_page_types" in message and "'listings'" in message
    assert "article, forum, product, collection, listing, documentation, service, other" in (
        message
    )
    job = tmp_path / "job.json"
    job.write_text('{"skip_page_types": ["product", "blog"]}', encoding="utf-8")
    with pytest.raises(OptionsError, match="unknown page type 'blog'"):
        build_options({}, {"input": str(job)})
