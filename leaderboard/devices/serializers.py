"""The device reports API's shapes: the request (documented here; checked by services.report_create, whose refusals
carry their own codes), a stored report, speeds per file and device, and the query parameters."""
from django.urls import reverse
from rest_framework import serializers

from leaderboard.benchmarks.shots import shots_field
from leaderboard.core.converters import MAX_ID
from leaderboard.results.query_serializers import VERSION_HELP, resolve_board

from . import device_fields, phone_figures
from .llama_bench import INT_BOUNDS, TEXT_LIMITS
from .models import ReportStatus

SHA256_HELP = "the file's sha256 (sha256sum FILE.gguf; of its first part when split)"
DEVICE_HELP = "make and model, e.g. 'Google Pixel 8' (any case or spacing)"


class BenchTestInputSerializer(serializers.Serializer):
    """One test object as llama-bench prints it with -o json (other fields it prints are read and ignored)."""

    model_filename = serializers.CharField(max_length=TEXT_LIMITS["model_filename"],
                                           help_text="the path given to -m; its last part is the file's name")
    model_type = serializers.CharField(max_length=TEXT_LIMITS["model_type"])
    model_size = serializers.IntegerField(min_value=INT_BOUNDS["model_size"][0], max_value=INT_BOUNDS["model_size"][1],
                                          help_text="llama_model_size: bytes of the file's tensors")
    n_threads = serializers.IntegerField(min_value=1, max_value=INT_BOUNDS["n_threads"][1])
    n_prompt = serializers.IntegerField(min_value=0, max_value=INT_BOUNDS["n_prompt"][1])
    n_gen = serializers.IntegerField(min_value=0, max_value=INT_BOUNDS["n_gen"][1])
    avg_ts = serializers.FloatField(min_value=0, help_text="tokens/s, mean over repetitions")
    stddev_ts = serializers.FloatField(min_value=0, help_text="tokens/s, sample standard deviation")
    build_commit = serializers.CharField(max_length=TEXT_LIMITS["build_commit"])
    backends = serializers.CharField(max_length=TEXT_LIMITS["backends"])
    cpu_info = serializers.CharField(max_length=TEXT_LIMITS["cpu_info"], allow_blank=True)
    gpu_info = serializers.CharField(max_length=TEXT_LIMITS["gpu_info"], allow_blank=True)
    test_time = serializers.DateTimeField()


class DeviceSerializer(serializers.Serializer):
    make = serializers.CharField(max_length=device_fields.TEXT_LIMITS["make"], help_text="e.g. Google")
    model = serializers.CharField(max_length=device_fields.TEXT_LIMITS["model"], help_text="e.g. Pixel 8")
    chip = serializers.CharField(max_length=device_fields.TEXT_LIMITS["chip"], help_text="e.g. Tensor G3")
    ram_gb = serializers.FloatField(min_value=device_fields.RAM_GB[0], max_value=device_fields.RAM_GB[1])
    os_version = serializers.CharField(max_length=device_fields.TEXT_LIMITS["os_version"], help_text="e.g. Android 14")
    charging = serializers.BooleanField(help_text="plugged in while measuring")


class DeviceReportInputSerializer(serializers.Serializer):
    llama_bench = BenchTestInputSerializer(many=True, help_text="llama-bench's JSON output (-o json), unedited")
    device = DeviceSerializer()
    sha256 = serializers.CharField(required=False, help_text=SHA256_HELP + "; without it the report is matched by "
                                   "file name and llama-bench's model_size")
    hub_id = serializers.CharField(required=False, help_text="the model's id on the board, when the same file is on "
                                   "it twice")


class FiniteFloatField(serializers.FloatField):
    """A figure as served: a number that is not finite (a row stored before intake refused it) is null, never a 500
    (JSON holds no inf or NaN)."""

    def to_representation(self, value):
        return phone_figures.finite(value)


class FigureSerializer(serializers.Serializer):
    tokens_per_s = FiniteFloatField(allow_null=True)
    sd = FiniteFloatField(allow_null=True)
    tokens = serializers.IntegerField(allow_null=True, help_text="n_prompt of the prompt test, n_gen of the "
                                      "generation test")
    threads = serializers.IntegerField(allow_null=True)


class BenchTestSerializer(serializers.Serializer):
    n_prompt = serializers.IntegerField()
    n_gen = serializers.IntegerField()
    n_depth = serializers.IntegerField()
    n_threads = serializers.IntegerField()
    n_gpu_layers = serializers.IntegerField(allow_null=True)
    avg_ts = FiniteFloatField()
    stddev_ts = FiniteFloatField()
    samples = serializers.IntegerField(help_text="repetitions listed (samples_ts): served by the report's samples "
                                       "endpoint, never in lists")
    test_time = serializers.DateTimeField()


