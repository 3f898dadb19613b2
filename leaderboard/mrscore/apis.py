"""MRScore API: jobs, per-topic scores (with the paper's figures beside ours), per-question scores of
the open splits, and the score distribution per benchmark (paper Fig. 9). `?format=csv` on each table.

Sealed rule: per-question rows of the test split are never served (the selector refuses them), and
no aggregate includes them either (aggregates.py): every figure here is of the open splits.
"""
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.core.api import FORMAT_PARAM, PAGE_PARAMS, BaseApi, Pagination
from leaderboard.core.csv import flatten
from leaderboard.core.csv_http import CSVRenderer

from . import selectors
from .models import JobStatus
from .serializers import (DistributionQuerySerializer, DistributionSerializer, JobListQuerySerializer,
                          JobQuerySerializer, JobSerializer, QuestionScoreSerializer, QuestionScoresQuerySerializer,
                          QuestionScoresSerializer, TopicScoreSerializer, TopicScoresSerializer)

PROVENANCE_COLUMNS = ["job", "judge_model", "judge_revision", "endpoint_kind", "prompt_version", "prompt_hash",
                      "scoring", "judged_at"]
TOPIC_COLUMNS = ["category", "subcategory", "topic", "topic_slug", "n", "n_scored", "n_unparsable", "mrscore",
                 "ci95_low", "ci95_high", "bin", "published_mrscore"]
QUESTION_COLUMNS = ["uid", "split", "topic", "question", "mrscore", "method", "raw_reply", "score_mass"]
JOB_COLUMNS = ["id", "status", "progress_done", "progress_total", "attempts", "created_at", "finished_at",
               "failure_reason", *(f"provenance_{c}" for c in ("benchmark", "benchmark_version", "judge_model",
               "judge_revision", "endpoint_kind", "prompt_version", "prompt_hash", "scoring", "judged_at", "splits")),
               *(f"summary_{c}" for c in ("n", "n_scored", "n_unparsable", "unparsable_rate", "mean", "ci95"))]


def _round(value, digits=4):
    return None if value is None else round(value, digits)


class _Base(BaseApi):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    def job_for(self, slug, job_id=None):
        """The succeeded job `job_id` of benchmark `slug`, or its newest; else a 404."""
        benchmark = bench_selectors.benchmark_get(slug=slug)
        if benchmark is None:
            raise Http404(f"No benchmark {slug!r}.")
        if job_id is not None:
            job = selectors.job_get(job_id=job_id)
            if job is None or job.benchmark_version.benchmark_id != benchmark.pk or job.status != JobStatus.SUCCEEDED:
                raise NotFound(f"No finished MRScore job {job_id} for {slug}.")
            return job
        job = selectors.job_current(benchmark=benchmark)
        if job is None:
            raise NotFound(f"No MRScores for {slug} yet (python manage.py mrscore --benchmark {slug} --judge ...).")
        return job


class JobListApi(_Base):
    pagination_class = Pagination
    query_serializer = JobListQuerySerializer

    @extend_schema(parameters=[JobListQuerySerializer, FORMAT_PARAM], responses=JobSerializer(many=True),
                   operation_id="v1_mrscore_jobs_list")
    def get(self, request):
        benchmark, slug = None, self.query().get("benchmark")
        if slug:
            benchmark = bench_selectors.benchmark_get(slug=slug)
            if benchmark is None:
                raise NotFound(f"No benchmark {slug!r}.")
        jobs = selectors.job_list(benchmark=benchmark)
        if self.wants_csv():  # every job, a row each: the provenance and summary's figures as flat columns
            return self.csv(JOB_COLUMNS, [flatten(job) for job in JobSerializer(jobs, many=True).data],
                            "mrscore-jobs.csv")
        return self.page_response(jobs, JobSerializer)


class JobDetailApi(_Base):
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer]

    @extend_schema(responses=JobSerializer)
    def get(self, request, job_id):
        job = selectors.job_get(job_id=job_id)
        if job is None:
            raise Http404(f"No MRScore job {job_id}.")
        return Response(JobSerializer(job).data)


class TopicScoresApi(_Base):
    query_serializer = JobQuerySerializer

    @extend_schema(parameters=[JobQuerySerializer, FORMAT_PARAM], responses=TopicScoresSerializer)
    def get(self, request, slug):
        job = self.job_for(slug, self.query().get("job"))
        provenance = selectors.provenance(job=job)
        topics = list(selectors.topic_scores(job=job))
        if self.wants_csv():
            rows = [{**r, **{c: provenance[c] for c in PROVENANCE_COLUMNS}}
                    for r in TopicScoreSerializer(topics, many=True).data]
            return self.csv(TOPIC_COLUMNS + PROVENANCE_COLUMNS, rows, f"mrscore-{slug}-topics-job{job.pk}.csv")
        return Response(TopicScoresSerializer({"provenance": provenance, "summary": job.summary,
                                               "topics": topics}).data)


class QuestionScoresApi(_Base):
    pagination_class = Pagination
    query_serializer = QuestionScoresQuerySerializer

    @extend_schema(parameters=[QuestionScoresQuerySerializer, FORMAT_PARAM, *PAGE_PARAMS],
                   responses=QuestionScoresSerializer)
    def get(self, request, slug):
        q = self.query()
        job = self.job_for(slug, q.get("job"))
        # the sealed split: a SealedSplitError, answered 404
        rows = selectors.question_scores(job=job, split=q.get("split"), topic_slug=q.get("topic"))
        provenance = selectors.provenance(job=job)
        if self.wants_csv():
            out = [{**r, **{c: provenance[c] for c in PROVENANCE_COLUMNS}}
                   for r in QuestionScoreSerializer(rows.iterator(), many=True).data]
            return self.csv(QUESTION_COLUMNS + PROVENANCE_COLUMNS, out, f"mrscore-{slug}-questions-job{job.pk}.csv")
        page = self.paginate(rows)  # a page of the usual shape, with the provenance beside the rows
        return Response(QuestionScoresSerializer({
            "count": self.paginator.count, "next": self.paginator.get_next_link(),
            "previous": self.paginator.get_previous_link(), "provenance": provenance, "results": page}).data)


class DistributionApi(_Base):
    query_serializer = DistributionQuerySerializer

    @extend_schema(parameters=[DistributionQuerySerializer, FORMAT_PARAM], responses=DistributionSerializer(many=True))
    def get(self, request):
        slugs = self.query()["benchmark"]
        out = []
        for benchmark in selectors.benchmarks_with_scores(slugs=slugs or None):
            job = selectors.job_current(benchmark=benchmark)
            if job is None:
                continue
            s = job.summary
            out.append({"benchmark": benchmark.slug, "provenance": selectors.provenance(job=job),
                        "n_scored": s.get("n_scored", 0), "mean": _round(s.get("mean")),
                        "histogram": s.get("histogram", [0] * 10), "bins": s.get("bins", {})})
        if self.wants_csv():
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
