"""Several server processes on one database: who holds which table, and the
messages between them (Redis; the ``cluster`` extra).

A table lives in one process at a time, its *holder*: the only process that
runs its bots and clocks and changes it. Any process may serve any client.
A client whose table is held elsewhere is relayed (relay.py): its messages go
to the holder through the holder's inbox channel, and the holder's messages
for it come back through the relaying process's inbox. Every process
publishes to inboxes and reads its own, so one Redis pub/sub connection per
process carries everything, batched per turn of the event loop.

Who holds a table is one Redis hash, ``holders`` (table -> process). A
process is alive while its heartbeat key lives (``BEAT_TTL`` seconds,
renewed every ``BEAT_EVERY``). A table whose holder's heartbeat has gone
may be taken by any process (``claim``, an atomic script), and every process
looks for such tables now and then (``orphans``), so a match goes on within
a few seconds of its holder dying even when nobody is connected. The
database still orders the actions: a process that stalls past its heartbeat
and wakes up holding a table that was taken finds its next write refused as
stale (store.py, ``StaleVersion``) and drops the table (``lost``).

Redis keeps nothing here that matters after a restart of Redis itself: the
tables and their logs are in the database, and the holders are found again.
What is lost is the messages of the moment: pub/sub keeps nothing for a
subscriber that is away. So whenever messages may have been lost (a publish
that failed twice, the inbox's connection dropped, a heartbeat that could not
be renewed) the process is told (``on_interrupted``), and the relay closes
the clients concerned with 1012: their pages reconnect and start again from
the table's current state. The inbox is subscribed again on a fresh
connection, and after a missed heartbeat the tables held here are claimed
again (``on_lost``).

Each message is encoded on its own when it is sent (``send``), so a value
the encoder refuses fails that one message, at its sender, and never the
others of the same moment (``Unsendable``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from ..serving import metrics

try:
    import orjson
except ImportError:  # pragma: no cover - orjson comes with the web extra
    orjson = None  # type: ignore[assignment]

log = logging.getLogger("ohhell.web")

BEAT_EVERY: Final = 0.5  # seconds between a process's heartbeats
BEAT_TTL: Final = 1.5  # seconds a heartbeat lasts: a process silent this long is taken for dead
ORPHANS_EVERY: Final = 0.5  # seconds between looks for tables whose holder died
CALL_TIMEOUT: Final = 5.0  # seconds a request relayed to a table's holder may take

Message = dict[str, Any]


class Unsendable(ValueError):
    """A message holds a value that cannot be encoded (an integer past 64
    bits, nesting too deep, a lone surrogate): it is not sent, and only it."""


# KEYS: holders hash, heartbeat prefix. ARGV: table, this process.
# The table is ours if nobody holds it or its holder's heartbeat is gone.
_CLAIM = """
local holder = redis.call('HGET', KEYS[1], ARGV[1])
if holder == ARGV[2] then return holder end
if holder and redis.call('EXISTS', KEYS[2] .. holder) == 1 then return holder end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return ARGV[2]
"""

# KEYS: holders hash. ARGV: table, this process. Let go only of our own.
_RELEASE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return 1
end
return 0
"""

# KEYS: holders hash, heartbeat prefix. ARGV: this process, most tables.
# Takes up to ARGV[2] tables whose holder is dead.
_ORPHANS = """
local taken = {}
local alive = {}
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local holder = entries[i + 1]
  if alive[holder] == nil then
    alive[holder] = redis.call('EXISTS', KEYS[2] .. holder) == 1
  end
  if not alive[holder] then
    redis.call('HSET', KEYS[1], entries[i], ARGV[1])
    taken[#taken + 1] = entries[i]
    if #taken >= tonumber(ARGV[2]) then break end
  end
end
return taken
"""


def broker_errors() -> tuple[type[BaseException], ...]:
    """The errors a broker that does not answer raises (redis-py's own
    family, which are not ``OSError``); none without the cluster extra."""
    try:
        from redis.exceptions import RedisError
    except ImportError:  # pragma: no cover - depends on the install
        return ()
    return (RedisError,)


