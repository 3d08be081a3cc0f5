"""Topics: a project's traces grouped by what they are about and how they went.

A build reads the newest TOPICS_MAX_TRACES traces of the last TOPICS_WINDOW_DAYS, turns each
into tokens (insights.topic_documents), weighs them by TF-IDF and groups them with k-means,
the number of groups chosen by silhouette (all scikit-learn, with a fixed random state, so the
same traces give the same topics). The vocabulary and idf weights and each topic's centroid are
stored, so a trace that settles later is placed in the nearest topic without fitting again
(`trace_topic_assign`). Builds run in a periodic task, never on a request.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
from django.conf import settings
from django.core.cache import caches
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import silhouette_score
from sklearn.metrics.pairwise import euclidean_distances

from core.publish import task_publish
from insights.models import Topic, TopicBuild, TraceTopic
from insights.topic_documents import trace_text, trace_tokens, traces_facts
from insights.topic_embeddings import EmbeddingError, embeddings_configured, texts_embed
from insights.topic_names import NameSource, terms_key, topics_name
from insights.topic_rules import RuleDrafter
from traces.models import Project, Trace
from traces.selectors import traces_visible
from webhooks.events import TOPIC_EMERGED
from webhooks.services import event_publish

logger = logging.getLogger(__name__)

RANDOM_STATE = 0
EXAMPLES = 5
NAME_TERMS = 3
SHOWN_TERMS = 8
# Fewer traces than this make no topics worth a name.
MIN_TRACES = 6
# Silhouette reads at most this many traces (a sample, with the fixed random state).
SILHOUETTE_SAMPLE = 2000
# A topic is "like" a topic of the previous build when this share of their terms is shared.
SAME_TOPIC_OVERLAP = 0.34
# A new topic is reported when its second half-window grew by this much over its first...
EMERGING_GROWTH = 0.5
# ...or its failure share is this far above the build's, and it has at least this many traces.
EMERGING_FAILURE_MARGIN = 0.25
EMERGING_MIN_SIZE = 3


def tokens_as_given(tokens: list[str]) -> list[str]:
    """The analyzer: documents are already tokens."""
    return tokens


def _vectorizer(**extra) -> TfidfVectorizer:
    return TfidfVectorizer(analyzer=tokens_as_given, sublinear_tf=True, **extra)


def term_label(term: str) -> str:
    """A token as a person reads it: `step:a>b` is "a → b", `flag:loop` is "flag loop"."""
    kind, _, value = term.partition(":")
    if not value:
        return term
    if kind == "step":
        return value.replace(">", " → ")
    if kind in ("tool", "first"):
        return value
    return f"{kind} {value}"


def topic_name(terms: list[str]) -> str:
    """The first NAME_TERMS distinct labels of the topic's top terms."""
    labels = list(dict.fromkeys(term_label(term) for term in terms))
    return ", ".join(labels[:NAME_TERMS])[:200] or "(no terms)"


