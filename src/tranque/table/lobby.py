"""``Lobby``: every table owner of this server; creates tables and rebuilds unfinished ones."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from tranque.table.owner import RECENT, TableOwner, frame
from tranque.table.ports import Clock, Entry, TableStore, Thinker
from tranque.table.service import SeedSource, TableService, TableSettings, resolve_bot_name


class Lobby:
    """Every table's owner; creates tables and rebuilds the unfinished ones after a restart."""

    def __init__(
        self,
        store: TableStore,
        clock: Clock,
        seed_source: SeedSource,
        defaults: TableSettings,
        table_ids: Callable[[], str] | None = None,
        thinker: Thinker | None = None,
    ) -> None:
        self.thinker = thinker  # where every table's bots think (None: a thread of this process)
        self.store = store
        self.clock = clock
        self.seed_source = seed_source
        self.defaults = defaults
        self.owners: dict[str, TableOwner] = {}
        self.table_ids = table_ids or (lambda: secrets.token_urlsafe(6))

    async def recover(self) -> int:
        """Rebuild every unfinished table from its log and start it again."""
        count = 0
        for table_id in await self.store.unfinished_tables():
            entries = await self.store.load_events(table_id)
            if not entries:
                continue
            svc = TableService(table_id, self.seed_source)
            recent: list[tuple[int, bytes]] = []
            for i, e in enumerate(entries):
                svc.apply(e)
                if i >= len(entries) - RECENT:
                    recent.append((e.seq, frame(svc.project(e))))
            owner = self._start(svc, recent)
            if svc.started and not svc.over:
                # Clocks go on with the time they had left when the table last moved.
                owner._put(("resumed", max(0.0, self.clock.now() - svc.last_ts)))
            count += 1
        return count

    def _start(self, svc: TableService, recent: list[tuple[int, bytes]]) -> TableOwner:
        owner = TableOwner(svc, self.store, self.clock, on_over=self._over, thinker=self.thinker)
        owner.recent.extend(recent)
        self.owners[svc.table_id] = owner
        owner.start()
        return owner

    def _over(self, owner: TableOwner) -> None:
        # Finished tables stay in memory for a while for late viewers; records live in the store.
        pass

    async def create(
        self,
        host: str,
        nickname: str,
        settings: TableSettings,
        seat: int | None,
    ) -> TableOwner:
        table_id = self.table_ids()
        svc = TableService(table_id, self.seed_source)
        now = self.clock.now()
        first = [Entry(1, "created", {"settings": settings.to_json(), "host": host}, now)]
        svc.apply(first[0])
        if seat is not None:
            e = Entry(svc.seq + 1, "sat", {"seat": seat, "guest": host, "nickname": nickname}, now)
            svc.apply(e)
            first.append(e)
        if settings.practice:
            bot = resolve_bot_name(settings.bot)
            for s in range(4):
                if svc.seats[s].kind == "empty":
                    e = Entry(svc.seq + 1, "bot_sat", {"seat": s, "bot": bot}, now)
                    svc.apply(e)
                    first.append(e)
        await self.store.create_table(table_id, host, {"settings": settings.to_json()})
        await self.store.append(table_id, first)
        owner = TableOwner(svc, self.store, self.clock, on_over=self._over, thinker=self.thinker)
        for e in first:
            owner.recent.append((e.seq, frame(svc.project(e))))
        self.owners[table_id] = owner
        owner.start()
        return owner

    async def get(self, table_id: str) -> TableOwner | None:
        return self.owners.get(table_id)

    async def close(self) -> None:
        for owner in list(self.owners.values()):
            await owner.stop()
