"""A cassette of the judge's prompts and their answers, for the fake OpenAI endpoint (tests/fakes/openai_server.py).

The fake answers a judge request from the cassette when it holds an answer for its user message; when it does
not, it records the prompt and answers "not the same product" for every candidate (a wrong match is worse than
none). `bench/judge_eval.py --record FILE` writes what was asked; `--replay FILE` answers from a filled file.

The file is JSON lines, one object a line, sorted, so that a change to the rules or the prompt shows in a diff as
the prompts it changed:

1. a header: `{"cassette": "lps-judge-cassette/1", "answers": "<who wrote the answers>", "answer_format": ...}`;
2. one line per system message: `{"system": "<key>", "text": "<the whole system message>"}`;
3. one line per prompt, by page then key: `{"key": ..., "page": ..., "system": "<key>", "user": {...}, "answer": ...}`.

`key` is the first 16 hex digits of the SHA-256 of the user message exactly as search/llm.py sends it (its JSON
text); `user` is that message parsed (the product, then the candidates with their index, title, price and what the
rules read of them), so it reads as written. `answer` is null until someone answers; an answer is either the list
of the candidates' verdicts in index order, each `true` (the same product) or `false`, or
`{"same_product": bool, "confidence": 0..1, "reason": "..."}`, or the model's own JSON
(`{"verdicts": [{"index": 0, "same_product": ..., "confidence": ..., "reason": ...}, ...]}`). A bare `true` or
`false` is taken at confidence 0.9.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FORMAT = "lps-judge-cassette/1"
ANSWER_FORMAT = (
    "answer: null (not answered yet), or a list with one item per candidate in index order: true / false "
    '(the same product or not), or {"same_product": bool, "confidence": 0..1, "reason": "at most 12 words"}; '
    'or the model\'s own {"verdicts": [{"index", "same_product", "confidence", "reason"}, ...]}'
)
NOT_ANSWERED_REASON = "no answer in the cassette"
BARE_CONFIDENCE = 0.9


class CassetteError(ValueError):
    """A cassette file that is not well formed: the line and the field are named."""


def key_of(user_message: str) -> str:
    return hashlib.sha256(user_message.encode("utf-8")).hexdigest()[:16]


def system_key(text: str) -> str:
    return "s" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


@dataclass
class Entry:
    key: str
    user: str
    """The user message as sent (its JSON text)."""
    system: str
    """The system message's key."""
    page: str = ""
    answer: dict | None = None
    """The answer as the model's JSON ({"verdicts": [...]}), or None."""

    @property
    def candidates(self) -> list[dict]:
        return json.loads(self.user).get("candidates") or []


