"""GET /metrics: the platform's figures in Prometheus' text format, read at scrape
time from the database and the broker by a collector (prometheus-client).

docs/deploy.md (Monitoring) lists the metrics and a dashboard's queries.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping

from django.db import DatabaseError
from kombu.exceptions import KombuError
from prometheus_client import CollectorRegistry, PlatformCollector, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from arena.matches.models import MatchStatus

from .checks import broker_connection, queue_depths
from .selectors import platform_figures

log = logging.getLogger(__name__)

#: Match statuses that only grow (a counter each); the others come and go (gauges).
ENDED = (MatchStatus.FINISHED, MatchStatus.FAILED_INFRA, MatchStatus.CANCELLED)
IN_PROGRESS = (MatchStatus.QUEUED, MatchStatus.RUNNING)


def _by_label(
    family: type[CounterMetricFamily | GaugeMetricFamily],
    name: str,
    documentation: str,
    label: str,
    values: Mapping[str, float],
) -> Metric:
    """A metric with one sample per ``label`` value, in their order."""
    metric = family(name, documentation, labels=[label])
    for key, value in sorted(values.items()):
        metric.add_metric([key], value)
    return metric


class BrokerCollector(Collector):
    """Messages waiting per queue, and whether the broker answered the scrape."""

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("arena_broker_up", "1 if the broker answered this scrape, else 0.")
        depth = GaugeMetricFamily(
            "arena_queue_messages",
            "Messages waiting in a Celery queue (not those a worker holds).",
            labels=["queue"],
        )
        try:
            with broker_connection() as broker:
                depths = queue_depths(broker)
        except (KombuError, OSError) as error:
            log.warning("metrics: the broker did not answer: %s", error)
            up.add_metric([], 0)
        else:
            up.add_metric([], 1)
            for queue, messages in sorted(depths.items()):
                depth.add_metric([queue], messages)
        yield up
        yield depth


class DatabaseCollector(Collector):
    """Matches, forfeits, workers' busy time, ratings and pre-flights, from the database."""

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "arena_database_up", "1 if the database answered this scrape, else 0."
        )
        try:
            figures = platform_figures()
        except DatabaseError as error:
            log.warning("metrics: the database did not answer: %s", error)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        ended = CounterMetricFamily(
            "arena_matches_ended",
            "Matches ended, by ladder and how (finished, failed_infra, cancelled).",
            labels=["ladder", "status"],
        )
        current = GaugeMetricFamily(
            "arena_matches",
            "Matches queued or running now, by ladder.",
            labels=["ladder", "status"],
        )
        for (ladder, status), count in sorted(figures.matches.items()):
            if status in ENDED:
                ended.add_metric([ladder, status], count)
            elif status in IN_PROGRESS:
                current.add_metric([ladder, status], count)
        yield ended
        yield current

        yield _by_label(
            CounterMetricFamily,
            "arena_forfeits",
            "Seats lost by forfeit, by kind.",
            "kind",
            figures.forfeits,
        )
        yield _by_label(
            CounterMetricFamily,
            "arena_worker_busy_seconds",
            "Seconds worker processes spent playing matches (ended runs), by host.",
            "host",
            figures.busy_seconds,
        )
        yield _by_label(
            GaugeMetricFamily,
            "arena_worker_games_running",
            "Games being played now, by host.",
            "host",
            figures.games_running,
        )
        yield _by_label(
            GaugeMetricFamily,
            "arena_worker_processes_busy",
            "Worker processes playing a match or a series now, by host.",
            "host",
            figures.processes_busy,
        )
        capacity = GaugeMetricFamily(
            "arena_worker_processes",
            "Pool processes of each Celery worker up (as it last said), with its queues.",
            labels=["worker", "host", "queues"],
        )
        for (worker, queues), count in sorted(figures.worker_processes.items()):
            capacity.add_metric([worker, worker.partition("@")[2] or worker, queues], count)
        yield capacity

        yield GaugeMetricFamily(
            "arena_ratings_pending",
            "Finished rated matches whose ratings are not applied yet.",
            value=figures.ratings_pending,
        )
        oldest = figures.oldest_unrated_finished_at
        yield GaugeMetricFamily(
            "arena_rating_lag_seconds",
            "Age of the oldest finished match still to rate (0 when none waits).",
            value=max(0.0, time.time() - oldest.timestamp()) if oldest else 0.0,
        )
        yield GaugeMetricFamily(
            "arena_preflights_pending",
            "Pre-flight games (a version on a ladder) not played yet.",
            value=figures.preflights_pending,
        )
        yield _by_label(
            GaugeMetricFamily,
            "arena_versions_unvalidated",
            "Bot versions waiting for validation or being validated.",
            "status",
            figures.versions_unvalidated,
        )
        if figures.beat_last_run_at is not None:
            yield GaugeMetricFamily(
                "arena_beat_last_run_timestamp_seconds",
                "When beat last sent a periodic task (as django-celery-beat recorded it).",
                value=figures.beat_last_run_at.timestamp(),
            )


def registry() -> CollectorRegistry:
    """A registry of its own (not prometheus-client's global one): only these metrics,
    plus the answering process's own (memory, CPU, open files; Python's version)."""
    metrics = CollectorRegistry(auto_describe=False)
    ProcessCollector(registry=metrics)
    PlatformCollector(registry=metrics)
    metrics.register(DatabaseCollector())
    metrics.register(BrokerCollector())
    return metrics
