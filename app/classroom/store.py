"""Rooms of a class: one interface, two backends.

A room holds the teacher's secret token (only the session holding it can change what the class sees), the
teacher's view (the page and the shared settings, as a shared link spells them), a version number that grows
with every change the class must see, the students present (heartbeats) and the current quiz (a sentence with
one [MASK], each student's guess, revealed or not, and BERT's answer: computed once, by the teacher's session as
it reveals, and stored with the reveal, so that a class of thirty reads it instead of running the model thirty
times). Students poll the version: polling one small value works
the same in memory and in Redis, and a student a second behind is fine in a classroom.

``MemoryStore`` serves one server process. ``RedisStore`` serves several replicas behind a load balancer:
every replica reads and writes the same keys, and Redis's key expiry removes a room whose teacher has been
gone for ``ROOM_TTL`` seconds. ``MemoryStore`` sweeps such rooms whenever it is used.
"""

from __future__ import annotations

import functools
import hmac
import json
import os
import re
import secrets
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from model.tokenization import traditional_to_simplified

# Unambiguous on a projector and on a phone keyboard: no 0/O, 1/I/L. 31**6 ≈ 890 million codes, so a
# student who mistypes or guesses lands in an empty room, not in another class.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
ROOM_TTL = 3600  # seconds without a teacher heartbeat before a room is removed
PRESENCE_SECONDS = 15  # a student counts as present this long after their last heartbeat
MAX_GUESS = 40  # characters of a normalised guess; a word, not an essay
MAX_GUESSERS = 300  # students whose guesses one question keeps: a class, not a script opening sessions by the thousand
MAX_QUIZ_TEXT = 300
MAX_VIEW_BYTES = 16_000  # a published view is a shared link's settings: small


class RoomGone(LookupError):
    """No such room: a mistyped code, or one that expired or was closed."""


class StoreDown(ConnectionError):
    """The rooms' store does not answer (its Redis stopped or cannot be reached): class mode pauses, the rooms wait
    in Redis, and the class goes on by itself once it answers again."""


class NotTeacher(PermissionError):
    """The token is not the room's: only the teacher's session may change what the class sees."""