class Cassette:
    """The prompts asked and the answers known, by key. Thread-safe (the fake answers from several threads)."""

    def __init__(self, *, answers: str = "", entries: dict[str, Entry] | None = None, systems: dict | None = None):
        self.answers = answers
        """Who wrote the answers (a model's name, a reader, "always-right: the corpus labels")."""
        self.entries: dict[str, Entry] = dict(entries or {})
        self.systems: dict[str, str] = dict(systems or {})
        self.page = ""
        """The page being judged (bench/judge_eval.py sets it), written beside each new prompt."""
        self.answerer: Callable[[Entry], dict] | None = None
        """When set, answers (and fills in) a prompt the cassette has no answer for."""
        self.asked: list[str] = []
        """The keys asked since the cassette was made or loaded, in order, repeats included."""
        self.missing: list[str] = []
        """The keys asked that had no answer (each once)."""
        self._lock = threading.Lock()

    # --- answering -----------------------------------------------------------------------------------------

    def answer(self, system: str, user: str) -> dict:
        """The answer to this prompt, or (recording the prompt) every candidate "not the same product"."""
        key = key_of(user)
        with self._lock:
            self.asked.append(key)
            entry = self.entries.get(key)
            if entry is None:
                entry = Entry(key=key, user=user, system=self._system(system), page=self.page)
                self.entries[key] = entry
            if entry.answer is None and self.answerer is not None:
                entry.answer = normalised(self.answerer(entry), key)
            if entry.answer is not None:
                return entry.answer
            if key not in self.missing:
                self.missing.append(key)
        return {
            "verdicts": [
                {"index": candidate.get("index", position), "same_product": False, "confidence": 0.5}
                | {"reason": NOT_ANSWERED_REASON}
                for position, candidate in enumerate(entry.candidates)
            ]
        }

    def keep(self, system: str, user: str, answer: dict) -> None:
        """Record a real model's answer to this prompt (the fake forwarding to a real endpoint)."""
        key = key_of(user)
        with self._lock:
            self.asked.append(key)
            self.entries[key] = Entry(
                key=key, user=user, system=self._system(system), page=self.page, answer=normalised(answer, key)
            )

    def _system(self, text: str) -> str:
        key = system_key(text)
        self.systems.setdefault(key, text)
        return key

    # --- the file ------------------------------------------------------------------------------------------

    def save(self, path: Path, *, only_asked: bool = True) -> None:
        """Write the cassette (only the prompts asked since it was loaded, unless `only_asked` is false)."""
        asked = set(self.asked)
        entries = [entry for entry in self.entries.values() if not only_asked or entry.key in asked]
        entries.sort(key=lambda entry: (entry.page, entry.key))
        systems = sorted({entry.system for entry in entries})
        lines = [{"cassette": FORMAT, "answers": self.answers, "answer_format": ANSWER_FORMAT}]
        lines += [{"system": key, "text": self.systems[key]} for key in systems]
        lines += [
            {
                "key": entry.key,
                "page": entry.page,
                "system": entry.system,
                "user": json.loads(entry.user),
                "answer": entry.answer,
            }
            for entry in entries
        ]
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        Path(path).write_text(text, encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Cassette:
        """A cassette read from `path`; CassetteError names the first bad line."""
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise CassetteError(f"{path}: not readable: {exc}") from exc
        header = _json_line(path, 1, lines[0] if lines else "")
        if header.get("cassette") != FORMAT:
            raise CassetteError(
                f"{path}:1: not a {FORMAT} file (the first line's `cassette` is {header.get('cassette')!r})"
            )
        cassette = cls(answers=str(header.get("answers") or ""))
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            item = _json_line(path, number, line)
            if "text" in item and "system" in item:
                cassette.systems[str(item["system"])] = str(item["text"])
                continue
            if not isinstance(item.get("user"), dict):
                raise CassetteError(f"{path}:{number}: `user` must be the user message as a JSON object")
            # The key is the message as search/llm.py writes it: json.dumps with ensure_ascii=False.
            user = json.dumps(item["user"], ensure_ascii=False)
            key = key_of(user)
            if item.get("key") not in (None, key):
                raise CassetteError(f"{path}:{number}: `key` {item.get('key')!r} is not the user message's ({key})")
            try:
                answer = normalised(item.get("answer"), key, candidates=len(item["user"].get("candidates") or []))
            except CassetteError as exc:
                raise CassetteError(f"{path}:{number}: {exc}") from None
            cassette.entries[key] = Entry(
                key=key,
                user=user,
                system=str(item.get("system") or ""),
                page=str(item.get("page") or ""),
                answer=answer,
            )
        return cassette


def normalised(answer: object, key: str, *, candidates: int | None = None) -> dict | None:
    """An answer in any of the documented forms as the model's JSON ({"verdicts": [...]}), or None."""
    if answer is None:
        return None
    if isinstance(answer, dict) and "verdicts" in answer:
        verdicts = answer["verdicts"]
        if not isinstance(verdicts, list):
            raise CassetteError(f"answer of {key}: `verdicts` must be a list")
        shown = answer
    elif isinstance(answer, list):
        verdicts = [_verdict(key, position, item) for position, item in enumerate(answer)]
        shown = {"verdicts": verdicts}
    else:
        raise CassetteError(f'answer of {key}: a list of verdicts, or the model\'s {{"verdicts": [...]}}, or null')
    if candidates is not None and len(verdicts) != candidates:
        raise CassetteError(f"answer of {key}: {len(verdicts)} verdicts for {candidates} candidates")
    return shown


def _verdict(key: str, position: int, item: object) -> dict:
    if isinstance(item, bool):
        return {"index": position, "same_product": item, "confidence": BARE_CONFIDENCE, "reason": "answered"}
    if isinstance(item, dict) and isinstance(item.get("same_product"), bool):
        confidence = item.get("confidence", BARE_CONFIDENCE)
        if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
            raise CassetteError(f"answer of {key}[{position}]: confidence must be a number from 0 to 1")
        reason = str(item.get("reason") or "answered")
        return {"index": position, "same_product": item["same_product"], "confidence": confidence, "reason": reason}
    raise CassetteError(f'answer of {key}[{position}]: true, false or {{"same_product": ..., ...}}')


def _json_line(path: Path, number: int, line: str) -> dict:
    try:
        item = json.loads(line)
    except ValueError as exc:
        raise CassetteError(f"{path}:{number}: not JSON: {exc}") from None
    if not isinstance(item, dict):
        raise CassetteError(f"{path}:{number}: each line is a JSON object")
    return item