class BenchTestWithSamplesSerializer(BenchTestSerializer):
    samples_ts = serializers.ListField(child=FiniteFloatField(), help_text="tokens/s of each repetition, in "
                                       "order (empty when not listed, or stored before issue 33)")


class SampleSerializer(serializers.Serializer):
    """One repetition of one test of a report (llama-bench's samples_ts), in the order they ran."""

    test = serializers.IntegerField(help_text="the test's place in the report's llama-bench JSON, from 0")
    kind = serializers.ChoiceField(choices=["pp", "tg", "pg"])
    n_prompt = serializers.IntegerField()
    n_gen = serializers.IntegerField()
    n_threads = serializers.IntegerField()
    repetition = serializers.IntegerField(help_text="from 1, in the order they ran")
    tokens_per_s = FiniteFloatField(allow_null=True)


class DeviceReportSerializer(serializers.Serializer):
    """A stored report: its tests without their repetitions (samples_url serves those, paginated)."""

    id = serializers.IntegerField()
    hub_id = serializers.CharField(source="model.hub_id")
    file = serializers.CharField(source="file_name")
    file_sha256 = serializers.CharField()
    matched_by = serializers.CharField()
    device = serializers.SerializerMethodField()
    llama_cpp = serializers.SerializerMethodField()
    model_type = serializers.CharField()
    model_size = serializers.IntegerField()
    prompt = serializers.SerializerMethodField()
    generation = serializers.SerializerMethodField()
    status = serializers.ChoiceField(choices=ReportStatus.choices,
                                     help_text="counted; outlier: more than 3x away from the figure other accounts "
                                               "confirmed, left out of medians until an admin accepts it; accepted")
    measured_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    tests = BenchTestSerializer(many=True, source="tests.all")
    samples_url = serializers.SerializerMethodField(help_text="the report's repetitions (samples_ts), paginated")
    # Set on each report by the API (apis._reports_marked), as the boards mark files: absent means not flagged.
    flagged = serializers.BooleanField(default=False, read_only=True,
                                       help_text="the file's model, or the base model it was made from or names, is "
                                                 "flagged (an admin, or possible contamination)")
    flagged_via = serializers.CharField(default="", read_only=True,
                                        help_text="the base model whose flag the file carries ('' when its own)")

    def get_samples_url(self, report) -> str:
        return reverse("api-device-report-samples", args=[report.pk])

    def get_device(self, report) -> DeviceSerializer:
        return {"make": report.make, "model": report.device_model, "chip": report.chip,
                "ram_gb": phone_figures.finite(report.ram_gb), "os_version": report.os_version,
                "charging": report.charging}

    def get_llama_cpp(self, report) -> dict:
        return {"build_commit": report.build_commit, "build_number": report.build_number,
                "backends": report.backends, "cpu_info": report.cpu_info, "gpu_info": report.gpu_info}

    def _figure(self, report, kind):
        return {name: getattr(report, f"{kind}_{name}") for name in ("tokens_per_s", "sd", "tokens", "threads")}

    def get_prompt(self, report) -> FigureSerializer:
        return FigureSerializer(self._figure(report, "pp")).data

    def get_generation(self, report) -> FigureSerializer:
        return FigureSerializer(self._figure(report, "tg")).data


class DeviceReportRowSerializer(DeviceReportSerializer):
    """A report as a CSV row: its tests are a table of their own (core.csv.flatten leaves them out), so not read."""

    tests = None


class DeviceReportWithSamplesSerializer(DeviceReportSerializer):
    """The report just uploaded, as its uploader sent it: with each test's repetitions (at most
    llama_bench.MAX_REPORT_SAMPLES in all)."""

    tests = BenchTestWithSamplesSerializer(many=True, source="tests.all")


class BuildMedianSerializer(serializers.Serializer):
    build_commit = serializers.CharField()
    build_number = serializers.IntegerField(allow_null=True)
    people = serializers.IntegerField()
    reports = serializers.IntegerField()
    tg_median = FiniteFloatField(allow_null=True)
    pp_median = FiniteFloatField(allow_null=True)
    ttft_derived_s = FiniteFloatField(allow_null=True)