def _dumps(message: Any) -> bytes:
    """One message as JSON, or ``Unsendable``. The same encoder as the
    receiver's decoder, so what is sent is always read back."""
    if orjson is None:  # pragma: no cover - orjson comes with the web extra
        try:
            return json.dumps(message, separators=(",", ":"), allow_nan=False).encode()
        except (TypeError, ValueError, RecursionError) as err:
            raise Unsendable(str(err)) from err
    try:
        return orjson.dumps(message)
    except TypeError as err:  # orjson.JSONEncodeError is a TypeError
        raise Unsendable(str(err)) from err


def _loads(data: bytes | str) -> Any:
    if orjson is None:  # pragma: no cover
        return json.loads(data)
    return orjson.loads(data)


def _batch(sender: str, messages: list[bytes]) -> bytes:
    """Messages already encoded, joined into one batch."""
    return b'{"from":' + _dumps(sender) + b',"m":[' + b",".join(messages) + b"]}"


class Cluster:
    """This process's part in a group of servers sharing one database and one
    Redis; see the module docstring. ``name`` keeps groups on one Redis apart
    (the database's own id: processes on the same database form one group)."""

    def __init__(self, url: str, name: str) -> None:
        self.url = url
        self.prefix = f"ohhell:{name}:"
        # A new id each start: a restarted process is a new holder, and the
        # old one's tables pass to whoever takes them.
        self.worker = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._redis: Any = None
        self._pubsub: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._out: dict[str, list[bytes]] = {}
        self._flushing = False
        self._calls: dict[int, asyncio.Future[Message]] = {}
        self._numbers = itertools.count()
        self._alive: set[str] = set()
        self._stopping = threading.Event()
        self._missed = threading.Event()
        self._cut = threading.Event()  # the heartbeat could not reach Redis
        self._beating: threading.Thread | None = None
        self.on_message: Callable[[Message], Awaitable[None] | None] | None = None
        self.on_lost: Callable[[], Awaitable[None]] | None = None
        self.on_orphans: Callable[[list[str]], Awaitable[None]] | None = None
        # Messages to or from these processes (None: any) may have been lost.
        self.on_interrupted: Callable[[set[str] | None], None] | None = None

    # --- Keys ---

    @property
    def holders_key(self) -> str:
        return self.prefix + "holders"

    @property
    def beat_prefix(self) -> str:
        return self.prefix + "alive:"

    def inbox(self, worker: str) -> str:
        return self.prefix + "inbox:" + worker

    # --- Starting and stopping ---

    async def start(self) -> None:
        """Connect, say this process is alive, and read its inbox."""
        try:
            import redis.asyncio as redis
        except ImportError as err:  # pragma: no cover - depends on the install
            raise RuntimeError(
                "several server processes need the cluster extra: python3 -m pip install -e '.[cluster]'"
            ) from err
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # A pooled connection that died with Redis (a restart) fails its next
        # command: that command is tried once more, on a fresh connection.
        self._redis = redis.Redis.from_url(self.url, retry=Retry(NoBackoff(), 1))
        await self._redis.set(self.beat_prefix + self.worker, "1", px=int(BEAT_TTL * 1000))
        await self._look_around()
        await self._subscribe()
        self._claim = self._redis.register_script(_CLAIM)
        self._release = self._redis.register_script(_RELEASE)
        self._orphans = self._redis.register_script(_ORPHANS)
        self._beating = threading.Thread(target=self._heartbeat, name="ohhell-heartbeat", daemon=True)
        self._beating.start()
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._read()),
            loop.create_task(self._beat()),
            loop.create_task(self._look_for_orphans()),
        ]
        log.info("cluster: this process is %s", self.worker)

    async def close(self) -> None:
        """Stop beating and reading; the tables still held here are let go
        (the caller releases them first, so others can take them at once)."""
        self._stopping.set()
        if self._beating is not None:
            await asyncio.to_thread(self._beating.join, BEAT_TTL)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._flush()
                await self._redis.delete(self.beat_prefix + self.worker)
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            with contextlib.suppress(Exception):
                await self._redis.aclose()
        for future in self._calls.values():
            if not future.done():
                future.set_exception(ConnectionError("the server is stopping"))

    # --- Holding tables ---

    async def claim(self, table_id: str) -> str:
        """Take ``table_id`` if nobody alive holds it; returns its holder
        (this process's id when it is ours now)."""
        holder = await self._claim(keys=[self.holders_key, self.beat_prefix], args=[table_id, self.worker])
        return holder.decode() if isinstance(holder, bytes) else str(holder)

    async def release(self, table_id: str) -> None:
        """Let go of a table held here (unloaded, or the server stops)."""
        with contextlib.suppress(Exception):
            await self._release(keys=[self.holders_key], args=[table_id, self.worker])

    async def holder(self, table_id: str) -> str | None:
        """Who holds ``table_id`` now (alive or not), or None."""
        value = await self._redis.hget(self.holders_key, table_id)
        return None if value is None else value.decode()

    def alive(self, worker: str) -> bool:
        """Was ``worker`` alive at the last heartbeat here?"""
        return worker in self._alive

    async def still_alive(self, worker: str) -> bool:
        """Is ``worker`` alive now (asked of Redis)?"""
        return bool(await self._redis.exists(self.beat_prefix + worker))

    async def _look_around(self) -> None:
        names = [k.decode() async for k in self._redis.scan_iter(match=self.beat_prefix + "*")]
        self._alive = {n[len(self.beat_prefix) :] for n in names}

    def _heartbeat(self) -> None:
        """The heartbeat, in a thread of its own: a process whose event loop
        is busy for a few seconds (thousands of clients arriving at once) is
        still alive and still holds its tables; only a dead process stops
        beating. (A thread gets the interpreter's lock within milliseconds
        even while the loop works.)"""
        import redis

        client = redis.Redis.from_url(self.url, socket_timeout=BEAT_TTL)
        key = self.beat_prefix + self.worker
        try:
            while not self._stopping.wait(BEAT_EVERY):
                try:
                    if not client.set(key, "1", px=int(BEAT_TTL * 1000), xx=True):
                        # The key lapsed (Redis restarted, or this process
                        # was stopped past its heartbeat): beat again, and
                        # let the loop check which tables are still ours.
                        client.set(key, "1", px=int(BEAT_TTL * 1000))
                        self._missed.set()
                    elif self._cut.is_set():
                        self._missed.set()  # back after a cut Redis did not see as a lapse
                except redis.RedisError:
                    if not self._cut.is_set():
                        log.warning("cluster: the heartbeat could not reach Redis")
                    self._cut.set()
        finally:
            client.close()

    async def _beat(self) -> None:
        """Now and then: who is alive, and (after a missed heartbeat) which
        tables are still this process's."""
        while True:
            await asyncio.sleep(BEAT_EVERY)
            try:
                if self._cut.is_set() and not self._missed.is_set():
                    self._interrupted(None)  # Redis is away: whatever is sent now is lost
                if self._missed.is_set():
                    self._missed.clear()
                    self._cut.clear()
                    log.warning("cluster: %s missed its heartbeat; checking its tables", self.worker)
                    self._interrupted(None)
                    if self.on_lost is not None:
                        try:
                            await self.on_lost()
                        except Exception:
                            self._missed.set()  # Redis went away again: claim the tables on the next round
                            raise
                await self._look_around()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: looking at the other processes failed")

    async def _look_for_orphans(self) -> None:
        while True:
            await asyncio.sleep(ORPHANS_EVERY)
            try:
                taken = await self._orphans(keys=[self.holders_key, self.beat_prefix], args=[self.worker, 50])
                if taken and self.on_orphans is not None:
                    await self.on_orphans([t.decode() if isinstance(t, bytes) else str(t) for t in taken])
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: looking for tables whose holder died failed")

    # --- Messages between processes ---

    def _interrupted(self, workers: set[str] | None) -> None:
        if self.on_interrupted is not None:
            try:
                self.on_interrupted(workers)
            except Exception:
                log.exception("cluster: closing the clients of a lost moment failed")

    def send(self, worker: str, message: Message) -> None:
        """Queue ``message`` for ``worker``'s inbox; everything queued in one
        turn of the event loop goes in one publish per process. Encoded now:
        ``Unsendable`` if it cannot be, and nothing is queued."""
        self.send_encoded(worker, _dumps(message))

    def send_encoded(self, worker: str, data: bytes) -> None:
        """Queue a message encoded already (a JSON object, as ``send`` makes)."""
        self._out.setdefault(worker, []).append(data)
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._schedule_flush)

    def _schedule_flush(self) -> None:
        asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        self._flushing = False
        out, self._out = self._out, {}
        if not out:
            return
        batches = {worker: _batch(self.worker, messages) for worker, messages in out.items()}
        for attempt in (1, 2):
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    for worker, batch in batches.items():
                        pipe.publish(self.inbox(worker), batch)
                    await pipe.execute()
                return
            except Exception as err:
                # A pooled connection that died with Redis fails once and is
                # dropped; the second try takes a fresh one.
                if attempt == 2:
                    log.warning("cluster: could not send to %s: %s", ", ".join(out), err)
        self._interrupted(set(out))

    async def call(self, worker: str, message: Message, timeout: float = CALL_TIMEOUT) -> Message:
        """Send ``message`` to ``worker`` and wait for its answer."""
        number = next(self._numbers)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self.send(worker, {**message, "call": number, "reply_to": self.worker})  # Unsendable: no wait
        self._calls[number] = future
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._calls.pop(number, None)

    def answer(self, message: Message, result: Message) -> None:
        """Answer a ``call`` that reached this process."""
        reply = {"t": "answer", "call": message["call"]}
        try:
            self.send(message["reply_to"], {**reply, "result": result})
        except Unsendable:
            log.warning("cluster: an answer to %s could not be encoded", message.get("from"))
            failed = {"status": 500, "json": {"error": "the table's server could not answer that"}}
            self.send(message["reply_to"], {**reply, "result": failed})

    async def _subscribe(self) -> None:
        """Read this process's inbox on a connection of its own."""
        self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.inbox(self.worker))

    async def _read(self) -> None:
        while True:
            try:
                async for raw in self._pubsub.listen():
                    if raw.get("type") != "message":
                        continue
                    try:
                        batch = _loads(raw["data"])
                        sender, messages = batch.get("from"), batch.get("m", ())
                    except Exception:
                        log.warning("cluster: a batch that is not JSON came to the inbox; dropped")
                        continue
                    for message in messages:
                        message["from"] = sender
                        await self._dispatch(message)
                raise ConnectionError("the inbox stopped")  # not subscribed any more: never spin here
            except asyncio.CancelledError:
                raise
            except Exception as err:
                # The inbox's connection dropped (Redis restarted, say): what
                # came meanwhile is lost. Subscribe again on a fresh connection.
                log.warning("cluster: reading the inbox failed (%s); subscribing again", err)
                self._interrupted(None)
                await self._resubscribe()

    async def _resubscribe(self) -> None:
        delay = 0.1
        while True:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            try:
                await self._subscribe()
                log.info("cluster: reading the inbox again")
                self._interrupted(None)  # what came while away is lost too
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                await asyncio.sleep(delay)
                delay = min(delay * 2, BEAT_EVERY)

    async def _dispatch(self, message: Message) -> None:
        if not isinstance(message, dict):
            return
        if message.get("t") == "answer":
            future = self._calls.get(message.get("call", -1))
            if future is not None and not future.done():
                future.set_result(message.get("result") or {})
            return
        if message.get("t") == "lag":  # this process's own probe, back through the broker
            at = message.get("at")
            if isinstance(at, float):
                metrics.relay_lag.set(max(0.0, time.time() - at))
            return
        if self.on_message is None:
            return
        try:
            done = self.on_message(message)
            if done is not None:
                await done
        except Exception:
            log.exception("cluster: a message from %s failed", message.get("from"))


__all__ = ["BEAT_EVERY", "BEAT_TTL", "ORPHANS_EVERY", "Cluster", "Unsendable"]
