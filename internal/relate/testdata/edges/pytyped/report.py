"""Reports over the statistics."""
from typing import Optional

from requests import Session

from stats import StatsEntry


def report(entry: StatsEntry, percent: float = 0.5):
    entry.reset()
    return entry.response_time_percentile(percent)


def maybe(entry: Optional[StatsEntry]):
    return entry.response_time_percentile(0.9)


def local():
    entry: "StatsEntry" = make()
    return entry.response_time_percentile(0.1)


def untyped(entry):
    return entry.response_time_percentile(0.5)


def fetch(session: Session, url: str):
    return session.get(url).strip()