class FeltFiguresSerializer(serializers.Serializer):
    """The figures a phone user feels (devices/phone_figures.py), each labelled by its name: derived or measured."""

    prompt_tokens = serializers.IntegerField(help_text="the benchmark's median prompt in tokens: the file's own (its "
                                             "cost profile) or the published shapes' 424")
    prompt_tokens_source = serializers.ChoiceField(choices=["file", "published"])
    ttft_derived_s = FiniteFloatField(allow_null=True, help_text="derived: prompt_tokens / pp_median, seconds "
                                            "to the first token (one prefill)")
    ttft_measured_s = FiniteFloatField(allow_null=True, help_text="measured: from reports with a pp test of "
                                             "exactly prompt_tokens (llama-bench -p N), median of the people's votes")
    ttft_measured_people = serializers.IntegerField()
    tg_sustained_drop = FiniteFloatField(allow_null=True, help_text="1 - last / first repetition of the "
                                               "generation test (samples_ts), reports with at least 5 repetitions; "
                                               "median of the people's votes; 0.25 is 25% slower at the end")
    tg_sustained_people = serializers.IntegerField()
    file_bytes = serializers.IntegerField(allow_null=True)
    kv_context = serializers.IntegerField(help_text="the cost profile's context, tokens")
    kv_cache_bytes = serializers.IntegerField(allow_null=True, help_text="layers x KV heads x (key + value length) x "
                                              "2 bytes (f16) x kv_context, from the GGUF header; null when not stored")
    memory_need_bytes = serializers.IntegerField(allow_null=True, help_text="file_bytes + kv_cache_bytes")
    fit_ram_gb = FiniteFloatField(allow_null=True, help_text="the smallest RAM reported, GB")
    app_ram_share = FiniteFloatField(help_text="assumed share of RAM a phone leaves one app")
    app_budget_bytes = serializers.IntegerField(allow_null=True)
    fit = serializers.ChoiceField(choices=["fits", "tight", "does not fit", "unknown"],
                                  help_text="fits: within the app's share; tight: within the RAM, over the share")


class SpeedRowSerializer(serializers.Serializer):
    hub_id = serializers.CharField()
    file = serializers.CharField()
    file_sha256 = serializers.CharField()
    quantization = serializers.CharField()
    device_key = serializers.CharField(help_text="make and model, lower-case; empty when rows are per file")
    device = serializers.CharField()
    devices = serializers.IntegerField(help_text="devices among the reports")
    reports = serializers.IntegerField(help_text="counted reports")
    outliers = serializers.IntegerField(help_text="reports left out until an admin accepts them")
    people = serializers.IntegerField(help_text="accounts with counted reports: one vote each, the median of theirs")
    confirmed = serializers.BooleanField(help_text="at least two accounts agree within 3x and outweigh twice what "
                                                   "disagrees; an unconfirmed figure is the median of every vote, "
                                                   "never ranked on the board")
    confirmed_by = serializers.IntegerField(help_text="the accounts whose agreeing votes make the figure (0 when "
                                                      "unconfirmed or disputed)")
    disputed = serializers.BooleanField(help_text="votes disagree: two people or more outside the figure's 3x band "
                                                  "weigh more than half its group; shown with every vote's spread, "
                                                  "never ranked (over devices: some device's figure is disputed)")
    dissenting = serializers.IntegerField(help_text="accounts whose votes lie outside the figure's band (their "
                                                    "reports are outliers)")
    every_tg_min = FiniteFloatField(allow_null=True, help_text="generation tokens/s: the lowest vote of every "
                                          "account, outliers included (a disputed figure's spread)")
    every_tg_max = FiniteFloatField(allow_null=True, help_text="generation tokens/s: the highest vote of "
                                          "every account, outliers included")
    pp_median = FiniteFloatField(allow_null=True, help_text="prompt processing tokens/s, median of the votes")
    pp_min = FiniteFloatField(allow_null=True)
    pp_max = FiniteFloatField(allow_null=True)
    tg_median = FiniteFloatField(allow_null=True, help_text="generation tokens/s, median of the votes")
    tg_min = FiniteFloatField(allow_null=True)
    tg_max = FiniteFloatField(allow_null=True)
    builds = serializers.ListField(child=serializers.CharField(), help_text="llama.cpp builds (build_commit)")
    chips = serializers.ListField(child=serializers.CharField())
    ram_gb = serializers.ListField(child=FiniteFloatField())
    tests = serializers.ListField(child=serializers.CharField(), help_text="test sizes, e.g. pp512, tg128")
    charging = serializers.IntegerField(help_text="reports measured while charging")
    build_medians = BuildMedianSerializer(many=True, help_text="per llama.cpp build, newest first (empty over "
                                          "several devices)")

    def get_fields(self):  # the felt figures after the speeds, then the flag (a CSV's columns keep this order)
        return {**super().get_fields(), **FeltFiguresSerializer().get_fields(), **FileFlagSerializer().get_fields()}