class GuessError(ValueError):
    """A guess that cannot be counted; ``code`` names why (``empty``, ``no_quiz``, ``revealed``)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


@dataclass
class Quiz:
    number: int  # grows with each question, so a student's box can start empty for a new one
    sentence: str
    guesses: dict[str, str] = field(default_factory=dict)  # student id → normalised guess
    revealed: bool = False
    answer: list | None = None  # BERT's top words as the teacher's reveal stored them (JSON values)


@dataclass
class Room:
    token: str
    view: dict = field(default_factory=dict)
    version: int = 0
    teacher_seen: float = 0.0
    students: dict[str, float] = field(default_factory=dict)  # student id → last heartbeat
    quiz: Quiz | None = None


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def clean_code(raw: str) -> str | None:
    """A typed code as the store spells it (spaces and case forgiven); None when it cannot be a room code."""
    code = re.sub(r"[\s-]", "", str(raw)).upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def normalise_guess(raw: str) -> str:
    """A student's guess as it is counted: NFKC (full-width letters become ASCII), lower case, Chinese in Simplified
    characters (``same_script``), inner spaces collapsed, at most ``MAX_GUESS`` characters. Raises
    ``GuessError("empty")`` when nothing is left."""
    text = unicodedata.normalize("NFKC", str(raw))
    text = "".join(c for c in text if unicodedata.category(c)[0] != "C")  # no control or format characters
    text = same_script(" ".join(text.split()).lower()[:MAX_GUESS].strip())
    if not text:
        raise GuessError("empty")
    return text


def new_token() -> str:
    return secrets.token_urlsafe(24)


def _same_token(room_token: str, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(room_token.encode(), str(token).encode())


class RoomStore(Protocol):
    """What the app asks of a backend. Methods that change what the class sees take the teacher's token and
    raise ``NotTeacher`` for any other; every method raises ``RoomGone`` for a code with no room."""

    def create(self) -> tuple[str, str]: ...  # (code, teacher token)
    def close(self, code: str, token: str) -> None: ...
    def teacher_heartbeat(self, code: str, token: str) -> None: ...
    def publish(self, code: str, token: str, view: dict) -> int: ...  # the new version
    def version(self, code: str) -> int: ...
    def view(self, code: str) -> tuple[int, dict]: ...
    def student_heartbeat(self, code: str, student: str) -> None: ...
    def students(self, code: str) -> int: ...
    def ask(self, code: str, token: str, sentence: str) -> int: ...  # the quiz's number
    def reveal(self, code: str, token: str, answer: list) -> None: ...
    def guess(self, code: str, student: str, raw: str) -> str: ...  # the guess as counted
    def quiz(self, code: str) -> Quiz | None: ...


def _check_view(view: dict | list) -> str:
    """A view (or a quiz's answer) as stored: JSON, bounded in size."""
    encoded = json.dumps(view, ensure_ascii=False, sort_keys=True)
    if len(encoded.encode()) > MAX_VIEW_BYTES:
        raise ValueError(f"a view of {len(encoded)} characters is too large to publish")
    return encoded


class MemoryStore:
    """Rooms in this process, for one server; a lock makes each call atomic across Streamlit's threads."""

    def __init__(self, clock=time.time):
        self._rooms: dict[str, Room] = {}
        self._lock = threading.Lock()
        self._clock = clock  # tests move time forward

    def _sweep(self, now: float) -> None:
        for code in [c for c, room in self._rooms.items() if now - room.teacher_seen > ROOM_TTL]:
            del self._rooms[code]

    def _room(self, code: str) -> Room:
        self._sweep(self._clock())
        room = self._rooms.get(code)
        if room is None:
            raise RoomGone(code)
        return room

    def _teacher_room(self, code: str, token: str) -> Room:
        room = self._room(code)
        if not _same_token(room.token, token):
            raise NotTeacher(code)
        room.teacher_seen = self._clock()
        return room

    def create(self) -> tuple[str, str]:
        with self._lock:
            self._sweep(self._clock())
            code = new_code()
            while code in self._rooms:
                code = new_code()
            token = new_token()
            self._rooms[code] = Room(token=token, teacher_seen=self._clock())
            return code, token

    def close(self, code: str, token: str) -> None:
        with self._lock:
            self._teacher_room(code, token)
            del self._rooms[code]

    def teacher_heartbeat(self, code: str, token: str) -> None:
        with self._lock:
            self._teacher_room(code, token)

    def publish(self, code: str, token: str, view: dict) -> int:
        encoded = _check_view(view)
        with self._lock:
            room = self._teacher_room(code, token)
            room.view = json.loads(encoded)  # a copy: the caller's dict can change afterwards
            room.version += 1
            return room.version

    def version(self, code: str) -> int:
        with self._lock:
            return self._room(code).version

    def view(self, code: str) -> tuple[int, dict]:
        with self._lock:
            room = self._room(code)
            return room.version, dict(room.view)

    def student_heartbeat(self, code: str, student: str) -> None:
        with self._lock:
            now = self._clock()
            room = self._room(code)
            room.students[student] = now
            for gone in [s for s, seen in room.students.items() if now - seen > PRESENCE_SECONDS]:
                del room.students[gone]

    def students(self, code: str) -> int:
        with self._lock:
            now = self._clock()
            return sum(now - seen <= PRESENCE_SECONDS for seen in self._room(code).students.values())

    def ask(self, code: str, token: str, sentence: str) -> int:
        sentence = str(sentence).strip()[:MAX_QUIZ_TEXT]
        with self._lock:
            room = self._teacher_room(code, token)
            number = room.quiz.number + 1 if room.quiz else 1
            room.quiz = Quiz(number, sentence)
            room.version += 1
            return number

    def reveal(self, code: str, token: str, answer: list) -> None:
        encoded = _check_view(answer)
        with self._lock:
            room = self._teacher_room(code, token)
            if room.quiz is None:
                raise GuessError("no_quiz")
            room.quiz.revealed = True
            room.quiz.answer = json.loads(encoded)  # a copy, as ``publish`` keeps one
            room.version += 1

    def guess(self, code: str, student: str, raw: str) -> str:
        guess = normalise_guess(raw)
        with self._lock:
            quiz = self._room(code).quiz
            if quiz is None:
                raise GuessError("no_quiz")
            if quiz.revealed:
                raise GuessError("revealed")
            if student not in quiz.guesses and len(quiz.guesses) >= MAX_GUESSERS:
                raise GuessError("full")
            quiz.guesses[student] = guess
            return guess

    def quiz(self, code: str) -> Quiz | None:
        with self._lock:
            quiz = self._room(code).quiz
            if quiz is None:
                return None
            return Quiz(quiz.number, quiz.sentence, dict(quiz.guesses), quiz.revealed, quiz.answer)


def _answering(method):
    """A RedisStore method whose connection errors become ``StoreDown``: the pages catch one error of ours, whatever
    the client library raises."""

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except self._down_errors as error:
            raise StoreDown(str(error)) from None

    return call


class RedisStore:
    """Rooms in Redis, shared by every app replica that points at the same server.

    Keys per room: ``<prefix><code>`` (a hash: token, view, version, quiz number, sentence, revealed, answer),
    ``…:students`` (a sorted set: student → last heartbeat) and ``…:guesses`` (a hash: student → guess). The
    teacher's calls reset all three keys' time to live to ``ROOM_TTL``, so Redis itself removes a room whose
    teacher left. Writes that must see the room first run in a transaction watched on the room's key.
    """

    def __init__(self, url: str, prefix: str = "bertlab:room:"):
        import redis  # only a replicated deployment needs the client

        self._redis = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5)
        self._prefix = prefix
        self._watch_error = redis.WatchError
        self._down_errors = (redis.ConnectionError, redis.TimeoutError)

    def _keys(self, code: str) -> tuple[str, str, str]:
        room = self._prefix + code
        return room, room + ":students", room + ":guesses"

    def _room(self, code: str) -> dict:
        fields = self._redis.hgetall(self._keys(code)[0])
        if not fields:
            raise RoomGone(code)
        return fields

    def _teacher(self, code: str, token: str) -> dict:
        fields = self._room(code)
        if not _same_token(fields["token"], token):
            raise NotTeacher(code)
        return fields

    def _refresh(self, pipe, code: str) -> None:
        for key in self._keys(code):
            pipe.expire(key, ROOM_TTL)

    @_answering
    def create(self) -> tuple[str, str]:
        token = new_token()
        while True:
            code = new_code()
            room = self._keys(code)[0]
            # HSETNX on a field every room has: two replicas can never hand out the same code.
            if self._redis.hsetnx(room, "token", token):
                break
        pipe = self._redis.pipeline()
        pipe.hset(room, mapping={"view": "{}", "version": 0, "quiz": 0, "sentence": "", "revealed": 0, "answer": ""})
        self._refresh(pipe, code)
        pipe.execute()
        return code, token

    @_answering
    def close(self, code: str, token: str) -> None:
        self._teacher(code, token)
        self._redis.delete(*self._keys(code))

    @_answering
    def teacher_heartbeat(self, code: str, token: str) -> None:
        self._teacher(code, token)
        pipe = self._redis.pipeline()
        self._refresh(pipe, code)
        pipe.execute()

    def _teacher_write(self, code: str, token: str, write) -> list:
        """Run ``write(pipe)`` in a transaction that fails if the room changed hands or vanished meanwhile."""
        room = self._keys(code)[0]
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(room)
                    stored = pipe.hget(room, "token")
                    if stored is None:
                        raise RoomGone(code)
                    if not _same_token(stored, token):
                        raise NotTeacher(code)
                    pipe.multi()
                    write(pipe)
                    self._refresh(pipe, code)
                    return pipe.execute()
                except self._watch_error:
                    continue

    @_answering
    def publish(self, code: str, token: str, view: dict) -> int:
        encoded = _check_view(view)
        room = self._keys(code)[0]

        def write(pipe):
            pipe.hset(room, "view", encoded)
            pipe.hincrby(room, "version", 1)

        return int(self._teacher_write(code, token, write)[1])

    @_answering
    def version(self, code: str) -> int:
        value = self._redis.hget(self._keys(code)[0], "version")
        if value is None:
            raise RoomGone(code)
        return int(value)

    @_answering
    def view(self, code: str) -> tuple[int, dict]:
        fields = self._room(code)
        return int(fields["version"]), json.loads(fields["view"])

    @_answering
    def student_heartbeat(self, code: str, student: str) -> None:
        room, students, _ = self._keys(code)
        if not self._redis.exists(room):
            raise RoomGone(code)
        now = time.time()
        pipe = self._redis.pipeline()
        pipe.zadd(students, {student: now})
        pipe.zremrangebyscore(students, "-inf", now - PRESENCE_SECONDS)
        pipe.expire(students, ROOM_TTL)  # a room's teacher refreshes it too; this bounds a left-over key
        pipe.execute()

    @_answering
    def students(self, code: str) -> int:
        room, students, _ = self._keys(code)
        pipe = self._redis.pipeline()
        pipe.exists(room)
        pipe.zcount(students, time.time() - PRESENCE_SECONDS, "+inf")
        exists, count = pipe.execute()
        if not exists:
            raise RoomGone(code)
        return int(count)

    @_answering
    def ask(self, code: str, token: str, sentence: str) -> int:
        sentence = str(sentence).strip()[:MAX_QUIZ_TEXT]
        room, _, guesses = self._keys(code)

        def write(pipe):
            pipe.hincrby(room, "quiz", 1)
            pipe.hset(room, mapping={"sentence": sentence, "revealed": 0, "answer": ""})
            pipe.delete(guesses)
            pipe.hincrby(room, "version", 1)

        return int(self._teacher_write(code, token, write)[0])

    @_answering
    def reveal(self, code: str, token: str, answer: list) -> None:
        encoded = _check_view(answer)
        room = self._keys(code)[0]
        if int(self._teacher(code, token)["quiz"]) == 0:
            raise GuessError("no_quiz")

        def write(pipe):
            pipe.hset(room, mapping={"revealed": 1, "answer": encoded})
            pipe.hincrby(room, "version", 1)

        self._teacher_write(code, token, write)

    @_answering
    def guess(self, code: str, student: str, raw: str) -> str:
        guess = normalise_guess(raw)
        room, _, guesses = self._keys(code)
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    # Watched: a guess that arrives as the teacher reveals or asks anew must not be counted, nor one
                    # past the room's limit that another replica's guess just reached.
                    pipe.watch(room, guesses)
                    fields = pipe.hmget(room, "quiz", "revealed")
                    if fields[0] is None:
                        raise RoomGone(code)
                    if int(fields[0]) == 0:
                        raise GuessError("no_quiz")
                    if int(fields[1]):
                        raise GuessError("revealed")
                    if not pipe.hexists(guesses, student) and pipe.hlen(guesses) >= MAX_GUESSERS:
                        raise GuessError("full")
                    pipe.multi()
                    pipe.hset(guesses, student, guess)
                    pipe.expire(guesses, ROOM_TTL)
                    pipe.execute()
                    return guess
                except self._watch_error:
                    continue

    @_answering
    def quiz(self, code: str) -> Quiz | None:
        room, _, guesses = self._keys(code)
        pipe = self._redis.pipeline()
        pipe.hmget(room, "quiz", "sentence", "revealed", "answer")
        pipe.hgetall(guesses)
        (number, sentence, revealed, answer), answers = pipe.execute()
        if number is None:
            raise RoomGone(code)
        if int(number) == 0:
            return None
        return Quiz(int(number), sentence, answers, bool(int(revealed)), json.loads(answer) if answer else None)


