"""Text embedders for the search index: one small protocol, four ways to get vectors.

The contract every embedder keeps (`Embedder`):

* ``name`` is the embedder's identity, stored in an index beside its vectors: two
  embedders whose vectors are not comparable (another model, another dimension, another
  endpoint) never share a name, so an index opened with the wrong one can say so.
* ``dim`` is the length of every vector, known as soon as the embedder is open.
* ``embed(texts)`` returns a ``(len(texts), dim)`` ``float32`` numpy array in the order of
  ``texts``, every row L2-normalised. A text that is empty or only whitespace is never
  sent to a model: its row is all zeros (and zero rows stay zero; OpenAI's API rejects
  an empty input, and a blank chunk has no meaning to find). Any failure to embed raises
  `EmbedderError` with a one-line message naming the embedder and the cause.

`open_embedder(spec, ...)` opens one of:

* ``wordllama`` (the default): wordllama's ``l2_supercat`` static model, whose 256-dim
  weights and tokenizer ship inside the wheel; loaded offline, once per process.
  ``wordllama:64`` and ``wordllama:128`` take the model's leading dimensions (it is
  trained Matryoshka-style, so the truncated vectors are still meaningful).
* ``sentence-transformers:/local/folder`` and ``fastembed:/local/folder``: a model in a
  local folder (both libraries fetch models from a hub by name, which this package never
  asks them to do). Optional: neither library is a dependency.
* ``http`` with ``embed_url``: an OpenAI-compatible embeddings endpoint, standard library
  only (`HttpEmbedder`).

PURE module: standard library at import time; numpy and the model libraries are
imported inside the functions that need them, so importing this module costs nothing.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import math
import os
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

#: the spec forms `open_embedder` accepts, for its error messages
ACCEPTED_SPECS = (
    "wordllama",
    "wordllama:64|128|256",
    "sentence-transformers:/local/folder",
    "fastembed:/local/folder",
    "http (with embed_url)",
)

#: the wordllama model bundled in the wheel (wordllama/weights/l2_supercat_256.safetensors)
WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_FULL_DIM = 256
WORDLLAMA_DIMS = (64, 128, 256)

#: wordllama pads every text of a batch to the batch's longest text: a batch is cut so
#: that its count times its longest text stays under this many characters (texts are
#: sorted by length first), bounding the padded token array to a few tens of MB. A text
#: longer than this alone is a batch of its own.
WORDLLAMA_BATCH_CHARS = 131_072

#: the statuses an HTTP endpoint is retried on: 429 Too Many Requests (RFC 6585 §4) and
#: 503 Service Unavailable (RFC 9110 §15.6.4), the two that mean "later", and the other
#: transient server errors (500, 502, 504) a proxy or a model server gives under load.
#: Any other status is an answer: no retry.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

#: the text embedded once when an HTTP embedder opens, to learn the dimension
PROBE_TEXT = "dimension probe"

_BLANK = re.compile(r"\s*")
_DELAY_SECONDS = re.compile(r"[0-9]+")
_SECRET_PARAM = re.compile(r"key|token|secret|sig|pass", re.IGNORECASE)


class EmbedderError(Exception):
    """An embedder could not be opened or could not embed. The message is one line that
    names the embedder and the cause; callers show it as is (no traceback needed)."""


@runtime_checkable
class Embedder(Protocol):
    """What the search index needs of an embedder (see the module docstring)."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32, rows L2-normalised, blank texts zero rows;
        `EmbedderError` when the texts cannot be embedded."""
        ...


def open_embedder(
    spec: str = "wordllama",
    *,
    embed_url: str = "",
    embed_model: str = "",
    key_env: str = "WEBMD_EMBED_KEY",
    batch: int = 64,
    timeout: float = 60.0,
    max_retries: int = 5,
    embed_dim: int = 0,
) -> Embedder:
    """Open the embedder that ``spec`` names (forms in `ACCEPTED_SPECS`).

    ``batch`` is the most texts per model call or request. ``embed_url``, ``embed_model``,
    ``key_env``, ``timeout``, ``max_retries`` and ``embed_dim`` are for ``http`` (see
    `HttpEmbedder`); ``embed_model`` also names the fastembed model a ``fastembed:`` folder
    holds. Raises `EmbedderError` when the embedder cannot be opened, and ValueError (with
    the accepted forms) for a spec that is none of them.
    """
    if batch < 1:
        raise ValueError(f"embedding batch must be at least 1, got {batch}")
    kind, _, arg = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind == "wordllama":
        if not arg:
            return WordLlamaEmbedder(batch=batch)
        if arg.strip().isdigit() and int(arg) in WORDLLAMA_DIMS:
            return WordLlamaEmbedder(dim=int(arg), batch=batch)
    elif kind == "sentence-transformers" and arg.strip():
        return SentenceTransformersEmbedder(arg.strip(), batch=batch)
    elif kind == "fastembed" and arg.strip():
        return FastEmbedEmbedder(arg.strip(), model=embed_model, batch=batch)
    elif kind == "http" and not arg:
        if not embed_url:
            raise EmbedderError("http embedder: no embed_url given (the endpoint to POST to)")
        return HttpEmbedder(
            embed_url,
            embed_model,
            key_env=key_env,
            batch=batch,
            timeout=timeout,
            max_retries=max_retries,
            dim=embed_dim,
        )
    raise ValueError(f"unknown embedder {spec!r}: expected one of {', '.join(ACCEPTED_SPECS)}")


# -- shared helpers ---------------------------------------------------------------------


def _text_list(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list, every item a str (TypeError otherwise: a caller's bug)."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts, not one str")
    items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"embed() takes texts, got a {type(item).__name__}")
    return items


def _filled(texts: list[str]) -> list[int]:
    """Indexes of the texts that are not blank (the only ones sent to a model)."""
    return [i for i, text in enumerate(texts) if not _BLANK.fullmatch(text)]


def _normalised(rows: Any, name: str, dim: int) -> np.ndarray:
    """``rows`` as a fresh float32 array with L2-normalised rows (zero rows stay zero);
    `EmbedderError` when the shape is not ``(n, dim)`` or a value is not finite."""
    import numpy as np

    out = np.array(rows, dtype=np.float32)
    if out.ndim != 2 or out.shape[1] != dim:
        raise EmbedderError(f"{name}: the model gave vectors of shape {out.shape}, not (n, {dim})")
    if not np.isfinite(out).all():
        raise EmbedderError(f"{name}: the model gave a vector with NaN or infinite values")
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` squeezed onto one line and cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _check_folder(kind: str, folder: str) -> Path:
    """The model folder ``folder`` resolved; `EmbedderError` naming it when it is not a
    folder (checked before the library is imported, so the message is the useful one)."""
    path = Path(folder).expanduser()
    if not path.is_dir():
        what = "is not a folder" if path.exists() else "does not exist"
        raise EmbedderError(f"{kind} embedder: the model folder {folder} {what}")
    return path.resolve()


# -- wordllama (the default) ------------------------------------------------------------

_wordllama_models: dict[int, Any] = {}
_wordllama_lock = threading.Lock()


def _wordllama_model(dim: int) -> Any:
    """The bundled wordllama model at ``dim``, loaded once per process (thread-safe).

    ``WordLlama.load()`` looks for the weights and tokenizer beside its own module first,
    then in ``cache_dir``, then downloads: ``cache_dir`` is the package folder and
    downloads are disabled, so it never touches the network.
    """
    with _wordllama_lock:
        model = _wordllama_models.get(dim)
        if model is not None:
            return model
        try:
            import wordllama
        except ImportError as exc:
            raise EmbedderError(
                "wordllama embedder: the wordllama package is not installed "
                "(pip install 'webmd-spider[index]')"
            ) from exc
        try:
            model = wordllama.WordLlama.load(
                config=WORDLLAMA_CONFIG,
                cache_dir=Path(wordllama.__file__).parent,
                dim=WORDLLAMA_FULL_DIM,
                trunc_dim=None if dim == WORDLLAMA_FULL_DIM else dim,
                disable_download=True,
            )
        except Exception as exc:  # its loader raises FileNotFoundError, ValueError, OSError...
            raise EmbedderError(
                f"wordllama embedder: cannot load the bundled {WORDLLAMA_CONFIG} model: "
                f"{_one_line(str(exc))}"
            ) from exc
        _wordllama_models[dim] = model
        logger.debug("loaded wordllama %s at %d dimensions", WORDLLAMA_CONFIG, dim)
        return model


class WordLlamaEmbedder:
    """wordllama's bundled static model (CPU, offline, no download): average of the
    tokens' vectors, then normalised. ``name`` is ``wordllama:l2_supercat:<dim>``."""

    def __init__(self, *, dim: int = WORDLLAMA_FULL_DIM, batch: int = 64) -> None:
        if dim not in WORDLLAMA_DIMS:
            raise ValueError(f"wordllama dimension must be one of {WORDLLAMA_DIMS}, got {dim}")
        self.dim = dim
        self.batch = batch
        self.name = f"wordllama:{WORDLLAMA_CONFIG}:{dim}"
        self._model = _wordllama_model(dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """See `Embedder.embed`. Texts are embedded shortest first in batches of at most
        ``batch`` texts and `WORDLLAMA_BATCH_CHARS` padded characters."""
        import numpy as np

        items = _text_list(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        order = sorted(_filled(items), key=lambda i: len(items[i]))
        start = 0
        while start < len(order):
            end = start + 1
            # sorted by length, so the batch's longest text is its last one
            while (
                end < len(order)
                and end - start < self.batch
                and (end - start + 1) * len(items[order[end]]) <= WORDLLAMA_BATCH_CHARS
            ):
                end += 1
            part = order[start:end]
            try:
                rows = self._model.embed([items[i] for i in part], norm=False, batch_size=len(part))
            except Exception as exc:
                raise EmbedderError(f"{self.name}: {_one_line(repr(exc))}") from exc
            out[part] = rows
            start = end
        return _normalised(out, self.name, self.dim)


# -- models in local folders (optional libraries) ---------------------------------------
# Neither library is installed where this package is developed (and both would fetch a
# model from a hub by name): only their error paths are tested.


class _FolderModel:
    """What the two folder-model embedders share: the dimension learned from one probe
    text on open, and `embed` over the library's own batching (`_raw`, one call for
    every non-blank text)."""

    name: str
    dim: int
    batch: int

    def _raw(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def _probe(self, kind: str, path: Path) -> None:
        self.name = f"{kind}:{path.name}"
        self.dim = 0
        self.dim = self._raw([PROBE_TEXT]).shape[1]
        self.name = f"{kind}:{path.name}:{self.dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """See `Embedder.embed`."""
        import numpy as np

        items = _text_list(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        filled = _filled(items)
        if filled:
            out[filled] = _normalised(self._raw([items[i] for i in filled]), self.name, self.dim)
        return out


class SentenceTransformersEmbedder(_FolderModel):
    """A sentence-transformers model saved in a local folder (``model.save(folder)``).
    ``name`` is ``sentence-transformers:<folder name>:<dim>``; the dimension is learned by
    embedding one probe text on open."""

    def __init__(self, folder: str, *, batch: int = 64) -> None:
        path = _check_folder("sentence-transformers", folder)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderError(
                "sentence-transformers embedder: the library is not installed "
                "(pip install sentence-transformers)"
            ) from exc
        try:
            self._model = SentenceTransformer(str(path), local_files_only=True)
        except Exception as exc:
            raise EmbedderError(
                f"sentence-transformers embedder: cannot load {path}: {_one_line(str(exc))}"
            ) from exc
        self.batch = batch
        self._probe("sentence-transformers", path)

    def _raw(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        try:
            rows = self._model.encode(
                texts,
                batch_size=self.batch,
                convert_to_numpy=True,
                normalize_embeddings=False,
                show_progress_bar=False,
            )
        except Exception as exc:
            raise EmbedderError(f"{self.name}: {_one_line(repr(exc))}") from exc
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)


class FastEmbedEmbedder(_FolderModel):
    """A fastembed model in a local folder. fastembed reads a model's description (pooling,
    ONNX file) from its own catalogue, so ``model`` must name the catalogue entry the
    folder holds (e.g. ``BAAI/bge-small-en-v1.5``; ``--embed-model``), and the folder is
    given as ``specific_model_path`` so nothing is downloaded. ``name`` is
    ``fastembed:<folder name>:<dim>``; the dimension is learned from one probe text."""

    def __init__(self, folder: str, *, model: str = "", batch: int = 64) -> None:
        path = _check_folder("fastembed", folder)
        if not model:
            raise EmbedderError(
                f"fastembed embedder: name the fastembed model that {path} holds "
                "(embed_model, e.g. BAAI/bge-small-en-v1.5)"
            )
        try:
            from fastembed import TextEmbedding
        except ImportError as exc:
            raise EmbedderError(
                "fastembed embedder: the library is not installed (pip install fastembed)"
            ) from exc
        try:
            self._model = TextEmbedding(model_name=model, specific_model_path=str(path))
        except Exception as exc:
            raise EmbedderError(
                f"fastembed embedder: cannot load {model} from {path}: {_one_line(str(exc))}"
            ) from exc
        self.batch = batch
        self._probe("fastembed", path)

    def _raw(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        try:
            rows = list(self._model.embed(texts, batch_size=self.batch))
        except Exception as exc:
            raise EmbedderError(f"{self.name}: {_one_line(repr(exc))}") from exc
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)


# -- an OpenAI-compatible HTTP endpoint -------------------------------------------------


def retry_after_seconds(value: str | None, *, now: datetime, cap: float) -> float | None:
    """The wait a ``Retry-After`` header value asks for, in seconds, between 0 and ``cap``;
    None when there is no header or it is neither form.

    RFC 9110 §10.2.3: ``Retry-After = HTTP-date / delay-seconds``, delay-seconds being
    ``1*DIGIT``. An HTTP-date (§5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime
    forms a recipient must still accept; ``email.utils`` parses all three, a date without
    a zone being GMT) is a moment: the wait is its distance from ``now``, none when it is
    past. The cap keeps a server's "come back tomorrow" from hanging a crawl.
    """
    if value is None:
        return None
    value = value.strip()
    if _DELAY_SECONDS.fullmatch(value):
        seconds = float(int(value))
    else:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - now).total_seconds()
    return min(max(seconds, 0.0), cap)


def _redacted(url: str) -> str:
    """``url`` without credentials: no user:password, and the values of query parameters
    named like a key, token, secret or signature replaced by ``***`` (the URL is shown in
    messages and stored in the index as part of the embedder's name)."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    query = parts.query
    if query:
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        query = urllib.parse.urlencode(
            [(k, "***" if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="*"
        )
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class HttpEmbedder:
    """An OpenAI-compatible embeddings endpoint (OpenAI, Azure, vLLM, TEI, llama.cpp,
    Ollama's ``/v1/embeddings``...), over the standard library.

    Each batch of at most ``batch`` texts is one ``POST url`` of
    ``{"model": model, "input": [texts...]}`` (``model`` left out when empty: servers of
    one model ignore it), whose answer must be ``{"data": [{"index": i, "embedding":
    [floats]}, ...]}`` with one entry per text; entries are put in ``index`` order. The
    key, when the environment variable ``key_env`` holds one, goes as
    ``Authorization: Bearer``; it is read at each request and never shown.

    Retries: a status in `RETRY_STATUSES` and a connection failure (refused, reset, timed
    out after ``timeout`` seconds) are retried up to ``max_retries`` times, after the
    ``Retry-After`` the answer gives (`retry_after_seconds`), else after an exponential
    backoff (``backoff`` seconds doubled each time); every wait is capped at ``max_wait``.
    Then `EmbedderError`: "embedding endpoint URL unreachable: ..." or "embedding
    endpoint URL answered 500 ...". Any other status fails at once, and so does an answer
    that is not the shape above (wrong count, wrong dimension, not numbers).

    Dimension: ``dim`` when given (then opening sends nothing, and the first answer is
    checked against it); otherwise one probe text (`PROBE_TEXT`) is embedded on open, so
    an endpoint that is down fails at open. ``name`` is ``http:<url>:<model>:<dim>``, the
    URL without credentials.
    """

    def __init__(
        self,
        url: str,
        model: str = "",
        *,
        key_env: str = "WEBMD_EMBED_KEY",
        batch: int = 64,
        timeout: float = 60.0,
        max_retries: int = 5,
        dim: int = 0,
        backoff: float = 0.5,
        max_wait: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EmbedderError(f"http embedder: {_redacted(url)!r} is not an http(s) URL")
        if "@" in parts.netloc:
            # urllib would take user:password for part of the host name
            raise EmbedderError(
                f"http embedder: {_redacted(url)!r} carries credentials; give the key in "
                f"the environment variable {key_env} instead"
            )
        if batch < 1 or max_retries < 0 or timeout <= 0 or dim < 0:
            raise ValueError(
                "http embedder: batch must be >= 1, max_retries >= 0, timeout > 0, dim >= 0"
            )
        self.url = url
        self.shown_url = _redacted(url)
        self.model = model
        self.key_env = key_env
        self.batch = batch
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_wait = max_wait
        self._sleep = sleep
        self.dim = dim
        if not dim:
            self.dim = len(self._post([PROBE_TEXT])[0])
        self.name = f"http:{self.shown_url}:{model}:{self.dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """See `Embedder.embed`: one request per ``batch`` non-blank texts, in order."""
        import numpy as np

        items = _text_list(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        filled = _filled(items)
        for start in range(0, len(filled), self.batch):
            part = filled[start : start + self.batch]
            out[part] = self._post([items[i] for i in part])
        return _normalised(out, f"embedding endpoint {self.shown_url}", self.dim)

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "webmd-spider (embeddings)",
        }
        key = os.environ.get(self.key_env, "").strip() if self.key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _post(self, texts: list[str]) -> list[list[float]]:
        """One batch's vectors, in the order of ``texts``, retried as the class says."""
        payload = {"model": self.model, "input": texts} if self.model else {"input": texts}
        # ASCII JSON: a lone surrogate in a page's text is escaped, never an encoding error
        body = json.dumps(payload).encode("ascii")
        where = f"embedding endpoint {self.shown_url}"
        failure = ""
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            request = urllib.request.Request(
                self.url, data=body, headers=self._headers(), method="POST"
            )
            wait: float | None = None
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
                return self._parsed(raw, len(texts), where)
            except urllib.error.HTTPError as exc:
                status = exc.code
                try:
                    detail = _one_line(exc.read().decode("utf-8", "replace"))
                except (OSError, http.client.HTTPException):
                    detail = ""
                finally:
                    exc.close()
                failure = f"answered {status} {exc.reason}" + (f": {detail}" if detail else "")
                if status not in RETRY_STATUSES:
                    raise EmbedderError(f"{where} {failure}") from None
                wait = retry_after_seconds(
                    exc.headers.get("Retry-After"), now=datetime.now(UTC), cap=self.max_wait
                )
            except urllib.error.URLError as exc:
                failure = f"unreachable: {_one_line(str(exc.reason))}"
            except (OSError, http.client.HTTPException) as exc:  # reset, timed out mid-answer
                failure = f"unreachable: {_one_line(repr(exc))}"
            if attempt + 1 == attempts:
                break
            if wait is None:
                wait = min(self.backoff * 2.0**attempt, self.max_wait)
            logger.warning(
                "%s %s; retry %d of %d in %.1f s",
                where,
                failure,
                attempt + 1,
                self.max_retries,
                wait,
            )
            self._sleep(wait)
        tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
        raise EmbedderError(f"{where} {failure} ({tries})")

    def _parsed(self, raw: bytes, count: int, where: str) -> list[list[float]]:
        """The vectors of an answer, checked: `EmbedderError` for anything but ``count``
        entries of ``dim`` finite numbers (any dimension when ``dim`` is not yet known)."""

        def reject_constant(token: str) -> Any:
            raise ValueError(f"{token} is not a number JSON allows")

        try:
            answer = json.loads(raw, parse_constant=reject_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise EmbedderError(f"{where} answered something not JSON: {exc}") from None
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            raise EmbedderError(f"{where} answered JSON without a 'data' list")
        if len(data) != count:
            raise EmbedderError(f"{where} answered {len(data)} embeddings for {count} texts")
        if not all(isinstance(item, dict) for item in data):
            raise EmbedderError(f"{where} answered a 'data' entry that is not an object")
        indexes = [item.get("index") for item in data]
        if all(index is None for index in indexes):
            ordered = data  # servers that leave index out answer in input order
        elif sorted(i for i in indexes if type(i) is int) == list(range(count)):
            ordered = sorted(data, key=lambda item: item["index"])
        else:
            raise EmbedderError(f"{where} answered indexes {indexes[:10]} for {count} texts")
        vectors: list[list[float]] = []
        for item in ordered:
            vector = item.get("embedding")
            if not isinstance(vector, list) or not all(
                type(x) in (int, float) and math.isfinite(x) for x in vector
            ):
                raise EmbedderError(f"{where} answered an embedding that is not a list of numbers")
            if not vector:
                raise EmbedderError(f"{where} answered an empty embedding")
            expected = self.dim or (len(vectors[0]) if vectors else len(vector))
            if len(vector) != expected:
                raise EmbedderError(
                    f"{where} answered an embedding of {len(vector)} dimensions, not {expected}"
                )
            vectors.append(vector)
        return vectors
