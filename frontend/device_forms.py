"""The device report upload form: llama-bench's JSON (pasted, or its file) and the device. The browser bounds each
field; the service checks everything again with the API's refusals (leaderboard/devices/services.py)."""
from django import forms
from django.conf import settings

from leaderboard.devices import device_fields


def _text(name, label, help_text, **kwargs):
    return forms.CharField(label=label, max_length=device_fields.TEXT_LIMITS[name], help_text=help_text, **kwargs)


class DeviceReportForm(forms.Form):
    llama_bench = forms.CharField(
        label="llama-bench output (JSON)", required=False, widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        max_length=settings.DEVICE_REPORT_MAX_BYTES,
        help_text="Paste what <code>llama-bench -m FILE.gguf -o json</code> printed, from [ to ], unedited.")
    llama_bench_file = forms.FileField(label="…or its file", required=False)
    sha256 = forms.CharField(label="File sha256 (optional)", required=False, max_length=64,
                             help_text="<code>sha256sum FILE.gguf</code>: matches a renamed file. Without it the file "
                                       "is found by its name and the size llama-bench printed.")
    hub_id = forms.CharField(label="Model on the board (optional)", required=False, max_length=300,
                             help_text="Only when the same file is on the board twice.")
    make = _text("make", "Device make", "e.g. Google, Samsung, Apple")
    model = _text("model", "Device model", "e.g. Pixel 8")
    chip = _text("chip", "Chip", "e.g. Tensor G3, Snapdragon 8 Gen 2")
    ram_gb = forms.FloatField(label="RAM (GB)", min_value=device_fields.RAM_GB[0], max_value=device_fields.RAM_GB[1])
    os_version = _text("os_version", "OS version", "e.g. Android 14")
    charging = forms.BooleanField(label="It was charging while measuring", required=False)

    def device(self) -> dict:
        data = self.cleaned_data
        return {name: data[name] for name in device_fields.FIELDS}