def store_from_env() -> RoomStore:
    """Redis when ``BERT_LAB_REDIS_URL`` is set (several replicas), else this process's memory."""
    url = os.environ.get("BERT_LAB_REDIS_URL")
    return RedisStore(url) if url else MemoryStore()


@dataclass(frozen=True)
class Tally:
    """A revealed quiz: the class's guesses counted, and how they meet BERT's ranked top words."""

    counts: list[tuple[str, int]]  # guess → students, most common first
    answered: int
    top_word: str  # BERT's first choice
    top_word_count: int  # students who guessed it
    in_top: int  # students whose guess is one of BERT's top words


def bert_word(token: str) -> str:
    """A predicted wordpiece as a student would type it: "##s" continues a word, so compare "s"."""
    return same_script(token.removeprefix("##").lower())


@functools.cache
def _to_simplified() -> dict[int, str]:
    return {ord(a): b for a, b in traditional_to_simplified().items()}


def same_script(word: str) -> str:
    """``word`` with each Traditional character in its Simplified form (OpenCC's character table), on both sides of
    a comparison: a class in Taiwan types 機 where the model says 机, and both count as the same guess."""
    return word.translate(_to_simplified())


def tally(guesses: dict[str, str], bert_tokens: list[str]) -> Tally:
    counter = Counter(guesses.values())
    words = [bert_word(token) for token in bert_tokens]
    counts = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    top = words[0] if words else ""
    return Tally(
        counts=counts,
        answered=sum(counter.values()),
        top_word=top,
        top_word_count=counter.get(top, 0),
        in_top=sum(n for guess, n in counter.items() if guess in set(words)),
    )
