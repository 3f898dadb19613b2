"""Speed reports measured on people's own devices (llama-bench) for the GGUF files on the board (issue 25).

A report is owned by the account that uploaded it, names the board file it was matched to (the model entry and the
file's sha256: a file's identity), the device it ran on, and keeps llama-bench's figures: each test, and the
report's fastest prompt-processing and generation test (llama_bench.py). They are shown beside the server's cost
profile, never mixed into it. Every report of a file on a device is judged again whenever one arrives (consensus.py,
judging.py): an account whose vote lies outside the band of the figure is an outlier, left out of it until an admin
accepts it; an admin may hide any report. Both are audited.
"""
from django.conf import settings
from django.core.validators import MaxLengthValidator
from django.db import models

from .llama_bench import MAX_SAMPLES


class ReportStatus(models.TextChoices):
    COUNTED = "counted", "counted"
    OUTLIER = "outlier", "outlier: left out of medians until an admin accepts it"
    ACCEPTED = "accepted", "outlier accepted by an admin: counted"


COUNTED_STATUSES = (ReportStatus.COUNTED, ReportStatus.ACCEPTED)


class MatchedBy(models.TextChoices):
    SHA256 = "sha256", "the file's sha256"
    NAME_SIZE = "name_size", "file name and model_size"


class DeviceReport(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="device_reports")
    model = models.ForeignKey("submissions.ModelEntry", on_delete=models.PROTECT, related_name="device_reports",
                              help_text="the board's GGUF file entry the report was matched to")
    file_sha256 = models.CharField(max_length=64, help_text="the matched file's sha256 (a split file's first part)")
    file_name = models.CharField(max_length=200, help_text="the file name llama-bench printed (model_filename)")
    matched_by = models.CharField(max_length=10, choices=MatchedBy.choices)
    # the device, as typed (device_fields.py)
    device_key = models.CharField(max_length=110, help_text="make and model, lower-case: reports of one device")
    make = models.CharField(max_length=40)
    device_model = models.CharField(max_length=60)
    chip = models.CharField(max_length=60)
    ram_gb = models.FloatField()
    os_version = models.CharField(max_length=60)
    charging = models.BooleanField()
    # llama-bench's facts of the report (llama_bench.py says what each means)
    model_size = models.BigIntegerField(help_text="llama-bench's model_size: bytes of the file's tensors")
    model_type = models.CharField(max_length=100, blank=True)
    build_commit = models.CharField(max_length=40, blank=True, help_text="llama.cpp's commit that llama-bench names")
    build_number = models.BigIntegerField(null=True, blank=True)
    backends = models.CharField(max_length=100, blank=True)
    cpu_info = models.CharField(max_length=200, blank=True)
    gpu_info = models.CharField(max_length=200, blank=True)
    # the report's figures: its fastest test of each kind
    pp_tokens_per_s = models.FloatField(null=True, blank=True)
    pp_sd = models.FloatField(null=True, blank=True)
    pp_tokens = models.PositiveIntegerField(null=True, blank=True)
    pp_threads = models.PositiveIntegerField(null=True, blank=True)
    tg_tokens_per_s = models.FloatField(null=True, blank=True)
    tg_sd = models.FloatField(null=True, blank=True)
    tg_tokens = models.PositiveIntegerField(null=True, blank=True)
    tg_threads = models.PositiveIntegerField(null=True, blank=True)
    # what pages need of the tests, derived once at intake (phone_figures.report_figures): no page reads samples_ts
    prompt_rates = models.JSONField(default=dict, blank=True, help_text="tokens/s of the fastest prompt test of each "
                                    "length, {n_prompt: avg_ts}: the measured time to first token")
    tg_sustained_drop = models.FloatField(null=True, blank=True, help_text="1 - last / first repetition of the "
                                          "generation figure's test (at least 5 repetitions), else empty")
    measured_at = models.DateTimeField(help_text="the first test's test_time")
    status = models.CharField(max_length=10, choices=ReportStatus.choices, default=ReportStatus.COUNTED,
                              help_text="the outcome of its group's latest judgement (consensus.py), or an admin's "
                                        "accept")
    weight = models.FloatField(default=1.0, help_text="its account's vote weight at that judgement: what the account "
                                                      "cost to make (consensus.weight)")
    hidden = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["model", "file_sha256", "device_key"]), models.Index(fields=["device_key"]),
                   models.Index(fields=["owner", "created_at"])]

    def __str__(self):
        return f"device report {self.pk}: {self.make} {self.device_model}, {self.file_name}"

    @property
    def device_name(self) -> str:
        return f"{self.make} {self.device_model}"

    @property
    def counted(self) -> bool:
        return self.status in COUNTED_STATUSES and not self.hidden


class DeviceTest(models.Model):
    """One test object of the report's llama-bench JSON."""

    report = models.ForeignKey(DeviceReport, on_delete=models.CASCADE, related_name="tests")
    index = models.PositiveSmallIntegerField()
    n_prompt = models.PositiveIntegerField()
    n_gen = models.PositiveIntegerField()
    n_depth = models.PositiveIntegerField(default=0)
    n_threads = models.PositiveIntegerField()
    n_gpu_layers = models.IntegerField(null=True, blank=True)
    avg_ts = models.FloatField(help_text="tokens/s, the mean over repetitions")
    stddev_ts = models.FloatField(help_text="tokens/s, the sample standard deviation over repetitions")
    samples = models.PositiveIntegerField(default=0, help_text="repetitions (samples_ts), when llama-bench listed them")
    samples_ts = models.JSONField(default=list, blank=True, validators=[MaxLengthValidator(MAX_SAMPLES)],
                                  help_text="tokens/s of each repetition, in the order they ran (empty when llama-bench "
                                            "listed none, or stored before they were kept)")
    test_time = models.DateTimeField()

    class Meta:
        ordering = ["report", "index"]
        constraints = [models.UniqueConstraint(fields=["report", "index"], name="unique_device_test")]
