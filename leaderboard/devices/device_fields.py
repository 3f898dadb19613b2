"""The device fields of a report, typed by the person who measured it: make, model, chip, RAM, OS version and whether
it was charging. Free text is bounded and checked (refusals.clean_text); pages escape it when they show it, CSV
through core/csv.py. Pure: no Django.

Reports are grouped by device: make and model, case and spacing ignored (``device_key``), so "Google Pixel 8" and
"google  pixel 8" are one device. Chip and RAM are shown beside it (a model may come with more than one).

Invisible characters would make a look-alike device ("Ac\u200bme" beside "Acme"): the text fields and the key lose
every default-ignorable character (``invisible``: the format characters, Unicode category Cf, and the few others
Unicode marks default-ignorable), and odd spaces (no-break, ideographic...) become one plain space. Bidirectional
controls are Cf too, but they reorder what a page shows: the fields keep them, so that clean_text refuses them."""
import math
import unicodedata
from dataclasses import dataclass

from .refusals import BIDI_CONTROLS, MALFORMED, OUT_OF_BOUNDS, clean_text

TEXT_LIMITS = {"make": 40, "model": 60, "chip": 60, "os_version": 60}
RAM_GB = (0.25, 2048.0)  # a watch to a workstation; phones have 2-24 GB
FIELDS = (*TEXT_LIMITS, "ram_gb", "charging")


@dataclass(frozen=True)
class Device:
    make: str
    model: str
    chip: str
    ram_gb: float
    os_version: str
    charging: bool

    @property
    def key(self) -> str:
        return device_key(self.make, self.model)

    @property
    def name(self) -> str:
        return f"{self.make} {self.model}"


# Default-ignorable code points that are not Cf (Unicode's DerivedCoreProperties): the combining grapheme joiner,
# Hangul fillers, Khmer inherent vowels, Mongolian and other variation selectors.
_OTHER_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
                    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xE0000, 0xE0FFF))


def invisible(char: str) -> bool:
    """Whether a character shows nothing: a format character (Cf) or another default-ignorable one."""
    code = ord(char)
    return unicodedata.category(char) == "Cf" or any(low <= code <= high for low, high in _OTHER_IGNORABLE)


class _Folded(dict):
    """str.translate's table: invisible characters deleted (bidi controls too, unless `keep_bidi`), looked up once."""

    def __init__(self, keep_bidi: bool):
        super().__init__()
        self.keep_bidi = keep_bidi

    def __missing__(self, code):
        char = chr(code)
        drop = invisible(char) and not (self.keep_bidi and unicodedata.bidirectional(char) in BIDI_CONTROLS)
        self[code] = None if drop else code
        return self[code]


_FIELD_FOLD, _KEY_FOLD = _Folded(keep_bidi=True), _Folded(keep_bidi=False)


def without_invisible(value):
    """A typed text field without its invisible characters (bidi controls kept, for clean_text to refuse); anything
    else as it is, for clean_text to name."""
    return value.translate(_FIELD_FOLD) if isinstance(value, str) else value


def device_key(make: str, model: str) -> str:
    """Which device a report is of: make and model, NFKC then casefold (so "ＰＩＸＥＬ" and "pixel" are one device),
    invisible characters taken out and spaces collapsed. It may be longer than what was typed ('ﬃ' is 'ffi'): services
    check it fits its column."""
    return " ".join(unicodedata.normalize("NFKC", f"{make} {model}").translate(_KEY_FOLD).casefold().split())


def _ram(value, problems: dict) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        problems.setdefault(MALFORMED, []).append(f"device ram_gb must be a number of GB, e.g. 8, not {value!r:.40}")
        return 0.0
    if not RAM_GB[0] <= value <= RAM_GB[1]:
        problems.setdefault(OUT_OF_BOUNDS, []).append(f"device ram_gb is {value:g}, outside {RAM_GB[0]:g}..{RAM_GB[1]:g}"
                                                      " GB")
    return round(float(value), 2)


def parse_device(data, problems: dict) -> Device | None:
    """The device of `data` (a JSON object with FIELDS); problems go to `problems` (refusals' codes), and None comes
    back when it is not an object at all."""
    if not isinstance(data, dict):
        problems.setdefault(MALFORMED, []).append("device must be an object with " + ", ".join(FIELDS))
        return None
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        problems.setdefault(MALFORMED, []).append(f"device has unknown fields {', '.join(map(str, unknown[:5]))}; "
                                                  f"it takes {', '.join(FIELDS)}")
    texts = {name: clean_text(without_invisible(data.get(name)), f"device {name}", limit, problems)
             for name, limit in TEXT_LIMITS.items()}
    charging = data.get("charging")
    if not isinstance(charging, bool):
        problems.setdefault(MALFORMED, []).append("device charging must be true or false (was it plugged in while "
                                                  "measuring?)")
    return Device(**texts, ram_gb=_ram(data.get("ram_gb"), problems), charging=charging is True)
