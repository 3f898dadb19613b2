"""MRScore API: jobs, per-topic scores (with the paper's figures beside ours), per-question scores of
the open splits, and the score distribution per benchmark (paper Fig. 9). `?format=csv` on each table.

Sealed rule: per-question rows of the test split are never served (the selector refuses them);
the sealed split only contributes to aggregates.
"""
import re

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator.judges.stats import bin_label

from leaderboard.api_schema import paginated
from leaderboard.benchmarks import selectors as bench_selectors

from . import selectors
from .models import JobStatus
from .renderers import CSVRenderer
from .serializers import (DistributionSerializer, JobSerializer, QuestionScoreSerializer, QuestionScoresSerializer,
                          TopicScoresSerializer)

PROVENANCE_COLUMNS = ["job", "judge_model", "judge_revision", "endpoint_kind", "prompt_version", "prompt_hash",
                      "scoring", "judged_at"]
TOPIC_COLUMNS = ["category", "subcategory", "topic", "topic_slug", "n", "n_scored", "n_unparsable", "mrscore",
                 "ci95_low", "ci95_high", "bin", "published_mrscore"]
QUESTION_COLUMNS = ["uid", "split", "topic", "question", "mrscore", "method", "raw_reply", "score_mass"]
JOB_PARAM = OpenApiParameter("job", OpenApiTypes.INT, description="a succeeded job id (default: the newest on "
                             "the benchmark's current version)")
FORMAT_PARAM = OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"])


SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def _slugs(request, name, *, several=False):
    """Slug query parameter(s). Anything else is a 400 (a NUL byte used to reach PostgreSQL: a 500)."""
    raw = request.query_params.get(name) or ""
    values = [s for s in raw.split(",") if s] if several else [raw] if raw else []
    if any(not SLUG.fullmatch(v) for v in values):
        raise ValidationError({name: ["a slug: letters, digits, '-' and '_'" + (", comma-separated" if several
                                                                                 else "")]})
    return values


def _round(value, digits=4):
    return None if value is None else round(value, digits)


class _Base(APIView):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    def wants_csv(self, request):
        return getattr(request.accepted_renderer, "format", "") == "csv"

    def csv(self, columns, rows, filename):
        response = Response({"columns": columns, "rows": rows})
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def job_for(self, request, slug):
        benchmark = bench_selectors.benchmark_get(slug=slug)
        if benchmark is None:
            raise Http404(f"No benchmark {slug!r}.")
        job_id = request.query_params.get("job")
        if job_id:
            if not job_id.isdigit():
                raise ValidationError({"job": "a job id (integer)"})
            job = selectors.job_get(job_id=int(job_id))
            if job is None or job.benchmark_version.benchmark_id != benchmark.pk or job.status != JobStatus.SUCCEEDED:
                raise NotFound(f"No finished MRScore job {job_id} for {slug}.")
            return job
        job = selectors.job_current(benchmark=benchmark)
        if job is None:
            raise NotFound(f"No MRScores for {slug} yet (python manage.py mrscore --benchmark {slug} --judge ...).")
        return job


def _job_payload(job):
    summary = job.summary or None
    return {"id": job.pk, "status": job.status, "progress_done": job.progress_done,
            "progress_total": job.progress_total, "attempts": job.attempts, "created_at": job.created_at,
            "finished_at": job.finished_at, "failure_reason": job.failure_reason,
            "provenance": selectors.provenance(job=job), "summary": summary}


class JobListApi(_Base):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer]

    @extend_schema(parameters=[OpenApiParameter("benchmark", OpenApiTypes.STR)], responses=paginated(JobSerializer),
                   operation_id="v1_mrscore_jobs_list")
    def get(self, request):
        benchmark = None
        slugs = _slugs(request, "benchmark")
        if slugs:
            benchmark = bench_selectors.benchmark_get(slug=slugs[0])
            if benchmark is None:
                raise NotFound(f"No benchmark {slugs[0]!r}.")
        paginator = LimitOffsetPagination()
        page = paginator.paginate_queryset(selectors.job_list(benchmark=benchmark), request, view=self)
        return paginator.get_paginated_response(JobSerializer([_job_payload(j) for j in page], many=True).data)


class JobDetailApi(_Base):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer]

    @extend_schema(responses=JobSerializer)
    def get(self, request, job_id):
        job = selectors.job_get(job_id=job_id)
        if job is None:
            raise Http404(f"No MRScore job {job_id}.")
        return Response(JobSerializer(_job_payload(job)).data)