def _choose_k(matrix, distinct: int) -> tuple[int, np.ndarray, np.ndarray]:
    """The k-means with the best silhouette among 2..TOPICS_MAX_TOPICS groups."""
    rows = matrix.shape[0]
    highest = min(settings.TOPICS_MAX_TOPICS, distinct - 1, max(2, rows // 2))
    best = None
    for k in range(2, highest + 1):
        model = KMeans(n_clusters=k, random_state=RANDOM_STATE, n_init=4).fit(matrix)
        score = silhouette_score(
            matrix,
            model.labels_,
            metric="cosine",
            sample_size=min(rows, SILHOUETTE_SAMPLE),
            random_state=RANDOM_STATE,
        )
        if best is None or score > best[0]:
            best = (score, k, model.labels_, model.cluster_centers_)
    if best is None:  # every trace alike: one topic
        return 1, np.zeros(rows, dtype=int), np.asarray(matrix.mean(axis=0))
    return best[1], best[2], best[3]


@dataclass
class BuildInput:
    trace_ids: list[int]
    started: dict[int, object]
    left_out: int


def _window_traces(project: Project, start, end) -> BuildInput:
    in_window = traces_visible(None, Trace.objects.filter(project=project)).filter(
        started_at__gte=start, started_at__lt=end
    )
    limit = settings.TOPICS_MAX_TRACES
    rows = list(in_window.order_by("-started_at", "-pk").values_list("pk", "started_at")[:limit])
    left_out = in_window.count() - len(rows) if len(rows) == limit else 0
    return BuildInput([pk for pk, _ in rows], dict(rows), left_out)


def topics_build(project: Project, *, now=None) -> TopicBuild | None:
    """Group the project's recent traces into topics and store them; None if too few traces."""
    now = now or timezone.now()
    started = time.perf_counter()
    start = now - timedelta(days=settings.TOPICS_WINDOW_DAYS)
    given = _window_traces(project, start, now)
    if len(given.trace_ids) < MIN_TRACES:
        return None
    facts = traces_facts(given.trace_ids)
    ids = [pk for pk in given.trace_ids if pk in facts]
    documents = [trace_tokens(facts[pk]) for pk in ids]
    vectorizer = _vectorizer(max_features=settings.TOPICS_MAX_TERMS)
    tfidf = vectorizer.fit_transform(documents)
    matrix, embedding_model, representation_note = _representation(tfidf, [facts[pk] for pk in ids])
    distinct = len({tuple(sorted(doc)) for doc in documents})
    k, labels, centroids = _choose_k(matrix, distinct)
    terms = vectorizer.get_feature_names_out()
    distances = euclidean_distances(matrix, centroids)
    failed = {pk: facts[pk].failed for pk in ids}
    # The trend compares the two halves of the time the build's traces span (not of the
    # window, which a young project fills only at its end).
    first, last = min(given.started.values()), max(given.started.values())
    midpoint = first + (last - first) / 2
    previous = TopicBuild.objects.newest_first(project.pk).first()
    known = (
        list(Topic.objects.filter(build=previous).values_list("terms", "name", "name_source"))
        if previous
        else []
    )
    previous_terms = [set(terms_) for terms_, _, _ in known]
    build = TopicBuild(
        project=project,
        window_start=start,
        window_end=now,
        built_at=now,
        trace_count=len(ids),
        traces_left_out=given.left_out,
        method="embeddings-kmeans" if embedding_model else "tfidf-kmeans",
        embedding_model=embedding_model,
        representation_note=representation_note,
        vocabulary=terms.tolist(),
        idf=[round(float(value), 6) for value in vectorizer.idf_],
        failure_share=sum(failed.values()) / len(ids),
    )
    topics, memberships = [], []
    drafter = RuleDrafter([facts[pk] for pk in ids if not failed[pk]])
    for number in range(k):
        member_rows = np.flatnonzero(labels == number)
        if not len(member_rows):
            continue
        centroid = np.asarray(centroids[number]).ravel()
        # Terms are TF-IDF's: of an embeddings build, the mean TF-IDF vector of its traces.
        terms_centroid = (
            np.asarray(tfidf[member_rows].mean(axis=0)).ravel() if embedding_model else centroid
        )
        top = [terms[i] for i in np.argsort(-terms_centroid)[:SHOWN_TERMS] if terms_centroid[i] > 0]
        members = [ids[row] for row in member_rows]
        closest = sorted(member_rows, key=lambda row: (distances[row, number], ids[row]))
        topic = Topic(
            number=number,
            name=topic_name(top),
            terms=top,
            centroid=[round(float(value), 6) for value in terms_centroid],
            embedding_centroid=(
                [round(float(value), 6) for value in centroid] if embedding_model else []
            ),
            size=len(members),
            failure_count=sum(failed[pk] for pk in members),
            earlier_count=sum(1 for pk in members if given.started[pk] <= midpoint),
            later_count=sum(1 for pk in members if given.started[pk] > midpoint),
            example_trace_ids=[ids[row] for row in closest[:EXAMPLES]],
            is_new=bool(previous) and _unlike_all(set(top), previous_terms),
            # A rule for what the topic's failures share and the passing traces do not.
            rule_draft=drafter.draft([facts[pk] for pk in members if failed[pk]]),
        )
        topics.append(topic)
        memberships += [
            (ids[row], number, float(distances[row, number]), failed[ids[row]])
            for row in member_rows
        ]
    _topics_name(build, topics, facts, known)
    build.duration_ms = round((time.perf_counter() - started) * 1000)
    with transaction.atomic():
        build.save()
        for topic in topics:
            topic.build = build
        Topic.objects.bulk_create(topics)
        by_number = {topic.number: topic for topic in topics}
        # A trace belongs to the newest build's topic: the older memberships of the project go.
        TraceTopic.objects.filter(topic__build__project=project).delete()
        TraceTopic.objects.bulk_create(
            [
                TraceTopic(trace_id=pk, topic=by_number[number], distance=distance, failed=fail)
                for pk, number, distance, fail in memberships
            ],
            batch_size=2000,
        )
        # The build before this one stays, to tell new topics from known ones next time.
        old = TopicBuild.objects.filter(project=project).exclude(pk=build.pk)
        if previous:
            old = old.exclude(pk=previous.pk)
        old.delete()
        for topic in topics:
            if _emerging(topic, build):
                transaction.on_commit(lambda topic=topic: _emerged_publish(topic))
    return build


def _representation(tfidf, facts: list) -> tuple[object, str, str]:
    """The matrix the traces are grouped by: their embeddings where a model is configured and
    answers, else TF-IDF; with the model's name and, when it failed, why."""
    if not embeddings_configured():
        return tfidf, "", ""
    try:
        matrix = texts_embed([trace_text(item) for item in facts])
    except EmbeddingError as exc:
        logger.warning("topic embeddings failed, TF-IDF used: %s", exc)
        return tfidf, "", f"Embeddings failed ({exc}); grouped by TF-IDF."[:300]
    return matrix, settings.TOPICS_EMBEDDING_MODEL[:200], ""


def _topics_name(build: TopicBuild, topics: list[Topic], facts: dict, known: list) -> None:
    """Judge-model names for the topics, where it answers (insights.topic_names)."""
    judged = {
        terms_key(terms_): name for terms_, name, source in known if source == NameSource.JUDGE
    }
    wanted = {
        topic.number: {
            "terms": topic.terms,
            "labels": list(dict.fromkeys(term_label(term) for term in topic.terms)),
            "examples": [
                (facts[pk].task, facts[pk].final_answer) for pk in topic.example_trace_ids
            ],
        }
        for topic in topics
    }
    naming = topics_name(wanted, judged)
    for topic in topics:
        if topic.number in naming.names:
            topic.name, topic.name_source = naming.names[topic.number], NameSource.JUDGE
    build.names_asked = naming.asked
    build.naming_note = naming.error[:300]


def _unlike_all(terms: set[str], previous_terms: list[set[str]]) -> bool:
    for other in previous_terms:
        union = terms | other
        if union and len(terms & other) / len(union) >= SAME_TOPIC_OVERLAP:
            return False
    return True


def _emerging(topic: Topic, build: TopicBuild) -> bool:
    """A new topic that grows, or fails more than the project's traces do."""
    if not topic.is_new or topic.size < EMERGING_MIN_SIZE:
        return False
    grows = topic.trend is not None and topic.trend >= EMERGING_GROWTH
    grows = grows or (topic.earlier_count == 0 and topic.later_count >= EMERGING_MIN_SIZE)
    fails = topic.failure_share >= build.failure_share + EMERGING_FAILURE_MARGIN
    return grows or fails


def _emerged_publish(topic: Topic) -> None:
    build = topic.build
    event_publish(
        TOPIC_EMERGED,
        {
            "project": build.project.slug,
            "topic": topic.pk,
            "name": topic.name,
            "size": topic.size,
            "failure_share": round(topic.failure_share, 3),
            "project_failure_share": round(build.failure_share, 3),
            "trend": None if topic.trend is None else round(topic.trend, 3),
            "rule_draft": topic.rule_draft.get("text", ""),
        },
    )


@contextmanager
def topics_build_lock(timeout: int):
    """Yield True to the one caller that may build now; the lock expires if a worker dies."""
    cache = caches[settings.SHARED_CACHE]
    key = f"topics-build-lock:{connection.settings_dict['NAME']}"
    acquired = cache.add(key, "1", timeout=timeout)
    try:
        yield acquired
    finally:
        if acquired:
            cache.delete(key)


def topics_build_all(*, now=None, missing_only: bool = False) -> list[TopicBuild]:
    """A build for every project with traces in the window (the periodic task); with
    `missing_only`, for the projects that have none yet, so a fresh install or a new project
    gets topics within a minute rather than at the next periodic build."""
    now = now or timezone.now()
    since = now - timedelta(days=settings.TOPICS_WINDOW_DAYS)
    projects = Project.objects.filter(traces__started_at__gte=since)
    if missing_only:
        projects = projects.filter(topic_builds__isnull=True)
    projects = projects.distinct().order_by("pk")
    builds = []
    for project in projects:
        build = topics_build(project, now=now)
        if build is not None:
            builds.append(build)
    return builds


@dataclass
class PlacedBuild:
    """What placing a trace needs of a build, kept in memory."""

    build_id: int
    vectorizer: TfidfVectorizer
    centroids: np.ndarray  # TF-IDF
    topic_ids: list[int]
    embedding_centroids: np.ndarray | None = None  # of an embeddings build

    @property
    def embedded(self) -> bool:
        return self.embedding_centroids is not None


class Placer:
    """The newest build of a project as a fitted vectorizer and centroid matrices, kept per
    process until a newer build appears: placing a trace then costs one transform (or one
    embedding) and one distance row."""

    def __init__(self):
        self.lock = threading.Lock()
        self.loaded: dict[int, PlacedBuild] = {}

    def get(self, project_id: int, newest: int | None = None) -> PlacedBuild | None:
        """The project's newest build, loaded; `newest` is its id when the caller looked it up."""
        if newest is None:
            newest = TopicBuild.objects.newest_id(project_id)
        if newest is None:
            return None
        with self.lock:
            known = self.loaded.get(project_id)
        if known and known.build_id == newest:
            return known
        build = TopicBuild.objects.get(pk=newest)
        vectorizer = _vectorizer(vocabulary=build.vocabulary)
        vectorizer.idf_ = np.asarray(build.idf)
        topics = list(
            build.topics.order_by("number").values_list("pk", "centroid", "embedding_centroid")
        )
        if not topics:
            return None
        loaded = PlacedBuild(
            build_id=newest,
            vectorizer=vectorizer,
            centroids=np.asarray([centroid for _, centroid, _ in topics]),
            topic_ids=[pk for pk, _, _ in topics],
            embedding_centroids=(
                np.asarray([embedded for _, _, embedded in topics])
                if build.embedding_model
                else None
            ),
        )
        with self.lock:
            self.loaded[project_id] = loaded
        return loaded

    def forget(self) -> None:
        with self.lock:
            self.loaded.clear()


placer = Placer()


def trace_topic_arrive(trace: Trace, newest_build_id: int | None = None) -> TraceTopic | None:
    """A settled trace's place: at once by TF-IDF; of an embeddings build, in a task after the
    commit (an embedding is a call to a server, never made on a request or in ingest's
    transaction). `newest_build_id` is its project's newest build, when the caller knows it."""
    if trace.held_out:
        return None
    loaded = placer.get(trace.project_id, newest_build_id)
    if loaded is None:
        return None
    if loaded.embedded:
        from insights.tasks import topic_assign_task

        trace_id = trace.pk
        transaction.on_commit(lambda: task_publish(topic_assign_task, trace_id))
        return None
    return trace_topic_assign(trace, loaded)


def trace_topic_assign(trace: Trace, loaded: PlacedBuild | None = None) -> TraceTopic | None:
    """Place a settled trace in the nearest topic of its project's newest build (`loaded`, when
    the caller has it), by the representation the build grouped by; an embedding that fails
    falls back to the trace's TF-IDF terms, counted on the build."""
    if trace.held_out:
        return None
    loaded = loaded or placer.get(trace.project_id)
    if loaded is None:
        return None
    facts = traces_facts([trace.pk], judged=False).get(trace.pk)
    if facts is None:
        return None
    distances = None
    if loaded.embedded:
        try:
            vector = texts_embed([trace_text(facts)])
            distances = euclidean_distances(vector, loaded.embedding_centroids)[0]
        except EmbeddingError as exc:
            logger.warning("topic embedding of trace %s failed, TF-IDF used: %s", trace.pk, exc)
            TopicBuild.objects.filter(pk=loaded.build_id).update(
                arrivals_fallback=F("arrivals_fallback") + 1
            )
    if distances is None:
        vector = loaded.vectorizer.transform([trace_tokens(facts)])
        distances = euclidean_distances(vector, loaded.centroids)[0]
    nearest = int(np.argmin(distances))
    topic_id = loaded.topic_ids[nearest]
    with transaction.atomic():
        membership, created = TraceTopic.objects.get_or_create(
            trace=trace,
            defaults={
                "topic_id": topic_id,
                "distance": float(distances[nearest]),
                "failed": facts.failed,
                "on_arrival": True,
            },
        )
        if created:
            Topic.objects.filter(pk=topic_id).update(
                arrived_count=F("arrived_count") + 1,
                arrived_failures=F("arrived_failures") + int(facts.failed),
            )
    return membership