class FileFlagSerializer(serializers.Serializer):
    """A file's flag as every board shows it (boards.selectors.model_flags: its own, or its base model's)."""
    flagged = serializers.BooleanField(help_text="the file or its base model is flagged (an admin, or possible "
                                                 "contamination): its speeds are real, its accuracy is not trusted")
    flagged_via = serializers.CharField(help_text="the base model whose flag the file carries ('' when its own)")


class DeviceFilterSerializer(serializers.Serializer):
    device = serializers.CharField(required=False, default="", max_length=110, help_text=DEVICE_HELP)
    ram_gb = serializers.FloatField(required=False, default=None, min_value=device_fields.RAM_GB[0],
                                    max_value=device_fields.RAM_GB[1], help_text="the device's RAM, GB, exactly")


class SpeedQuerySerializer(DeviceFilterSerializer):
    hub_id = serializers.CharField(required=False, default="", max_length=300, help_text="the model's id on the board")
    sha256 = serializers.RegexField(r"^[0-9a-fA-F]{64}$", required=False, default="", help_text=SHA256_HELP)


class ReportQuerySerializer(SpeedQuerySerializer):
    status = serializers.ChoiceField(choices=ReportStatus.choices, required=False, default="")


class DeviceBoardQuerySerializer(DeviceFilterSerializer):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    shots = shots_field()
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text=VERSION_HELP)
    min_accuracy = serializers.FloatField(required=False, default=None, min_value=0, max_value=100,
                                          help_text="percent: only files at least this accurate")
    include_flagged = serializers.BooleanField(default=False, help_text="also list flagged files (flagged, or made "
                                               "from or naming a flagged base model), marked; never on the frontier")

    def validate(self, attrs):
        return resolve_board(attrs)


class DeviceBoardRowSerializer(serializers.Serializer):
    """A file on the chosen devices: its accuracy and confirmed speeds, TTFT derived from the prompt median, the
    devices' measured TTFT and sustained drop (medians over the confirmed devices), and whether it fits the smallest
    RAM among them."""

    hub_id = serializers.CharField()
    run_id = serializers.IntegerField(help_text="the file's open-split run (its accuracy)")
    file = serializers.CharField()
    file_sha256 = serializers.CharField()
    file_bytes = serializers.IntegerField(allow_null=True)
    quantization = serializers.CharField()
    accuracy = FiniteFloatField(allow_null=True, help_text="percent, the On-device board's figure")
    ci95_low = FiniteFloatField(allow_null=True)
    ci95_high = FiniteFloatField(allow_null=True)
    flagged = serializers.BooleanField(help_text="the file or its base model is flagged (listed only with "
                                       "include_flagged)")
    possible_contamination = serializers.BooleanField()
    flagged_via = serializers.CharField(help_text="the base model whose flag the file carries")
    reports = serializers.IntegerField(help_text="counted reports on the confirmed devices")
    devices = serializers.IntegerField(help_text="devices with a confirmed figure")
    outliers = serializers.IntegerField(help_text="reports left out until an admin accepts them")
    confirmed_by = serializers.IntegerField(help_text="people whose agreeing votes make the devices' figures")
    unconfirmed_devices = serializers.IntegerField(help_text="devices whose figure no second person confirmed yet, "
                                                             "or is disputed: left out")
    disputed_devices = serializers.IntegerField(help_text="of those, devices whose votes disagree (disputed)")
    tg_median = FiniteFloatField(help_text="generation tokens/s: the median of the confirmed devices' figures")
    tg_min = FiniteFloatField()
    tg_max = FiniteFloatField()
    pp_median = FiniteFloatField(allow_null=True)
    pp_min = FiniteFloatField(allow_null=True)
    pp_max = FiniteFloatField(allow_null=True)
    builds = serializers.ListField(child=serializers.CharField())
    chips = serializers.ListField(child=serializers.CharField())
    ram_gb = serializers.ListField(child=FiniteFloatField())
    tests = serializers.ListField(child=serializers.CharField())
    pareto = serializers.BooleanField(help_text="on the frontier of accuracy against generation speed on these "
                                                "devices: no file is both faster and more accurate")

    def get_fields(self):
        felt = FeltFiguresSerializer().get_fields()
        felt.pop("file_bytes")
        return {**super().get_fields(), **felt}