class TopicScoresApi(_Base):
    @extend_schema(parameters=[JOB_PARAM, FORMAT_PARAM], responses=TopicScoresSerializer)
    def get(self, request, slug):
        job = self.job_for(request, slug)
        provenance = selectors.provenance(job=job)
        topics = []
        for row in selectors.topic_scores(job=job):
            t = row.topic
            topics.append({
                "category": t.subcategory.category.name, "subcategory": t.subcategory.name, "topic": t.name,
                "topic_slug": t.slug, "n": row.n, "n_scored": row.n_scored, "n_unparsable": row.n_unparsable,
                "mrscore": _round(row.mean), "ci95_low": _round(row.ci_low), "ci95_high": _round(row.ci_high),
                "bin": bin_label(row.mean) if row.mean is not None else None,
                "published_mrscore": t.published_mrscore,
            })
        if self.wants_csv(request):
            rows = [{**r, **{c: provenance[c] for c in PROVENANCE_COLUMNS}} for r in topics]
            return self.csv(TOPIC_COLUMNS + PROVENANCE_COLUMNS, rows, f"mrscore-{slug}-topics-job{job.pk}.csv")
        return Response(TopicScoresSerializer({"provenance": provenance, "summary": job.summary,
                                               "topics": topics}).data)


class QuestionScoresApi(_Base):
    @extend_schema(
        parameters=[JOB_PARAM, FORMAT_PARAM,
                    OpenApiParameter("split", OpenApiTypes.STR, enum=selectors.OPEN_SPLITS,
                                     description="open splits only; the sealed test split is refused"),
                    OpenApiParameter("topic", OpenApiTypes.STR, description="topic slug")],
        responses=QuestionScoresSerializer)
    def get(self, request, slug):
        job = self.job_for(request, slug)
        split = request.query_params.get("split") or None
        try:
            topic = (_slugs(request, "topic") or [None])[0]
            rows = selectors.question_scores(job=job, split=split, topic_slug=topic)
        except PermissionError as exc:
            raise NotFound(str(exc)) from None
        provenance = selectors.provenance(job=job)

        def payload(r):
            return {"uid": r.question.uid, "split": r.split, "topic": r.topic.slug, "question": r.question.text,
                    "mrscore": _round(r.score), "method": r.method, "raw_reply": r.raw_reply,
                    "score_mass": _round(r.score_mass, 6)}

        if self.wants_csv(request):
            out = [{**payload(r), **{c: provenance[c] for c in PROVENANCE_COLUMNS}} for r in rows.iterator()]
            return self.csv(QUESTION_COLUMNS + PROVENANCE_COLUMNS, out, f"mrscore-{slug}-questions-job{job.pk}.csv")
        paginator = LimitOffsetPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return Response(QuestionScoresSerializer({
            "count": paginator.count, "next": paginator.get_next_link(), "previous": paginator.get_previous_link(),
            "provenance": provenance, "results": QuestionScoreSerializer([payload(r) for r in page], many=True).data,
        }).data)


class DistributionApi(_Base):
    @extend_schema(parameters=[OpenApiParameter("benchmark", OpenApiTypes.STR,
                                                description="comma-separated slugs (default: all with scores)"),
                               FORMAT_PARAM],
                   responses=DistributionSerializer(many=True))
    def get(self, request):
        slugs = _slugs(request, "benchmark", several=True)
        out = []
        for benchmark in selectors.benchmarks_with_scores(slugs=slugs or None):
            job = selectors.job_current(benchmark=benchmark)
            if job is None:
                continue
            s = job.summary
            out.append({"benchmark": benchmark.slug, "provenance": selectors.provenance(job=job),
                        "n_scored": s.get("n_scored", 0), "mean": _round(s.get("mean")),
                        "histogram": s.get("histogram", [0] * 10), "bins": s.get("bins", {})})
        if self.wants_csv(request):
            columns = ["benchmark", "n_scored", "mean"] + [f"score_{k}" for k in range(1, 11)] + \
                      [f"bin {label}" for label in (">= 7", "5-6.9", "3-4.9", "< 3")] + PROVENANCE_COLUMNS
            rows = []
            for d in out:
                row = {"benchmark": d["benchmark"], "n_scored": d["n_scored"], "mean": d["mean"]}
                row.update({f"score_{k + 1}": c for k, c in enumerate(d["histogram"])})
                row.update({f"bin {label}": b["n"] for label, b in d["bins"].items()})
                row.update({c: d["provenance"][c] for c in PROVENANCE_COLUMNS})
                rows.append(row)
            return self.csv(columns, rows, "mrscore-distribution.csv")
        return Response(DistributionSerializer(out, many=True).data)
